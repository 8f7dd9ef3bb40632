"""The serving lease is given back at once when its holder stops: the next process (or the
demo's real boot after its private first-run boot, in the same process) takes it at once.

Closing the lease's connection alone left the release to the server's backend as it exited,
after the client had gone on: CI (session 61) saw the demo's real boot refused with "another
playsite process is serving this database" by the lease its own first-run boot had just closed.
"""

from __future__ import annotations

import logging
import os

import psycopg
import pytest
import trio

from playsite.store import lease as lease_module
from playsite.store.database import SERVING_APPLICATION, connection_options
from playsite.store.lease import ServingLease
from tests.support.database import migrated_url  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres

ROUNDS = 300


async def test_a_closed_lease_is_free_for_the_next_holder_at_once(migrated_url):
    for round_ in range(ROUNDS):
        holder = ServingLease(migrated_url)
        await holder.take()
        assert holder.held
        await holder.close()
        assert not holder.held
        successor = ServingLease(migrated_url)
        assert successor._take(), f"round {round_}: the lease closed a moment ago was still held"
        await successor.close()


# ----- a predecessor still serving ---------------------------------------------------------------
# Ops review s74: a holder whose lease connection alone was terminated served on until its next
# check (up to 2 s), and committed a turn after its successor had resumed that game.


def another_serving_process(url: str) -> psycopg.Connection:
    """A connection as another serving process's pool holds one (another process id)."""
    return psycopg.connect(url, autocommit=True, application_name=f"{SERVING_APPLICATION} {os.getpid() + 100000}")


async def test_a_new_holder_waits_until_the_previous_serving_process_is_gone(migrated_url, caplog):
    other = another_serving_process(migrated_url)
    own = psycopg.connect(migrated_url, **connection_options())  # this process's own: not waited for
    holder = ServingLease(migrated_url)
    try:
        async with trio.open_nursery() as nursery:

            async def stop_later() -> None:
                await trio.sleep(1.0)
                other.close()  # it found the lease taken and exited

            nursery.start_soon(stop_later)
            began = trio.current_time()
            with caplog.at_level(logging.WARNING, logger="playsite.lease"):
                await holder.take()
            waited = trio.current_time() - began
    finally:
        own.close()
        await holder.close()
    assert waited >= 1.0, "nothing may be resumed while the predecessor is connected"
    assert "another serving process still has 1 connection(s)" in caplog.text
    assert "the previous serving process is gone; resuming" in caplog.text


async def test_a_predecessor_that_stays_connected_is_an_error_and_the_boot_goes_on(migrated_url, caplog, monkeypatch):
    monkeypatch.setattr(lease_module, "PREDECESSOR_WAIT_S", 0.5)
    other = another_serving_process(migrated_url)
    holder = ServingLease(migrated_url)
    try:
        with caplog.at_level(logging.WARNING, logger="playsite.lease"):
            began = trio.current_time()
            await holder.take()
            waited = trio.current_time() - began
        assert holder.held and waited >= 0.5
        assert "still connected after 0.5 s; resuming all the same" in caplog.text
    finally:
        other.close()
        await holder.close()


async def test_without_another_serving_process_the_lease_is_taken_without_waiting(migrated_url, caplog):
    holder = ServingLease(migrated_url)
    with caplog.at_level(logging.WARNING, logger="playsite.lease"):
        await holder.take()
    await holder.close()
    assert "serving lease" not in caplog.text
