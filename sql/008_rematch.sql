-- Rematch: one opportunity per finished human game, the commands that acted on it, and the
-- successor it led to (at most one, ever: the primary key on the source is the guard).

-- Created by the first command on a source; an untouched `available` opportunity has no row
-- (its deadline follows from the source's end). Every command locks this row (FOR UPDATE):
-- the commands of one source are serialised by the database, so the first accept, decline,
-- cancel or expiry wins, whichever connection or process carries it.
CREATE TABLE rematch_opportunities (
    source_game_id  uuid PRIMARY KEY,
    phase           text NOT NULL CHECK (phase IN ('available', 'offered', 'starting', 'matched', 'closed')),
    ended_at        timestamptz NOT NULL,   -- the source's authoritative end
    proposed_at     timestamptz,            -- the first proposal: the offer window runs from it
    initiator       text CHECK (initiator IN ('White', 'Black')),
    consents        text[] NOT NULL DEFAULT '{}',
    closed_reason   text CHECK (closed_reason IN ('declined', 'cancelled', 'expired', 'technical_failure', 'restart')),
    successor_game_id uuid UNIQUE,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((phase = 'closed') = (closed_reason IS NOT NULL)),
    CHECK ((phase = 'matched') = (successor_game_id IS NOT NULL))
);

CREATE INDEX rematch_opportunities_starting_idx ON rematch_opportunities (updated_at) WHERE phase = 'starting';

-- The committed successor, written in the same transaction as its games row: the link from
-- the source (kept as long as the source's history: never pruned), the first-join deadline,
-- and each seat's capability, so a participant whose answer was lost gets the same seat again.
-- The capabilities are erased 24 hours after the commit; the link stays.
CREATE TABLE rematch_successors (
    source_game_id  uuid PRIMARY KEY REFERENCES rematch_opportunities (source_game_id),
    game_id         uuid NOT NULL UNIQUE,
    join_deadline_at timestamptz NOT NULL,
    -- Source seat -> the seat that participant holds in the successor ('White'/'Black').
    white_moves_to  text NOT NULL CHECK (white_moves_to IN ('White', 'Black')),
    white_token     text,                   -- the capability of the successor's White seat
    black_token     text,
    committed_at    timestamptz NOT NULL DEFAULT now()
);

-- Every command a participant sent, by its client-generated request id, with its outcome
-- (NULL: applied; else the error code it got), kept 24 hours from the first attempt.
CREATE TABLE rematch_requests (
    source_game_id  uuid NOT NULL,
    seat            text NOT NULL CHECK (seat IN ('White', 'Black')),
    request_id      uuid NOT NULL,
    action          text NOT NULL CHECK (action IN ('propose', 'accept', 'decline', 'cancel')),
    error_code      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_game_id, seat, request_id)
);

CREATE INDEX rematch_requests_created_idx ON rematch_requests (created_at);
