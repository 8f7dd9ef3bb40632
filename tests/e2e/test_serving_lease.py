"""One serving process per database, with real `playsite serve` processes on a real PostgreSQL:
a second one refuses to boot, one started after the first was killed -9 takes over its
games, and a process whose lease another took stops serving."""

from __future__ import annotations

import time

import httpx
import psycopg
import pytest
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from playsite.store.lease import CHECK_EVERY_S, LEASE_KEY
from tests.support.client import create_game
from tests.support.database import migrated_url  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres


def env(url: str) -> dict[str, str]:
    return {"DATABASE_URL": url, "DICE_SEED_WINDOW_MS": "0"}


def test_a_second_server_on_the_same_database_refuses_to_boot(serve, migrated_url):
    first = serve(env(migrated_url))
    with pytest.raises(RuntimeError) as refused:
        serve(env(migrated_url))
    assert "exited with 3" in str(refused.value)
    assert "another playsite process is serving this database" in str(refused.value)
    # and names it, for the operator who must stop it (ops review s74)
    assert f"(it holds the serving lease: playsite serve {first.process.pid} from " in str(refused.value)
    assert "Traceback" not in str(refused.value)
    assert httpx.get(f"{first.base_url}/health", timeout=10).status_code == 200


def test_after_a_kill_9_the_next_server_takes_over_the_games(serve, migrated_url):
    first = serve({**env(migrated_url), "GAME_DURABILITY": "required"})
    game = httpx.post(f"{first.base_url}/games", json={}, timeout=10).json()
    first.kill()
    second = serve({**env(migrated_url), "GAME_DURABILITY": "required"})
    resumed = httpx.get(f"{second.base_url}/games/{game['gameId']}", timeout=10)
    assert resumed.status_code == 200 and resumed.json()["status"] == {"Active": {}}


def steal_the_lease(thief: psycopg.Connection) -> None:
    """Terminate the holder's lease connection and take the lock, before its next check."""
    [holder] = thief.execute(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
        " AND (classid::bigint << 32 | objid::bigint) = %s",
        (LEASE_KEY,),
    ).fetchone()
    thief.execute("SELECT pg_terminate_backend(%s)", (holder,))
    deadline = time.monotonic() + 10
    while not thief.execute("SELECT pg_try_advisory_lock(%s)", (LEASE_KEY,)).fetchone()[0]:
        assert time.monotonic() < deadline, "the terminated holder's lock was never released"
        time.sleep(0.05)


def test_a_server_whose_lease_was_taken_stops_serving(serve, migrated_url):
    server = serve(env(migrated_url))
    with psycopg.connect(migrated_url, autocommit=True) as thief:
        steal_the_lease(thief)
        exit_code = server.process.wait(timeout=CHECK_EVERY_S * 5)
    assert exit_code == 3
    assert "the serving lease was taken by another playsite process" in server.output()


def test_a_server_whose_lease_another_held_meanwhile_stops_serving(serve, migrated_url):
    """The lock is free again when the server retakes it, but another process held it (and
    moved the epoch): the games this server holds may be stale, so it stops."""
    server = serve(env(migrated_url))
    with psycopg.connect(migrated_url, autocommit=True) as thief:
        steal_the_lease(thief)
        thief.execute("UPDATE serving_epoch SET epoch = epoch + 1")
        thief.execute("SELECT pg_advisory_unlock(%s)", (LEASE_KEY,))
        exit_code = server.process.wait(timeout=CHECK_EVERY_S * 5)
    assert exit_code == 3
    assert "another playsite process held the serving lease meanwhile" in server.output()


async def test_a_server_that_loses_its_lease_tells_its_sockets_to_reconnect_before_it_exits(serve, migrated_url):
    """Ops review s74: a holder that lost the lease left the port without the 1013 close a stop
    gives, so its players saw a connection error instead of "reconnect"."""
    server = serve(env(migrated_url))
    game = await create_game(server.base_url)
    async with open_websocket_url(f"{server.ws_url}/games/{game['gameId']}/ws?mode=spectator") as spectator:
        with trio.fail_after(10):
            await spectator.get_message()  # the Snapshot: subscribed

        def steal() -> None:
            with psycopg.connect(migrated_url, autocommit=True) as thief:
                steal_the_lease(thief)
                server.process.wait(timeout=CHECK_EVERY_S * 5)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, steal)
            with trio.fail_after(CHECK_EVERY_S * 5):
                try:
                    while True:
                        await spectator.get_message()
                except ConnectionClosed as closed:
                    code, reason = closed.reason.code, closed.reason.reason or ""
    assert code == 1013 and "restarting" in reason, (code, reason)
    assert server.process.wait(timeout=10) == 3
