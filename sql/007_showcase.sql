-- The showcase table: one permanent public table against the featured bot.

-- One row: the colour the next human is seated on, and the game now at the table.
CREATE TABLE showcase_table (
    id                integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    next_human_color  text NOT NULL DEFAULT 'White' CHECK (next_human_color IN ('White', 'Black')),
    current_game      uuid,
    updated_at        timestamptz NOT NULL DEFAULT now()
);

INSERT INTO showcase_table (id) VALUES (1);

-- A committed claim, kept 24 hours so a retried request replays its outcome.
CREATE TABLE showcase_claims (
    actor            text NOT NULL,             -- 'user:<uuid>' or 'guest:<uuid>'
    idempotency_key  uuid NOT NULL,
    -- SHA-256 of (actor, guestId, clientEntropy): a retry must match it exactly.
    fingerprint      bytea NOT NULL,
    game_id          uuid NOT NULL,
    seat             text NOT NULL CHECK (seat IN ('White', 'Black')),
    -- The winner's seat token, returned again on a replay while the game is active.
    -- Erased with the record after 24 hours; the room itself keeps only its digest.
    seat_token       text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (actor, idempotency_key)
);

CREATE INDEX showcase_claims_created_idx ON showcase_claims (created_at);
