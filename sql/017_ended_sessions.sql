-- A session signed out on its own device (POST /auth/logout {"everywhere": false}), while the
-- account's other sessions go on. A session names itself by a random id in its cookie (`sid`);
-- its row stays until the cookie would have expired anyway, and the next sign-out purges it.
CREATE TABLE ended_sessions (
    session_id text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX ended_sessions_expiry ON ended_sessions (expires_at);
