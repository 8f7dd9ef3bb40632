"""What one rated game did to its players' ratings: the batch keeps each side's rating going into
the period and the game's share of its change (`glicko2.shares`), and GET /games/{id}/rating-change and
the players' own game lists say them. Real batch, real PostgreSQL."""

from __future__ import annotations

import math
import uuid

import pytest

from playsite.config import Settings
from playsite.ratings.batch import apply_pending
from playsite.ratings.glicko2 import Rating, rate, shares
from tests.support.app import booted, test_client
from tests.support.ratings import History, account, period_by_hand, query, store  # noqa: F401 (store: a fixture)

pytestmark = pytest.mark.postgres


def test_a_period_s_shares_add_up_to_its_change_and_follow_each_result():
    player = Rating(1500, 200)
    strong, weak = Rating(1800, 60), Rating(1200, 60)
    results = [(strong, 1.0), (weak, 1.0), (weak, 0.0), (Rating(1500, 350), 0.5)]
    after = rate(player, results)
    changes = shares(player, results, after)
    assert math.fsum(changes) == pytest.approx(after.rating - player.rating, abs=1e-9)
    beat_strong, beat_weak, lost_to_weak, drew = changes
    assert beat_strong > beat_weak > 0 > lost_to_weak  # a surprise moves it most
    assert abs(lost_to_weak) > abs(beat_weak)
    assert drew == pytest.approx(0, abs=2)  # an even opponent, a draw: about nothing
    assert shares(player, [], rate(player, [])) == []


async def test_each_game_keeps_its_sides_ratings_before_and_its_share_and_the_route_says_them(store, database_url):  # noqa: F811
    ann = account(database_url, "Ann")
    history = History(database_url)
    # ann plays three games in one period: her shares add up to her change in it
    period = [(ann.principal, "bot:red/ant", 1), ("bot:blue/cat", ann.principal, 1), (ann.principal, "bot:red/ant", 0)]
    ids = [history.add(None, None, result, principals=(white, black)) for white, black, result in period]
    guest_game = history.add(None, None, 1, principals=(ann.principal, f"guest:{uuid.uuid4()}"))  # never rated
    casual = history.add(None, None, 1, rated=False, principals=(ann.principal, "bot:red/ant"))
    assert await apply_pending(store.database) == 3
    after = period_by_hand({}, period)
    rows = query(database_url, "SELECT game_id, white_rating_before, white_rating_change, black_rating_before,"
                 " black_rating_change FROM game_results WHERE game_id = ANY(%s)", ([*ids, guest_game, casual],))
    kept = {row[0]: row[1:] for row in rows}
    assert kept[guest_game] == kept[casual] == (None, None, None, None)
    ann_changes = []
    for game_id, (white, _, _) in zip(ids, period, strict=True):
        white_before, white_change, black_before, black_change = kept[game_id]
        assert white_before == black_before == 1500.0  # everyone's first period
        ann_changes.append(white_change if white == ann.principal else black_change)
    assert math.fsum(ann_changes) == pytest.approx(after[ann.principal].rating - 1500, abs=1e-9)
    assert ann_changes[0] > 0 > ann_changes[1]  # won, then lost
    ant_changes = [kept[ids[0]][3], kept[ids[2]][3]]
    assert math.fsum(ant_changes) == pytest.approx(after["bot:red/ant"].rating - 1500, abs=1e-9)

    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        client = test_client(services)
        answer = await client.get(f"/games/{ids[1]}/rating-change")
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
        body = await answer.get_json()
        assert body["rated"] is True and body["applied"] is True
        assert body["white"] == {"before": 1500.0, "change": pytest.approx(kept[ids[1]][1]),
                                 "after": pytest.approx(after["bot:blue/cat"].rating), "provisional": True}
        assert body["black"]["change"] == pytest.approx(ann_changes[1])
        assert body["black"]["after"] == pytest.approx(after[ann.principal].rating)  # the period's, all three games
        # a guest's side is never rated, a casual game nobody's
        assert await (await client.get(f"/games/{guest_game}/rating-change")).get_json() == {
            "rated": True, "applied": False, "white": None, "black": None}
        assert await (await client.get(f"/games/{casual}/rating-change")).get_json() == {
            "rated": False, "applied": False, "white": None, "black": None}
        # her own games say what each did to her rating, newest first
        profile = await (await client.get("/players/ann")).get_json()
        listed = {game["gameId"]: game for game in profile["recent"]}
        for game_id, change in zip(ids, ann_changes, strict=True):
            assert listed[str(game_id)]["ratingBefore"] == 1500.0
            assert listed[str(game_id)]["ratingChange"] == pytest.approx(change)
        assert "ratingChange" not in listed[str(casual)] and "ratingChange" not in listed[str(guest_game)]
        for path in (f"/games/{uuid.uuid4()}/rating-change", "/games/not-a-game/rating-change"):
            refused = await client.get(path)
            assert refused.status_code == 404, path
            assert (await refused.get_json())["error"]["code"] == "game_not_found"


async def test_a_game_applied_before_shares_were_kept_says_the_ratings_after_its_period(store, database_url):  # noqa: F811
    history = History(database_url)
    game_id = history.add("red/ant", "blue/cat", 1)
    assert await apply_pending(store.database) == 1
    query(database_url, "UPDATE game_results SET white_rating_before = NULL, white_rating_change = NULL,"
          " black_rating_before = NULL, black_rating_change = NULL RETURNING game_id")
    after = period_by_hand({}, [("red/ant", "blue/cat", 1)])
    settings = Settings(database_url=database_url, persistence_enabled=True)
    async with booted(settings) as services:
        body = await (await test_client(services).get(f"/games/{game_id}/rating-change")).get_json()
    assert body == {"rated": True, "applied": True,
                    "white": {"after": pytest.approx(after["red/ant"].rating), "provisional": True},
                    "black": {"after": pytest.approx(after["blue/cat"].rating), "provisional": True}}


async def test_without_persistence_the_route_says_so():
    async with booted(Settings()) as services:
        refused = await test_client(services).get(f"/games/{uuid.uuid4()}/rating-change")
    assert refused.status_code == 404
    assert (await refused.get_json())["error"]["code"] == "persistence_required"
