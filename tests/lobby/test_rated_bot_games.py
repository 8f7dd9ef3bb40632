"""A signed-in person plays a catalog bot rated (`POST /lobby/play-bot {"rated": true}`): people
and bots are rated in one pool, so the game moves both ratings. A guest may not ask (401
`not_signed_in`); without the flag the game is casual. Over real sockets: a `playsite serve` on
PostgreSQL with its house bots, a real OpenID Connect provider, httpx and a socket as the browser."""

from __future__ import annotations

import random
import uuid

import httpx
import pytest
from trio_websocket import open_websocket_url

from playsite.wire import GameEnded, Resign, SubmitTurn, TurnPlayed, encode_command
from tests.support.client import Player
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.ratings import one_period
from tests.support.documented import Documented
from tests.support.errors import assert_error
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.sign_in import site_with_house_bots  # noqa: F401 (fixture: a real server, provider and database)
from tests.support.turns import king_sparing_turn
from tests.support.waiting import deadline, wait_until

pytestmark = pytest.mark.postgres
CLOCK = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}
HOUSE = {"team": "house", "name": "random", "timeControl": CLOCK}


async def test_a_guest_may_not_ask_for_a_rated_game_and_a_casual_one_stays_casual(site_with_house_bots):  # noqa: F811
    site, documented = site_with_house_bots, Documented()
    async with site.client() as http:
        refused = await http.post("/lobby/play-bot", json={**HOUSE, "rated": True, "guestId": str(uuid.uuid4())})
        assert_error(refused, 401, "not_signed_in")
        documented.check_http("post", "/lobby/play-bot", refused)
        assert_error(await http.post("/lobby/play-bot", json={**HOUSE, "rated": "yes", "guestId": str(uuid.uuid4())}), 400, "invalid_request")
        casual = await http.post("/lobby/play-bot", json={**HOUSE, "rated": None, "guestId": str(uuid.uuid4())})
        assert casual.status_code == 201, casual.text
        assert (await http.get(f"/games/{casual.json()['gameId']}")).json()["rated"] is False


async def test_a_signed_in_person_plays_a_bot_rated_and_both_ratings_move(site_with_house_bots):  # noqa: F811
    site, documented = site_with_house_bots, Documented()
    carol = await site.sign_in("carol")
    played = await site.write("POST", "/lobby/play-bot", carol, json={**HOUSE, "rated": True, "preferredColor": "White"})
    assert played.status_code == 201, played.text
    documented.check_http("post", "/lobby/play-bot", played)
    match = played.json()
    async with site.client() as http:
        assert (await http.get(f"/games/{match['gameId']}")).json()["rated"] is True
    player = Player(site.server.ws_url, {"gameId": match["gameId"], "seats": {"white": {"wsUrl": match["wsUrl"]}}}, "White")
    player.url = site.server.ws_url + match["wsUrl"]  # no guest=: the session says who
    headers = [("Origin", site.origin), ("Cookie", f"access_token={carol}")]
    rng, movers = random.Random(4), set()
    async with open_websocket_url(player.url, extra_headers=headers) as ws:
        player.ws = ws
        with deadline(60, "both sides have played a turn"):
            while movers != {"White", "Black"}:  # a resignation before both have played is an abort
                event = await player.receive()
                if isinstance(event, TurnPlayed) and event.moves:  # a passed roll is no turn played
                    movers.add(str(event.seat))
                if isinstance(event, GameEnded):
                    break  # a king taken: decided all the same
                if player.tree:
                    async with httpx.AsyncClient() as http:
                        dfen = (await http.get(player.moves_url, timeout=10)).json()["dfen"]
                    turn = king_sparing_turn(player.tree, dfen, "White", rng)
                    player.tree = None
                    await ws.send_message(encode_command(SubmitTurn(tuple(turn))))
            else:
                await ws.send_message(encode_command(Resign()))
                await player.until(lambda e: isinstance(e, GameEnded))

    async with site.client() as http:
        async def archived():
            return (await http.get(f"/games/{match['gameId']}/history")).status_code == 200

        await wait_until(archived, "the game's result is written", timeout=20)
    assert await one_period(site.database_url) == 1
    async with site.client() as http:
        person = (await http.get("/players/carol")).json()
        house = (await http.get("/bots/house/random")).json()
    assert person["games"] == 1 and person["rating"] != 1500, person
    assert house["games"] == 1 and house["rating"] != 1500, house
    assert (person["rating"] > 1500) == (house["rating"] < 1500), "one's gain is the other's loss"
