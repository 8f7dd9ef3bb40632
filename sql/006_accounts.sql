-- People who signed in with an OpenID Connect provider. Playing never needs an account:
-- guests play as 'guest:<uuid>'; an account plays as 'user:<accounts.id>'.

CREATE TABLE accounts (
    id                  uuid PRIMARY KEY,
    -- The provider's issuer URL and its stable subject for this person; NULL once deleted.
    issuer              text,
    subject             text,
    -- Public name (3-20 of [A-Za-z0-9_-]); unique whatever its case; NULL once deleted.
    nickname            text CHECK (nickname ~ '^[A-Za-z0-9_-]{3,20}$'),
    status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated', 'deleted')),
    -- Bumped by "sign out everywhere": a session carries the generation it was issued under.
    session_generation  integer NOT NULL DEFAULT 0 CHECK (session_generation >= 0),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'deleted') = (issuer IS NULL AND subject IS NULL AND nickname IS NULL)),
    UNIQUE (issuer, subject)
);

CREATE UNIQUE INDEX accounts_nickname_idx ON accounts (lower(nickname));

-- Glicko-2 ratings of accounts, written only by the rating batch (the same pool as bots).
CREATE TABLE account_ratings (
    account_id   uuid PRIMARY KEY REFERENCES accounts (id),
    rating       double precision NOT NULL DEFAULT 1500,
    rd           double precision NOT NULL DEFAULT 350,
    volatility   double precision NOT NULL DEFAULT 0.06,
    games        integer NOT NULL DEFAULT 0,
    wins         integer NOT NULL DEFAULT 0,
    draws        integer NOT NULL DEFAULT 0,
    losses       integer NOT NULL DEFAULT 0,
    updated_at   timestamptz NOT NULL DEFAULT now()
);
