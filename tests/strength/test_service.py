"""The served report: computed from the store's rated results, kept, recomputed when due;
GET /strength and GET /bots/{team}/{name}/strength on the memory store and on PostgreSQL."""

from __future__ import annotations

import contextlib
import hashlib

import attrs
import psycopg
import pytest
import trio

from playsite.bots.directory import BotDirectory
from playsite.bots.store import bot_store_for
from playsite.config import Settings
from playsite.store.database import Database
from playsite.store.memory import MemoryStore
from playsite.store.postgres import PostgresStore
from playsite.strength.service import MAX_AGE_S, StrengthReports
from playsite.strength.stats import SprtVerdict
from playsite.wire import Unlimited
from tests.support.app import booted, test_client
from tests.support.database import migrated_url  # noqa: F401 (the fixture)
from tests.support.errors import assert_error
from tests.support.strength import finish, play_results
from tests.support.waiting import wait_until


async def get(client, path: str) -> tuple[int, dict]:
    response = await client.get(path)
    assert response.content_type.startswith("application/json")
    return response.status_code, await response.get_json()


@contextlib.asynccontextmanager
async def running(store=None):
    async with booted(Settings(dice_seed_window_ms=0), store=store) as services:
        yield services, test_client(services)


# ----- the service -----------------------------------------------------------------------------


async def directory() -> tuple[BotDirectory, dict]:
    bots = BotDirectory(bot_store_for(None))  # kept in memory
    accounts = {}
    for bot_id in ("acme/alice", "acme/bob", "zen/carol"):
        team, name = bot_id.split("/")
        accounts[bot_id] = (await bots.register(team, name))[0]
    return bots, accounts


@attrs.frozen
class RatedRoom:
    """What a completion hook is handed of a room: its setup."""

    @attrs.frozen
    class Setup:
        rated: bool

    setup: Setup


async def test_a_report_is_due_at_first_after_a_rated_ending_and_after_max_age(autojump_clock):
    store = MemoryStore()
    bots, _ = await directory()
    reports = StrengthReports(store, None, bots)
    assert reports.due and reports.report is None
    await reports.refresh()
    assert not reports.due
    await reports.game_ended(RatedRoom(RatedRoom.Setup(rated=False)))
    assert not reports.due, "a casual game does not change the report"
    await reports.game_ended(RatedRoom(RatedRoom.Setup(rated=True)))
    assert reports.due
    assert await reports.refresh_if_due() and not reports.due
    assert not await reports.refresh_if_due()
    await trio.sleep(MAX_AGE_S - 1)
    assert not reports.due
    await trio.sleep(1)
    assert reports.due
    assert reports.computations == 2


async def test_the_report_counts_the_rated_bot_games_and_excludes_the_rest(autojump_clock):
    store = MemoryStore()
    bots, _ = await directory()
    await play_results(store, "bot:acme/alice", "bot:acme/bob", wins=40, draws=2, losses=3)
    await play_results(store, "bot:acme/bob", "bot:zen/carol", wins=5, losses=5)
    await finish(store, "bot:acme/alice", "user:1b7c0a3e-3c63-4b6c-9d7e-0a4b0f3d2c11", 1)  # a person
    await finish(store, "bot:acme/alice", "bot:acme/bob", None)  # aborted
    await finish(store, "bot:acme/alice", "bot:acme/alice", 1)  # self-play
    await finish(store, "bot:acme/alice", "bot:zen/carol", 1, rated=False)  # casual: not read at all
    report = await StrengthReports(store, None, bots).refresh()
    assert (report.singles, report.excluded_rows, report.complete_pairs) == (55, 3, 0)
    first = report.pairwise[0]
    assert (first.perspective, first.opponent, first.singles.counts) == ("acme alice", "acme bob", (3, 2, 40))
    assert first.result.verdict == SprtVerdict.ACCEPT_H1
    assert [row.player for row in report.ranking][0] == "acme alice"


async def test_a_rated_game_that_ends_marks_the_report_stale_through_the_registry(autojump_clock):
    async with running() as (services, client):
        alice, _ = await services.bots.register("acme", "alice")
        bob, bob_token = await services.bots.register("acme", "bob")
        await services.strength.refresh()
        assert not services.strength.due
        game = await services.bot_games.start(white=alice, black=bob, time_control=Unlimited(), rated=True, origin="ladder")
        response = await client.post(
            f"/bot/game/{game.room.game_id}/resign", headers={"Authorization": f"Bearer {bob_token}"}
        )
        assert response.status_code == 202
        await trio.testing.wait_all_tasks_blocked()
        while game.room.game_id in services.registry.live:  # the terminal write and the hooks
            await trio.sleep(1)
        assert services.strength.due
        report = await services.strength.refresh()
        assert report.excluded_rows == 1, "resigned before anyone played: an aborted, rated game"


# ----- the routes ------------------------------------------------------------------------------


async def test_both_reads_answer_503_until_the_first_report(autojump_clock):
    async with running() as (services, _client):
        await services.bots.register("acme", "alice")
        fresh = attrs.evolve(services, strength=StrengthReports(services.store, services.database, services.bots))
        client = test_client(fresh)
        for path in ("/strength", "/bots/acme/alice/strength"):
            response = await client.get(path)
            assert response.headers["Retry-After"] == "5"
            assert_error((response.status_code, await response.get_json()), 503, "temporarily_unavailable")


async def test_an_unknown_bot_is_404_bot_not_found(autojump_clock):
    async with running() as (services, client):
        services.bots.mint_anonymous("ghost")
        await services.strength.refresh()
        assert_error(await get(client, "/bots/acme/nobody/strength"), 404, "bot_not_found")
        assert_error(await get(client, "/bots/NOT%20A%20SLUG/x/strength"), 404, "bot_not_found")
        anonymous = services.bots.registered()  # none: the anonymous bot is not registered
        assert anonymous == []


async def test_the_report_and_a_bots_slice_are_served_as_last_computed(autojump_clock):
    async with running() as (services, client):
        await services.bots.register("acme", "alice")
        await services.bots.register("acme", "bob")
        await services.bots.register("zen", "carol")
        await play_results(services.store, "bot:acme/alice", "bot:acme/bob", wins=12, losses=4)
        await play_results(services.store, "bot:zen/carol", "bot:acme/bob", wins=3, draws=1)
        await services.strength.refresh()
        status, report = await get(client, "/strength")
        assert status == 200
        assert [(m["perspective"], m["opponent"]) for m in report["pairwise"]] == [
            ("acme alice", "acme bob"),
            ("acme bob", "zen carol"),
        ]
        assert report["pairwise"][1]["singles"] == {"losses": 3, "draws": 1, "wins": 0}
        assert (report["singles"], report["completePairs"], report["excludedRows"]) == (20, 0, 0)
        assert sum(row["elo"] for row in report["ranking"]) == pytest.approx(0, abs=1e-6)
        await play_results(services.store, "bot:zen/carol", "bot:acme/alice", wins=1)
        assert (await get(client, "/strength"))[1] == report, "a request never computes"
        status, bob = await get(client, "/bots/acme/bob/strength")
        assert status == 200
        assert bob == {"team": "acme", "name": "bob", "pairwise": report["pairwise"]}
        status, carol = await get(client, "/bots/zen/carol/strength")
        assert carol["pairwise"] == report["pairwise"][1:]


async def test_boot_computes_the_first_report_in_the_background():
    async with running() as (services, client):
        await wait_until(lambda: services.strength.body is not None, "the first strength report", 10)
        status, body = await get(client, "/strength")
        assert status == 200 and body["pairwise"] == [] and body["ranking"] == []
        assert services.strength.game_ended in services.registry.completion_hooks


# ----- PostgreSQL --------------------------------------------------------------------------------


def insert_bot(conn, bot_id: str) -> None:
    team, name = bot_id.split("/")
    conn.execute(
        "INSERT INTO bots (id, team, name, token_hash) VALUES (%s, %s, %s, %s)",
        (bot_id, team, name, hashlib.sha256(bot_id.encode()).digest()),
    )


@pytest.mark.postgres
async def test_postgres_groups_the_results_and_answers_the_same_report_as_memory(migrated_url):  # noqa: F811
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        for bot_id in ("acme/alice", "acme/bob"):
            insert_bot(conn, bot_id)
    database = Database(migrated_url, pool_size=2, statement_timeout_ms=5000)
    await database.open()
    try:
        store = PostgresStore(database, save_timeout_s=5)
        memory = MemoryStore()
        for target in (store, memory):
            await play_results(target, "bot:acme/alice", "bot:acme/bob", wins=9, draws=3, losses=2)
            await finish(target, "bot:acme/alice", "guest:6a3d7c0e-5f5e-4a57-8a39-1f0f7e9f7d10", 1)
            await finish(target, "bot:acme/bob", "bot:anon/x-1", -1)
            await finish(target, "bot:acme/bob", "bot:acme/alice", None)
        async with running(store) as (services, client):
            await services.strength.refresh()
            status, body = await get(client, "/strength")
        bots = BotDirectory(bot_store_for(None))
        await bots.register("acme", "alice")
        await bots.register("acme", "bob")
        from_memory = await StrengthReports(memory, None, bots).refresh()
    finally:
        await database.close()
    assert status == 200
    assert (body["singles"], body["excludedRows"]) == (14, 3)
    assert body["pairwise"][0]["singles"] == {"losses": 2, "draws": 3, "wins": 9}
    assert body["pairwise"][0]["result"]["llr"] == pytest.approx(from_memory.pairwise[0].result.llr)
    assert [row["elo"] for row in body["ranking"]] == pytest.approx([row.elo for row in from_memory.ranking])
