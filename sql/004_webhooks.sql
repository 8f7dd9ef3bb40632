-- Webhook push of registered bots: the current registration of each bot, and delivery telemetry.

-- Generations of registrations: every new registration takes the next value, so a delivery can
-- tell whether the registration it was sent under is still the current one.
CREATE SEQUENCE webhook_registration_ids;

CREATE TABLE webhook_registrations (
    bot_id           text PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
    registration_id  bigint NOT NULL UNIQUE,
    url              text NOT NULL CHECK (length(url) <= 2048),
    -- The HMAC key every delivery is signed with. It must be stored to sign (it cannot be a
    -- digest, unlike bearer tokens); it is shown to the bot once and never logged.
    secret           text NOT NULL,
    verified_at      timestamptz NOT NULL
);

-- One row per delivery attempt (GET /bot/webhook/stats). Kept about 8 days: the longest window
-- the stats report is 7 days.
CREATE TABLE webhook_deliveries (
    id               bigserial PRIMARY KEY,
    bot_id           text NOT NULL,
    registration_id  bigint NOT NULL,
    at               timestamptz NOT NULL,
    outcome          text NOT NULL,
    latency_ms       integer NOT NULL CHECK (latency_ms >= 0),
    reason           text NOT NULL DEFAULT ''
);

CREATE INDEX webhook_deliveries_bot_at ON webhook_deliveries (bot_id, at);
