-- Losing claims are recorded as well: an Idempotency-Key replays its outcome whichever it was,
-- and the same key with another fingerprint conflicts. A spectating outcome has no seat and no
-- token; it keeps the reason it was given.
ALTER TABLE showcase_claims
    ALTER COLUMN seat DROP NOT NULL,
    ALTER COLUMN seat_token DROP NOT NULL,
    ADD COLUMN reason text CHECK (reason IN ('already_claimed', 'game_ended')),
    ADD CONSTRAINT showcase_claims_one_outcome CHECK (
        (seat IS NOT NULL AND seat_token IS NOT NULL AND reason IS NULL)
        OR (seat IS NULL AND seat_token IS NULL AND reason IS NOT NULL)
    );
