-- What a finished game leaves behind, written in one transaction with its final snapshot.
-- No foreign keys to games: retention may drop an old live-state row, never these.

-- The game-results projection: one row per ended game, what the rating batch consumes.
CREATE TABLE game_results (
    game_id          uuid PRIMARY KEY,
    finished_at      timestamptz NOT NULL,
    rated            boolean NOT NULL,
    origin           text NOT NULL,
    white_principal  text,
    black_principal  text,
    -- White's point of view: 1, 0 or -1; NULL when the game was aborted (no result).
    result           smallint CHECK (result IN (-1, 0, 1)),
    termination      text NOT NULL,
    time_control     jsonb NOT NULL,
    rating_applied_at timestamptz
);

CREATE INDEX game_results_unrated_idx ON game_results (finished_at)
    WHERE rated AND result IS NOT NULL AND rating_applied_at IS NULL;

-- The immutable archive: the body of GET /games/{id}/history, never updated.
CREATE TABLE game_archive (
    game_id      uuid PRIMARY KEY,
    finished_at  timestamptz NOT NULL,
    record       jsonb NOT NULL
);

CREATE FUNCTION game_archive_is_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'game_archive rows are immutable';
END $$;

CREATE TRIGGER game_archive_no_update BEFORE UPDATE ON game_archive
    FOR EACH ROW EXECUTE FUNCTION game_archive_is_immutable();

-- Transactional outbox of analytics payloads; the pump delivers and marks them.
CREATE TABLE analytics_outbox (
    id               bigserial PRIMARY KEY,
    idempotency_key  text NOT NULL UNIQUE,
    payload          jsonb NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_error       text,
    delivered_at     timestamptz
);

CREATE INDEX analytics_outbox_due_idx ON analytics_outbox (next_attempt_at) WHERE delivered_at IS NULL;
