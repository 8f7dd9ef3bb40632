-- Registered bot identities (anonymous bots live in memory only, about 24 h).

CREATE TABLE bots (
    id                    text PRIMARY KEY,          -- 'team/name'
    team                  text NOT NULL,
    name                  text NOT NULL,
    -- SHA-256 of the bearer token; the token itself is shown once and never stored.
    token_hash            bytea NOT NULL UNIQUE,
    max_concurrent_games  integer NOT NULL DEFAULT 1 CHECK (max_concurrent_games BETWEEN 1 AND 32),
    on_ladder             boolean NOT NULL DEFAULT false,
    open_to_humans        boolean NOT NULL DEFAULT false,
    description           text NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    created_at            timestamptz NOT NULL DEFAULT now(),
    UNIQUE (team, name)
);
