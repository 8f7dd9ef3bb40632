"""service.md, showcase rule 5: a duplicate completion finds nothing to clear and reconciles to
the same phase; a duplicate deregistration is a no-op, so repeated completion cannot reopen
the table early. Real PostgreSQL, real clock, a real webhook endpoint as the featured bot.
"""

from __future__ import annotations

import uuid

import pytest

from playsite.rooms.admission import AdmissionRefused, Purpose
from playsite.showcase.table import TablePhase
from tests.support.database import migrated_url, sql  # noqa: F401 (a fixture)
from tests.support.showcase import end_game, receiver, table_at  # noqa: F401 (receiver: a fixture)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres


def table_row(url: str):
    return sql(url, "SELECT next_human_color, current_game::text FROM showcase_table")


async def test_a_repeated_completion_or_deregistration_changes_neither_phase_nor_pointer(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        registry, admission = t.services.registry, t.services.registry.admission
        bot = t.services.bots.get("studio/featured")
        _, first, _ = await t.claim(str(uuid.uuid4()))
        old = registry.get(first["gameId"])
        [old_seat] = [r for r in admission._held if r.purpose is Purpose.SHOWCASE]  # the first game's admission
        await end_game(t, first["gameId"])
        assert old_seat.released and first["gameId"] not in registry.live

        # Open, nothing current: the same completion again finds nothing to clear.
        verifications = len(receiver.of_kind("verification"))
        await t.table.on_completion(old)
        await wait_until(lambda: len(receiver.of_kind("verification")) > verifications,
                         "the woken loop to reconcile (it probes the bot)", 10)
        assert await t.table.reconcile() is TablePhase.OPEN  # after the loop's own (one lock)
        assert t.table.current_game is None and table_row(migrated_url) == [("Black", None)]

        # Live with a new game: the old game's completion and deregistration, again, change nothing.
        _, second, _ = await t.claim(str(uuid.uuid4()))
        assert second["seat"] == "Black"
        registry._deregister(old, old_seat)
        assert second["gameId"] in registry.live and first["gameId"] not in registry.live
        with pytest.raises(AdmissionRefused):  # the new game's showcase seat is still held
            admission.reserve(Purpose.SHOWCASE, [bot.principal])
        await t.table.on_completion(old)
        assert t.table.phase is TablePhase.LIVE and t.table.current_game == second["gameId"]
        _, status = await t.status()
        assert status["status"] == "live" and status["currentGame"] == second["gameId"]
        assert table_row(migrated_url) == [("White", second["gameId"])]
        status_code, lost, _ = await t.claim(str(uuid.uuid4()))
        assert status_code == 200 and lost["outcome"] == "spectating" and lost["reason"] == "already_claimed"
        assert lost["gameId"] == second["gameId"], "the table did not reopen early"

        # The new game's own completion, delivered twice, releases it once and reopens once.
        await end_game(t, second["gameId"])
        await t.table.on_completion(registry.finished[second["gameId"]])
        assert await t.table.reconcile() is TablePhase.OPEN
        assert table_row(migrated_url) == [("White", None)]
        _, third, _ = await t.claim(str(uuid.uuid4()))
        assert third["outcome"] == "claimed" and third["seat"] == "White"
