-- Glicko-2 ratings of registered bots, written only by the rating batch.

CREATE TABLE bot_ratings (
    bot_id       text PRIMARY KEY REFERENCES bots (id),
    rating       double precision NOT NULL DEFAULT 1500,
    rd           double precision NOT NULL DEFAULT 350,
    volatility   double precision NOT NULL DEFAULT 0.06,
    -- Rated, decided games applied so far (the leaderboard's counts).
    games        integer NOT NULL DEFAULT 0,
    wins         integer NOT NULL DEFAULT 0,
    draws        integer NOT NULL DEFAULT 0,
    losses       integer NOT NULL DEFAULT 0,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX game_results_principals_idx ON game_results (white_principal, black_principal);
