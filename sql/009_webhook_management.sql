-- Account-owned bots and staged webhook management (/me/..., /admin/...; docs/webhook-management.md).

-- A bot's incarnation changes if its row is ever created anew under the same name, so an
-- activation started for the old bot can never complete on the new one. Its webhook slot
-- revision is bumped by every change of the slot (a setup staged, discarded, leased,
-- completed or scrubbed; a registration written or removed): the strong ETag of the slot.
ALTER TABLE bots ADD COLUMN incarnation uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE bots ADD COLUMN webhook_revision bigint NOT NULL DEFAULT 1 CHECK (webhook_revision >= 1);

-- Who owns a registered bot: the account that proved it holds the bot's token.
CREATE TABLE bot_owners (
    bot_id      text PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    claimed_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX bot_owners_account_idx ON bot_owners (account_id);

-- At most one setup per bot: a candidate URL waiting to be activated, or the last one's
-- terminal state (kept until a new setup replaces it or it is pruned).
CREATE TABLE webhook_setups (
    bot_id               text PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
    setup_id             uuid NOT NULL UNIQUE,
    incarnation          uuid NOT NULL,
    candidate_url        text NOT NULL CHECK (length(candidate_url) <= 2048),
    state                text NOT NULL CHECK (state IN ('pending', 'activated', 'exhausted', 'scrubbed')),
    -- 'user:<uuid>' of whoever staged it, and the authority it acted under.
    created_by           text NOT NULL,
    authority            text NOT NULL CHECK (authority IN ('owner', 'admin')),
    -- For authority 'admin': the digest of the PLAY_ADMINS generation it was staged under.
    admin_generation     text,
    activation_attempts  integer NOT NULL DEFAULT 0 CHECK (activation_attempts BETWEEN 0 AND 5),
    lease_id             uuid,
    lease_revision       bigint,
    lease_expires_at     timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    expires_at           timestamptz NOT NULL,
    ended_at             timestamptz,
    CHECK ((lease_id IS NULL) = (lease_expires_at IS NULL) AND (lease_id IS NULL) = (lease_revision IS NULL)),
    CHECK ((authority = 'admin') = (admin_generation IS NOT NULL)),
    CHECK ((state = 'pending') = (ended_at IS NULL))
);

-- What was done to whom, for operators: never a secret, a token or a full URL.
CREATE TABLE audit_events (
    id        bigserial PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    kind      text NOT NULL,
    actor     text NOT NULL,
    bot_id    text,
    detail    jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_events_bot_idx ON audit_events (bot_id, at);

-- Admin authority: each instance serving /admin writes the digest of its PLAY_ADMINS every
-- 5 s; a row is live for 20 s after its last beat.
CREATE TABLE admin_generations (
    instance_id  uuid PRIMARY KEY,
    digest       text NOT NULL,
    beat_at      timestamptz NOT NULL
);
