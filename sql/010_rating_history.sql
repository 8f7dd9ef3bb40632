-- One row per rated player (bot or account) per rating period in which it played: the rating
-- after the period and the period's own games. Written by the rating batch in the same
-- transaction as the ratings themselves; read by the profiles' rating graphs.

CREATE TABLE rating_history (
    principal    text NOT NULL,               -- 'bot:<bots.id>' or 'user:<accounts.id>'
    period_at    timestamptz NOT NULL,        -- when the period was applied (the batch's now())
    rating       double precision NOT NULL,
    rd           double precision NOT NULL,
    games        integer NOT NULL,            -- games of this period only
    wins         integer NOT NULL,
    draws        integer NOT NULL,
    losses       integer NOT NULL,
    PRIMARY KEY (principal, period_at)
);

-- Ratings applied before this table existed: their current value becomes the first point,
-- carrying every game played so far.
INSERT INTO rating_history (principal, period_at, rating, rd, games, wins, draws, losses)
SELECT 'bot:' || bot_id, updated_at, rating, rd, games, wins, draws, losses FROM bot_ratings;
INSERT INTO rating_history (principal, period_at, rating, rd, games, wins, draws, losses)
SELECT 'user:' || account_id::text, updated_at, rating, rd, games, wins, draws, losses FROM account_ratings;
