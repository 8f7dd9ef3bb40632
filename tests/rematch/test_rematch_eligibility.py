"""Games that can never have a rematch (service.md, Rematch opportunity rule 12: "Excluded:
showcase games, ladder games, bot games, unclaimed friend seats"), on a real PostgreSQL, booted
in-process. Each case breaks exactly one condition of an otherwise rematchable game (a showcase
or ladder origin between two people, a bot's seat in a game a person took through a seek, a
friend game whose second seat was never taken), so each rule is pinned on its own. Once the
game has ended, its seated guest reads `closed` (`expired`) with nothing allowed, a command is
410 `rematch_closed` with that state and records nothing, and spectators read `closed`.
(Duplicate principals and technical aborts are in test_rematch_routes.py.)"""

from __future__ import annotations

import uuid

import pytest

from playsite.wire import BLACK, WHITE
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.rematch import continuation, finished_game, get, post, server

pytestmark = pytest.mark.postgres


def guest() -> str:
    return f"guest:{uuid.uuid4()}"


async def showcase_game(services):
    return await finished_game(services, {WHITE: guest(), BLACK: guest()}, origin="showcase")


async def ladder_game(services):
    return await finished_game(services, {WHITE: guest(), BLACK: guest()}, origin="ladder")


async def game_with_a_bot(services):
    bot, _ = services.bots.mint_anonymous("rival")
    return await finished_game(services, {WHITE: guest(), BLACK: bot}, origin="seek")


async def friend_game_with_a_seat_never_taken(services):
    return await finished_game(services, {WHITE: guest(), BLACK: None}, resign_after_turns=False)


@pytest.mark.parametrize(
    "finished",
    [showcase_game, ladder_game, game_with_a_bot, friend_game_with_a_seat_never_taken],
    ids=["showcase", "ladder", "bot", "seat-never-taken"],
)
async def test_an_excluded_game_reads_closed_and_refuses_every_command_with_410(migrated_url, finished):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished(services)
        status, state, headers = await get(client, game_id, tokens[WHITE])
        assert status == 200 and headers["Cache-Control"] == "no-store"
        assert state["phase"] == "closed" and state["closedReason"] == "expired", state
        assert state["allowedActions"] == [] and state["myConsent"] is False
        assert "deadlineAt" not in state and "nextGameId" not in state
        for action in ("propose", "accept"):
            status, body, _ = await post(client, game_id, tokens[WHITE], action)
            assert status == 410 and body["error"] == {"code": "rematch_closed"}, body
            assert body["state"]["phase"] == "closed" and body["state"]["closedReason"] == "expired"
        public = await continuation(client, game_id)
        assert public.pop("serverNow") and public == {"sourceGameId": game_id, "phase": "closed"}
        assert sql(migrated_url, "SELECT count(*) FROM rematch_opportunities") == [(0,)], "nothing recorded"
        assert sql(migrated_url, "SELECT count(*) FROM rematch_requests") == [(0,)]


async def test_the_same_game_between_two_people_through_the_same_paths_is_rematchable(migrated_url):
    """The control of the cases above: a seek between two people, and a friend game both took,
    read `available` (so what closes each case above is its one difference)."""
    async with server(migrated_url) as (services, client):
        for game in (
            await finished_game(services, {WHITE: guest(), BLACK: guest()}, origin="seek"),
            await finished_game(services, {WHITE: guest(), BLACK: guest()}, resign_after_turns=False),
        ):
            game_id, tokens, _ = game
            status, state, _ = await get(client, game_id, tokens[WHITE])
            assert status == 200 and state["phase"] == "available" and state["allowedActions"] == ["propose"]
