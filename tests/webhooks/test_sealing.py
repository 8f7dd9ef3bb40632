"""Webhook secrets sealed at rest (playsite/webhooks/sealing.py): the format and its refusals,
the PostgreSQL column after a registration, the boot's re-sealing and rotation, the settings.

Every test also checks that no key and no webhook secret reached a log record (`caplog`)."""

from __future__ import annotations

import base64
import contextlib
import logging
import re
import secrets
from datetime import datetime, timezone

import psycopg
import pytest

from playsite.bots.directory import BotDirectory
from playsite.bots.store import PostgresBotStore
from playsite.cli.serve import load_settings_or_exit
from playsite.config import REDACTED, ConfigError, Settings
from playsite.demo.settings import SECRETS_KEY_FILE, demo_secrets_key, demo_settings
from playsite.store.database import Database
from playsite.webhooks.delivery import deliver_once
from playsite.webhooks.sealing import Sealer, SecretUnreadable, key_id, open_stored
from playsite.webhooks.store import PostgresWebhookStore
from tests.support.app import booted, test_client
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.receiver import WebhookReceiver

OLD_KEY, NEW_KEY, OTHER_KEY = (secrets.token_hex(32) for _ in range(3))
SEALED = re.compile(r"sealed1:([0-9a-f]{8}):([A-Za-z0-9_-]+)")
NOW = datetime(2026, 7, 17, 12, 0, tzinfo=timezone.utc)
BOTS = ("seal/alice", "seal/bob")

never_logged: set[str] = {OLD_KEY, NEW_KEY, OTHER_KEY}
"""Keys, and every webhook secret a test makes: none may appear in a log record."""


def new_secret() -> str:
    secret = secrets.token_hex(32)
    never_logged.add(secret)
    return secret


class Everything(logging.Handler):
    """Every record of a test, whatever `caplog.clear()` drops from caplog's own view."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def nothing_secret_logged(caplog):
    caplog.set_level(logging.DEBUG)
    everything = Everything()
    logging.getLogger().addHandler(everything)
    try:
        yield caplog
    finally:
        logging.getLogger().removeHandler(everything)
    records = everything.records + [r for phase in ("setup", "call") for r in caplog.get_records(phase)]
    texts = [caplog.text] + [logging.Formatter("%(message)s %(exc_text)s").format(r) for r in records]
    texts += [str(record.args) for record in records]
    for text in texts:
        for value in never_logged:
            assert value not in text, "a key or a webhook secret reached the log"
            assert value.upper() not in text


def sealer(key: str = NEW_KEY, previous: str | None = None) -> Sealer:
    return Sealer.from_hex(key, previous)


def refusal(callable_, *args) -> SecretUnreadable:
    with pytest.raises(SecretUnreadable) as raised:
        callable_(*args)
    message = str(raised.value)
    for value in never_logged:
        assert value not in message
    return raised.value


# ----- the format -----------------------------------------------------------------------------------


def test_a_sealed_secret_opens_for_its_bot_and_hides_the_secret():
    secret, box = new_secret(), sealer()
    stored = box.seal(secret, "seal/alice")
    match = SEALED.fullmatch(stored)
    assert match and match.group(1) == box.key_id == key_id(bytes.fromhex(NEW_KEY))
    blob = base64.urlsafe_b64decode(match.group(2) + "=" * (-len(match.group(2)) % 4))
    assert len(blob) == 12 + len(secret) + 16  # nonce || ciphertext || tag
    assert secret not in stored and secret.encode() not in blob
    assert box.open(stored, "seal/alice") == secret
    again = box.seal(secret, "seal/alice")
    assert again != stored and box.open(again, "seal/alice") == secret  # a fresh nonce each time
    assert box.is_current(stored)
    assert NEW_KEY not in repr(box) and box.key_id in repr(box)
    assert box.key_id not in NEW_KEY  # a fingerprint, not a piece of the key


def test_a_plain_legacy_secret_opens_as_itself():
    secret = new_secret()
    assert sealer().open(secret, "seal/alice") == secret
    assert open_stored(None, secret, "seal/alice") == secret
    assert not sealer().is_current(secret)


def test_a_tampered_value_is_refused():
    secret, box = new_secret(), sealer()
    stored = box.seal(secret, "seal/alice")
    head, _, body = stored.rpartition(":")
    for position in (0, 12, len(body) // 2, len(body) - 2):  # nonce, ciphertext, tag
        flipped = body[:position] + ("A" if body[position] != "A" else "B") + body[position + 1:]
        assert "does not authenticate" in refusal(box.open, f"{head}:{flipped}", "seal/alice").reason
    assert "does not authenticate" in refusal(box.open, stored[:-4], "seal/alice").reason  # truncated tag
    assert "malformed" in refusal(box.open, f"{head}:!!notbase64!!", "seal/alice").reason
    assert "malformed" in refusal(box.open, f"{head}:AAAA", "seal/alice").reason
    assert "malformed" in refusal(box.open, "sealed1:nothex00:AAAA", "seal/alice").reason
    assert "unknown format" in refusal(box.open, "sealed2:" + stored.partition(":")[2], "seal/alice").reason


def test_a_value_copied_to_another_bots_row_does_not_open():
    secret, box = new_secret(), sealer()
    stored = box.seal(secret, "seal/alice")
    error = refusal(box.open, stored, "seal/bob")
    assert error.bot_id == "seal/bob" and "another bot" in error.reason


def test_an_unknown_key_id_and_a_wrong_key_are_refused():
    secret = new_secret()
    stored = sealer(OLD_KEY).seal(secret, "seal/alice")
    unknown = refusal(sealer(NEW_KEY).open, stored, "seal/alice")
    assert sealer(OLD_KEY).key_id in unknown.reason and "PLAY_SECRETS_KEY" in unknown.reason
    # The right key id with the wrong key behind it (a relabelled value, or a colliding id).
    relabelled = stored.replace(sealer(OLD_KEY).key_id, sealer(NEW_KEY).key_id)
    assert "does not authenticate" in refusal(sealer(NEW_KEY).open, relabelled, "seal/alice").reason
    # No key at all: a sealed value never reads as a secret.
    assert "not set" in refusal(open_stored, None, stored, "seal/alice").reason


def test_rotation_opens_values_sealed_under_the_previous_key():
    secret = new_secret()
    stored = sealer(OLD_KEY).seal(secret, "seal/alice")
    rotated = sealer(NEW_KEY, OLD_KEY)
    assert rotated.open(stored, "seal/alice") == secret
    assert not rotated.is_current(stored)
    resealed = rotated.seal(secret, "seal/alice")
    assert rotated.is_current(resealed) and sealer(NEW_KEY).open(resealed, "seal/alice") == secret
    refusal(sealer(OLD_KEY).open, resealed, "seal/alice")  # the old key alone does not open the new value
    assert OLD_KEY not in repr(rotated) and NEW_KEY not in repr(rotated)


# ----- settings --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [NEW_KEY[:-2], NEW_KEY + "00", "zz" + NEW_KEY[2:], "k" * 64, "0x" + NEW_KEY[2:]],
                         ids=["short", "long", "not-hex", "all-k", "0x-prefixed"])
def test_a_bad_key_stops_the_boot_naming_the_variable_not_the_value(bad):
    for name in ("PLAY_SECRETS_KEY", "PLAY_SECRETS_KEY_PREVIOUS"):
        environ = {"PLAY_SECRETS_KEY": OTHER_KEY, name: bad}
        with pytest.raises(ConfigError) as raised:
            Settings.from_environ(environ)
        assert any(problem.startswith(name + " must be 32 random bytes") for problem in raised.value.problems)
        assert bad not in str(raised.value) and OTHER_KEY not in str(raised.value)


def test_a_previous_key_alone_is_refused_and_good_keys_are_read():
    with pytest.raises(ConfigError) as raised:
        Settings.from_environ({"PLAY_SECRETS_KEY_PREVIOUS": OLD_KEY})
    assert raised.value.problems == ["PLAY_SECRETS_KEY_PREVIOUS needs PLAY_SECRETS_KEY (the new key it rotates to)"]
    settings = Settings.from_environ({"PLAY_SECRETS_KEY": NEW_KEY.upper(), "PLAY_SECRETS_KEY_PREVIOUS": f" {OLD_KEY} "})
    assert (settings.secrets_key, settings.secrets_key_previous) == (NEW_KEY, OLD_KEY)
    assert Sealer.from_settings(settings).key_id == sealer(NEW_KEY).key_id
    assert Sealer.from_settings(Settings()) is None


def test_the_keys_are_never_shown(monkeypatch, capsys):
    settings = Settings.from_environ({"PLAY_SECRETS_KEY": NEW_KEY, "PLAY_SECRETS_KEY_PREVIOUS": OLD_KEY})
    shown = dict(settings.effective())
    assert shown["PLAY_SECRETS_KEY"] == REDACTED and shown["PLAY_SECRETS_KEY_PREVIOUS"] == REDACTED
    assert dict(Settings().effective())["PLAY_SECRETS_KEY"] == "(unset)"
    text = repr(shown) + repr(settings) + str(settings)
    assert NEW_KEY not in text and OLD_KEY not in text
    # The start-up error of `playsite serve` for a bad key: the variable, never the value.
    monkeypatch.setenv("PLAY_SECRETS_KEY", NEW_KEY[:40])
    with pytest.raises(SystemExit) as exited:
        load_settings_or_exit()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "configuration error: PLAY_SECRETS_KEY must be 32 random bytes" in err and NEW_KEY[:40] not in err


# ----- the demo --------------------------------------------------------------------------------------


def test_the_demo_makes_its_key_once_private_and_passes_it(tmp_path):
    state = tmp_path / "demo"
    key = demo_secrets_key(state)
    never_logged.add(key)
    path = state / SECRETS_KEY_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}", key) and demo_secrets_key(state) == key
    settings = demo_settings({}, "postgresql://127.0.0.1/playsite", host=None, port=None, secrets_key=key)
    assert settings.secrets_key == key and Sealer.from_settings(settings) is not None
    mine = demo_settings({"PLAY_SECRETS_KEY": NEW_KEY}, "postgresql://127.0.0.1/p", host=None, port=None, secrets_key=key)
    assert mine.secrets_key == NEW_KEY  # the operator's environment wins, as for every demo default


# ----- PostgreSQL ------------------------------------------------------------------------------------


class GaveUp(Exception):
    """The caller's own transaction fails after `replace_in`."""


def column(url: str, bot_id: str) -> str | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT secret FROM webhook_registrations WHERE bot_id = %s", (bot_id,)).fetchone()
    return None if row is None else row[0]


@contextlib.asynccontextmanager
async def webhook_store(url: str, box: Sealer | None):
    """A webhook store on `url`, with the bots of BOTS registered (registrations reference them)."""
    database = Database(url, pool_size=2, statement_timeout_ms=5000)
    await database.open()
    try:
        bots = BotDirectory(PostgresBotStore(database))
        await bots.load()
        for bot_id in BOTS:
            if bots.get(bot_id) is None:
                await bots.register(*bot_id.split("/"))
        yield PostgresWebhookStore(database, box)
    finally:
        await database.close()


def settings_for(url: str, **keys) -> Settings:
    return Settings(
        database_url=url, persistence_enabled=True, webhook_push_enabled=True, webhook_allow_loopback=True,
        dice_seed_window_ms=0, **keys,
    )


def logged(caplog, text: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if text in record.getMessage()]


@pytest.mark.postgres
async def test_the_column_holds_no_plain_secret_and_the_store_reads_it_back(migrated_url):  # noqa: F811
    secret, other = new_secret(), new_secret()
    async with webhook_store(migrated_url, sealer()) as store:
        registration = await store.replace("seal/alice", "https://a.example/hook", secret, NOW)
        assert registration.secret == secret
        stored = column(migrated_url, "seal/alice")
        assert SEALED.fullmatch(stored) and secret not in stored
        current = await store.current("seal/alice")
        assert (current.secret, current.unusable, current.registration_id) == (secret, None, registration.registration_id)

        # replace_in runs inside the caller's transaction: a rollback leaves the old row, a commit writes.
        def rolled_back(conn):
            with conn.transaction():
                store.replace_in(conn, "seal/alice", "https://a.example/other", other, NOW)
                raise GaveUp()

        with pytest.raises(GaveUp):
            await store.database.run(rolled_back)
        assert column(migrated_url, "seal/alice") == stored

        def committed(conn):
            with conn.transaction():
                return store.replace_in(conn, "seal/alice", "https://a.example/other", other, NOW)

        made = await store.database.run(committed)
        assert made.secret == other and made.registration_id > registration.registration_id
        assert other not in column(migrated_url, "seal/alice")
        assert (await store.current("seal/alice")).secret == other

        # A sealed value copied into another bot's row does not open there.
        with psycopg.connect(migrated_url) as conn:
            conn.execute(
                "INSERT INTO webhook_registrations (bot_id, registration_id, url, secret, verified_at)"
                " VALUES ('seal/bob', nextval('webhook_registration_ids'), 'https://b.example/', %s, now())",
                (column(migrated_url, "seal/alice"),),
            )
        copied = await store.current("seal/bob")
        assert copied.unusable and copied.secret == ""
    async with webhook_store(migrated_url, None) as plain_store:  # no key: written plain, as before
        await plain_store.replace("seal/bob", "https://b.example/hook", secret, NOW)
        assert column(migrated_url, "seal/bob") == secret


@pytest.mark.postgres
async def test_a_registration_over_http_is_stored_sealed_and_read_back_as_the_plain_secret(migrated_url):  # noqa: F811
    async with booted(settings_for(migrated_url, secrets_key=NEW_KEY)) as services:
        client = test_client(services)
        _, token = await services.bots.register("seal", "carol")
        with WebhookReceiver() as receiver:
            answer = await client.post("/bot/webhook", json={"url": receiver.url()}, headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 201
            secret = (await answer.get_json())["secret"]
            never_logged.add(secret)
            stored = column(migrated_url, "seal/carol")
            assert SEALED.fullmatch(stored) and secret not in stored
            services.webhooks._cache.clear()  # read back from PostgreSQL, as after a restart
            assert (await services.webhooks.current("seal/carol")).secret == secret  # what deliveries sign with
            assert await services.webhooks.probe("seal/carol")
            assert len(receiver.of_kind("verification")) == 2  # the echoes are unsigned: nothing of the secret in them


@pytest.mark.postgres
async def test_the_boot_seals_plain_rows_and_reseals_rows_under_the_previous_key(migrated_url, caplog):  # noqa: F811
    plain, old = new_secret(), new_secret()
    async with webhook_store(migrated_url, None) as store:
        await store.replace("seal/alice", "https://a.example/hook", plain, NOW)
    async with webhook_store(migrated_url, sealer(OLD_KEY)) as store:
        await store.replace("seal/bob", "https://b.example/hook", old, NOW)
    before = {bot: column(migrated_url, bot) for bot in BOTS}
    assert before["seal/alice"] == plain and SEALED.fullmatch(before["seal/bob"]).group(1) == sealer(OLD_KEY).key_id

    async with booted(settings_for(migrated_url, secrets_key=NEW_KEY, secrets_key_previous=OLD_KEY)) as services:
        after = {bot: column(migrated_url, bot) for bot in BOTS}
        for bot in BOTS:
            assert SEALED.fullmatch(after[bot]).group(1) == sealer(NEW_KEY).key_id
        assert plain not in after["seal/alice"] and after["seal/bob"] != before["seal/bob"]
        assert (await services.webhooks.current("seal/alice")).secret == plain
        assert (await services.webhooks.current("seal/bob")).secret == old
    assert logged(caplog, "webhook secrets: sealed 1 stored in plain text, re-sealed 1 under the new key")
    assert logged(caplog, "PLAY_SECRETS_KEY_PREVIOUS can go")

    # The previous key is no longer needed: the next boot, with the new key alone, opens everything.
    caplog.clear()
    async with booted(settings_for(migrated_url, secrets_key=NEW_KEY)) as services:
        assert {bot: column(migrated_url, bot) for bot in BOTS} == after
        assert (await services.webhooks.current("seal/bob")).secret == old
    assert logged(caplog, "webhook secrets: sealed 0 stored in plain text, re-sealed 0 under the new key")


@pytest.mark.postgres
async def test_a_secret_that_cannot_be_opened_makes_its_registration_unusable_not_the_server(migrated_url, caplog):  # noqa: F811
    secret = new_secret()
    async with webhook_store(migrated_url, sealer(OLD_KEY)) as store:
        await store.replace("seal/alice", "https://a.example/hook", secret, NOW)
    stored = column(migrated_url, "seal/alice")

    async with booted(settings_for(migrated_url, secrets_key=NEW_KEY)) as services:  # the old key was lost
        assert column(migrated_url, "seal/alice") == stored  # left as it is
        warnings = logged(caplog, "cannot be opened with PLAY_SECRETS_KEY")
        assert warnings and "seal/alice" in warnings[0].getMessage() and warnings[0].levelno == logging.WARNING
        registration = await services.webhooks.current("seal/alice")
        assert registration.unusable and registration.secret == ""
        assert logged(caplog, "webhook registration of bot=seal/alice is unusable")
        attempt = await deliver_once(services.webhooks, registration, '{"type":"yourTurn"}', 5.0)
        assert attempt.outcome == "unreachable" and "register the webhook again" in attempt.reason
        assert logged(caplog, "webhook delivery not sent: bot=seal/alice")
        assert not await services.webhooks.probe("seal/alice")
        health = await test_client(services).get("/health")
        assert health.status_code == 200

    caplog.clear()
    async with booted(settings_for(migrated_url)) as services:  # no key at all
        assert logged(caplog, "webhook secrets are stored unencrypted in PostgreSQL: set PLAY_SECRETS_KEY")
        assert logged(caplog, "webhook secrets: 1 are stored sealed but PLAY_SECRETS_KEY is not set")
        assert (await services.webhooks.current("seal/alice")).unusable


@pytest.mark.postgres
async def test_without_a_key_secrets_stay_plain_and_the_boot_says_so(migrated_url, caplog):  # noqa: F811
    secret = new_secret()
    async with webhook_store(migrated_url, None) as store:
        await store.replace("seal/alice", "https://a.example/hook", secret, NOW)
    async with booted(settings_for(migrated_url)) as services:
        assert (await services.webhooks.current("seal/alice")).secret == secret
    warnings = logged(caplog, "webhook secrets are stored unencrypted")
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert column(migrated_url, "seal/alice") == secret
    caplog.clear()
    async with booted(Settings(database_url=migrated_url, persistence_enabled=True)):  # push off: no warning
        pass
    assert not logged(caplog, "webhook secrets are stored unencrypted")
