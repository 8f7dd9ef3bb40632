"""The winning claim's transaction is fenced on the colour the human was seated on and on no
game being current (service.md, "Winning claim sequence" step 2): a table row that moved on
between the room's durable creation and the claim's commit refuses the claim. The claimant
gets 503, the room just made is aborted (a technical abort, archived as such), and the table
never points at two games.

The seam is the database's own: a trigger on the creation snapshot's insert into `games`
changes the `showcase_table` row in the creation's transaction, as another writer would
between the two transactions. Real PostgreSQL, real clock.
"""

from __future__ import annotations

import logging
import uuid

import pytest
import trio

from playsite.showcase.table import TablePhase
from tests.support.database import migrated_url, sql  # noqa: F401 (a fixture)
from tests.support.showcase import archived_as_technical_abort, receiver, table_at  # noqa: F401 (receiver: a fixture)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres


def move_the_table_on_creation(url: str, change: str) -> None:
    """Run `change` (SQL) in the transaction that writes a showcase game's creation snapshot."""
    sql(url, f"CREATE FUNCTION move_the_table() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {change}; RETURN NULL; END $$")
    sql(url, "CREATE TRIGGER move_the_table AFTER INSERT ON games FOR EACH ROW WHEN (NEW.origin = 'showcase')"
             " EXECUTE FUNCTION move_the_table()")


async def stop_moving_the_table(url: str) -> None:
    """In a thread: DROP TRIGGER waits for the game writes in flight, which the event loop sends."""
    def drop() -> None:
        sql(url, "DROP TRIGGER move_the_table ON games")
        sql(url, "DROP FUNCTION move_the_table()")

    await trio.to_thread.run_sync(drop)


def ended_showcase_game(url: str) -> str:
    """A showcase game already over and archived: a pointer at it is released by reconciliation."""
    game_id = str(uuid.uuid4())
    sql(url, "INSERT INTO games (id, origin, durability, status, version, snapshot)"
             " VALUES (%s, 'showcase', 'required', 'ended', 3, '{}')", (game_id,))
    sql(url, "INSERT INTO game_archive (game_id, finished_at, record) VALUES (%s, now(), '{}')", (game_id,))
    return game_id


@pytest.mark.parametrize("moved", ["the colour advanced", "another game current"])
async def test_a_table_that_moved_on_before_the_claim_commits_refuses_it_and_aborts_the_new_game(
    migrated_url, receiver, caplog, moved
):
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN and t.table.next_color == "White"
        if moved == "the colour advanced":
            other = None
            move_the_table_on_creation(migrated_url, "UPDATE showcase_table SET next_human_color = 'Black'")
        else:
            other = ended_showcase_game(migrated_url)  # made after the boot's reconciliation
            move_the_table_on_creation(migrated_url, f"UPDATE showcase_table SET current_game = '{other}'")
        with caplog.at_level(logging.INFO, logger="playsite.showcase"):
            status, problem, headers = await t.claim(str(uuid.uuid4()))
        assert status == 503 and problem["code"] == "showcase_unavailable" and int(headers["Retry-After"]) > 0
        assert "seatToken" not in problem
        assert "the table is no longer open on White" in caplog.text, "the fence refused it, not an outage"
        assert "unavailable (maintenance): a claim could not be committed" in caplog.text, "the table failed closed"
        await stop_moving_the_table(migrated_url)

        [(game_id,)] = sql(migrated_url, "SELECT id::text FROM games WHERE origin = 'showcase' AND id IS DISTINCT FROM %s",
                           (other,))
        assert sql(migrated_url, "SELECT count(*) FROM showcase_claims") == [(0,)], "no claim was recorded"
        [(pointer,)] = sql(migrated_url, "SELECT current_game::text FROM showcase_table")
        assert pointer != game_id and t.table.current_game != game_id, "the refused game never became current"
        await archived_as_technical_abort(migrated_url, game_id)
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'showcase' AND status = 'active'") == [(0,)]
        # the room leaves the registry once its task ends, just after its archive commits (CI s70:
        # read in between, it was still there)
        await wait_until(lambda: game_id not in t.services.registry.live, "the aborted room to leave the registry", 10)

        # Reconciled: the other game's pointer released, the colour past the aborted game's
        # durable creation (White), and the table open again for one game at a time.
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen", 20)
        status, won, _ = await t.claim(str(uuid.uuid4()))
        assert status == 200 and won["outcome"] == "claimed" and won["seat"] == "Black"
        assert sql(migrated_url, "SELECT next_human_color, current_game::text FROM showcase_table") == [
            ("White", won["gameId"])
        ]
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'showcase' AND status = 'active'") == [(1,)]
