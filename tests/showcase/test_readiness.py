"""The showcase readiness probe and loop (service.md, showcase rules 2 and 3; Limits: readiness
loop period 15 s, verification echo timeout 5 s): webhook push off keeps the table closed
though the bot is registered, an echo answered later than 5 s counts as no answer, and the
loop reconciles every 15 s while the table is not live, never while it is.

The probe's tests run on a real PostgreSQL with a real webhook endpoint (real clock); the
loop's period is driven on trio's MockClock over the memory store, where a reconciliation
touches neither a thread nor a socket.
"""

from __future__ import annotations

import uuid

import pytest
import trio
import trio.testing

from playsite.config import Settings
from playsite.showcase.table import PROBE_TIMEOUT_S, READINESS_PERIOD_S, TablePhase
from tests.support.app import booted
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.receiver import echo
from tests.support.showcase import FEATURED, receiver, table_at  # noqa: F401 (receiver: a fixture)


def test_the_contracts_timings():
    assert READINESS_PERIOD_S == 15
    assert PROBE_TIMEOUT_S == 5


@pytest.mark.postgres
async def test_with_webhook_push_off_a_registered_bot_keeps_the_table_closed(migrated_url, receiver):
    async with table_at(migrated_url, receiver):
        pass  # the featured bot registered, its webhook too, while push was on
    async with table_at(migrated_url, receiver, webhook_push_enabled=False) as t:
        assert t.services.bots.get(FEATURED).registered
        assert await t.services.webhooks.current(FEATURED) is not None
        probes = len(receiver.of_kind("verification"))
        assert await t.table.reconcile() is TablePhase.UNAVAILABLE
        _, body = await t.status()
        assert body["status"] == "unavailable" and body["reason"] == "bot_unavailable"
        status, problem, headers = await t.claim(str(uuid.uuid4()))
        assert status == 503 and problem["code"] == "showcase_unavailable" and int(headers["Retry-After"]) > 0
        assert len(receiver.of_kind("verification")) == probes, "push off: the bot is not even asked"
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN, "the same bot, push on again: open"


@pytest.mark.postgres
async def test_an_echo_answered_after_5_s_is_no_answer(migrated_url, receiver):
    late = PROBE_TIMEOUT_S + 3  # a margin for a loaded machine between giving up and the answer
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN
        receiver.script = lambda seen: echo(seen, delay_s=late) if seen.kind == "verification" else None
        began = trio.current_time()
        assert await t.table.reconcile() is TablePhase.UNAVAILABLE, "an answer after 8 s was not waited for"
        took = trio.current_time() - began
        assert PROBE_TIMEOUT_S <= took < late, f"gave up after {took:.2f} s"
        assert t.table.reason == "bot_unavailable"
        receiver.script = lambda seen: None
        assert await t.table.reconcile() is TablePhase.OPEN


async def test_the_loop_reconciles_every_15_s_while_not_live_and_never_while_live(autojump_clock):
    """Over the memory store every reconciliation closes the table (maintenance) at once: a
    phase set by hand shows when the loop last looked."""
    settings = Settings(showcase_enabled=True, showcase_bot=FEATURED, webhook_push_enabled=True)
    async with booted(settings) as services:
        table = services.showcase
        assert table.phase is TablePhase.UNAVAILABLE

        async def reconciled_after(phase: TablePhase, seconds: float) -> bool:
            """Set `phase`; has the loop closed the table again `seconds` later?"""
            table.phase = phase
            await trio.sleep(seconds)
            await trio.testing.wait_all_tasks_blocked()
            return table.phase is TablePhase.UNAVAILABLE

        # A completion wakes the loop at once; its next look is one period after that.
        table._wake.set()
        await trio.testing.wait_all_tasks_blocked()
        assert not await reconciled_after(TablePhase.OPEN, READINESS_PERIOD_S - 0.01)  # to 14.99
        assert await reconciled_after(TablePhase.OPEN, 0.02)  # to 15.01
        assert not await reconciled_after(TablePhase.OPEN, READINESS_PERIOD_S - 0.02)  # to 29.99
        assert await reconciled_after(TablePhase.OPEN, 0.02)  # to 30.01
        # Live: the period running ends without a look, and no other follows.
        assert not await reconciled_after(TablePhase.LIVE, 1000 * READINESS_PERIOD_S)
        assert table.phase is TablePhase.LIVE
