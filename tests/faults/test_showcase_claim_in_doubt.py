"""A winning showcase claim whose COMMIT answer never came (PostgreSQL stopped at the instant
the COMMIT is on the wire, by the protocol-aware proxy): the claim may stand, so the table
reads back before it tells the visitor anything. In-process table, real PostgreSQL, real
webhook endpoint as the featured bot; real clock (the database runs in worker threads)."""

from __future__ import annotations

import uuid

import pytest
import trio

from playsite.showcase.table import TablePhase
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.showcase import archived_as_technical_abort, receiver, table_at  # noqa: F401 (receiver: a fixture)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres


async def test_a_claim_whose_commit_answer_was_lost_is_read_back_and_the_visitor_gets_the_seat(
    migrated_url, freezer, receiver, caplog
):
    async with table_at(freezer.url(migrated_url), receiver, dice_seed_window_ms=2000) as t:
        freezer.arm("INSERT INTO showcase_claims")
        answers = []
        entropy = "the visitor's entropy, read back"

        async def claim():
            answers.append(await t.claim(str(uuid.uuid4()), clientEntropy=entropy))

        with caplog.at_level("WARNING", logger="playsite.showcase"):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(claim)
                await wait_until(freezer.stopped.is_set, "the claim's COMMIT to be held", 10)
                # the claim gives its COMMIT up after 3 s, then waits for it on the table's row
                await wait_until(lambda: "reading back" in caplog.text, "the claim to read back", 15)
                assert not answers, "nothing is answered while the outcome is unknown"
                freezer.thaw()
        [(status, body, _)] = answers
        assert status == 200 and body["outcome"] == "claimed", body
        assert "answer lost on the way" in caplog.text
        assert t.table.phase is TablePhase.LIVE and t.table.current_game == body["gameId"]
        assert sql(migrated_url, "SELECT current_game::text FROM showcase_table") == [(body["gameId"],)]
        room = t.services.registry.get(body["gameId"])
        assert room is not None and not room.ended, "the game the visitor won is on"
        seeds = room.game.fairness.client_seeds
        assert (seeds.white if body["seat"] == "White" else seeds.black) == entropy


async def test_a_claim_whose_outcome_stays_unknown_aborts_its_game_and_its_retry_learns_the_truth(
    migrated_url, freezer, receiver, caplog
):
    async with table_at(freezer.url(migrated_url), receiver) as t:
        freezer.arm("INSERT INTO showcase_claims")
        guest, key = str(uuid.uuid4()), str(uuid.uuid4())
        with caplog.at_level("WARNING", logger="playsite.showcase"):
            # held through the COMMIT's 3 s and the read-back's 3 s
            status, problem, headers = await t.claim(guest, key)
        assert status == 503 and problem["code"] == "showcase_unavailable" and int(headers["Retry-After"]) > 0
        assert "is unknown" in caplog.text
        [(game_id,)] = sql(migrated_url, "SELECT id::text FROM games WHERE origin = 'showcase'")
        freezer.thaw()  # the held claim lands after all, pointing at a game the table aborted
        await archived_as_technical_abort(migrated_url, game_id)
        await wait_until(lambda: sql(migrated_url, "SELECT count(*) FROM showcase_claims") == [(1,)], "the claim to land", 10)
        status, again, _ = await t.claim(guest, key)
        assert status == 200 and again == {"outcome": "spectating", "reason": "game_ended", "gameId": game_id,
                                           "spectatorWsUrl": f"/games/{game_id}/ws?mode=spectator"}
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen once the game is archived", 30)
        status, won, _ = await t.claim(str(uuid.uuid4()))
        assert status == 200 and won["outcome"] == "claimed" and won["gameId"] != game_id
