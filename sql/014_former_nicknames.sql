-- A nickname an account has given up by renaming stays its own: a link to the old profile
-- (/@/<old>) leads to the account under its new name, and no other account can take the old
-- name and be mistaken for it. The account may take it back; deleting the account frees them.
CREATE TABLE former_nicknames (
    nickname    text NOT NULL CHECK (nickname ~ '^[A-Za-z0-9_-]{3,20}$'),
    account_id  uuid NOT NULL REFERENCES accounts (id),
    replaced_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX former_nicknames_nickname_idx ON former_nicknames (lower(nickname));
CREATE INDEX former_nicknames_account_idx ON former_nicknames (account_id);
