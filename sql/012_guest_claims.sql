-- A guest id an account has claimed: the browser's anonymous identity, linked once to the
-- account signed in on it. First claim wins and is final: a guest id belongs to at most one
-- account, ever (a deleted account keeps its claims under its anonymous id).
CREATE TABLE guest_claims (
    guest_id    uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    claimed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guest_claims_by_account ON guest_claims (account_id, claimed_at, guest_id);
