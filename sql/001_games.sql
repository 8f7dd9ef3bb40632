-- Live games and their seats: the durable state a room resumes from after a restart.

CREATE TABLE games (
    id          uuid PRIMARY KEY,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    origin      text NOT NULL
                CHECK (origin IN ('friend', 'lobby', 'challenge', 'seek', 'ladder', 'showcase', 'rematch')),
    durability  text NOT NULL CHECK (durability IN ('best_effort', 'required')),
    rated       boolean NOT NULL DEFAULT false,
    status      text NOT NULL CHECK (status IN ('active', 'ended')),
    version     integer NOT NULL CHECK (version >= 0),
    -- The room's whole state at `version`, including the dice secret: never served as is.
    snapshot    jsonb NOT NULL
);

CREATE INDEX games_active_idx ON games (created_at) WHERE status = 'active';

CREATE TABLE game_seats (
    game_id     uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        text NOT NULL CHECK (seat IN ('White', 'Black')),
    -- SHA-256 of the seat capability; the token itself is never stored.
    token_hash  bytea NOT NULL,
    -- 'user:<uuid>', 'guest:<uuid>' or 'bot:<id>' once the seat is redeemed.
    principal   text,
    PRIMARY KEY (game_id, seat)
);
