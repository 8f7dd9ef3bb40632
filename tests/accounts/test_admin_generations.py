"""Admin authority (service.md, "Admin authority"; Limits: admin heartbeat every 5 s, live for
20 s): with zero live generations, because this instance's beats fail and its row has aged
past 20 s, every `/admin` request is 403 `admin_required` and nothing is scrubbed; the next
beat that reaches the database, one period after the failed one, gives the authority back,
and only then does the sole generation scrub. Real PostgreSQL, real clock.
"""

from __future__ import annotations

import logging
import time
import uuid

import pytest
import trio

from playsite.accounts.admins import HEARTBEAT_S, LIVE_S, live_generations
from tests.support.database import allow_writes, in_transaction, migrated_url, refuse_writes, sql  # noqa: F401 (a fixture)
from tests.support.waiting import wait_until
from tests.support.webhook_management import browser, make_account, managed_server, new_bot_name, stage

pytestmark = pytest.mark.postgres


def test_a_generation_is_live_for_20_s_after_its_last_beat_on_the_database_clock(migrated_url):
    assert (HEARTBEAT_S, LIVE_S) == (5, 20)
    sql(migrated_url, "INSERT INTO admin_generations (instance_id, digest, beat_at) VALUES"
                      " (%s, 'beat 19.5 s ago', clock_timestamp() - interval '19.5 seconds'),"
                      " (%s, 'beat 20.5 s ago', clock_timestamp() - interval '20.5 seconds')",
        (uuid.uuid4(), uuid.uuid4()))
    assert in_transaction(migrated_url, live_generations) == ["beat 19.5 s ago"]


def failed_beats(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "playsite.accounts" and r.getMessage().startswith("admin heartbeat failed")]


def setup_state(url: str, bot: str) -> str:
    [(state,)] = sql(url, "SELECT state FROM webhook_setups WHERE bot_id = %s", (bot,))
    return state


async def test_zero_live_generations_refuse_every_admin_request_and_scrub_nothing(migrated_url, caplog):
    caplog.set_level(logging.WARNING, logger="playsite.accounts")
    root = make_account(migrated_url, "root")
    async with managed_server(migrated_url, admins=(str(root.id),)) as (services, client, _):
        admin = browser(client, root)
        name = new_bot_name()
        await services.bots.register("managed", name)
        bot = f"managed/{name}"
        await stage(admin, bot, "https://hook.example/x", prefix="/admin")
        assert (await admin.call("GET", "/admin/bots"))[0] == 200

        # This instance's beats fail from now on (the database refuses them), and its row has
        # aged past the lifetime: no generation is live. The staged setup is made an earlier
        # list's, which the sole generation, and only it, scrubs.
        await trio.to_thread.run_sync(refuse_writes, migrated_url, "admin_generations", "INSERT")
        sql(migrated_url, "UPDATE admin_generations SET beat_at = clock_timestamp() - make_interval(secs => %s)",
            (LIVE_S + 1,))
        sql(migrated_url, "UPDATE webhook_setups SET admin_generation = 'an earlier list' WHERE bot_id = %s", (bot,))
        assert in_transaction(migrated_url, live_generations) == []

        for method, path in (("GET", "/admin/bots"), ("GET", f"/admin/bots/{bot}/webhook")):
            status, body, headers = await admin.call(method, path)
            assert status == 403 and body["code"] == "admin_required", (path, body)
            assert headers["Retry-After"] == str(LIVE_S)
        failed = await wait_until(lambda: failed_beats(caplog), "a beat to fail", HEARTBEAT_S + 5)
        assert setup_state(migrated_url, bot) == "pending", "nothing is scrubbed without a live generation"
        assert (await admin.call("GET", "/admin/bots"))[0] == 403

        # The database takes beats again: the next one, a period after the failed one, restores
        # the authority, and the now sole generation scrubs the earlier list's setup.
        await trio.to_thread.run_sync(allow_writes, migrated_url, "admin_generations")

        await wait_until(lambda: in_transaction(migrated_url, live_generations), "the next beat to reach the database",
                         HEARTBEAT_S + 5, interval=0.05)
        gap = time.time() - failed[0].created  # a log record's time is the wall clock's
        # (wide on both sides: the failed beat's record is written after its statement failed, late
        # on a loaded machine, and the next beat is seen by polling; a retry at once, or none for
        # two periods, still falls outside)
        assert HEARTBEAT_S - 2 <= gap <= HEARTBEAT_S + 4, f"the next beat came {gap:.2f} s after the failed one"
        assert (await admin.call("GET", "/admin/bots"))[0] == 200, "the authority is back"
        await wait_until(lambda: setup_state(migrated_url, bot) == "scrubbed", "the sole generation to scrub", 10)
