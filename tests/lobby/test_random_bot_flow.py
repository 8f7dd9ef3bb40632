"""The anchor's polling example bot, as a flow: the same HTTP calls, made the way a stdlib
client makes them, must take two anonymous bots from minting to the end of a game.

This is our own client (the CC0 example is not copied): urllib, JSON bodies only where the
example sends them, bodiless POSTs for accept, error bodies read as JSON like any other.
"""

from __future__ import annotations

import random
import secrets
import time

from tests.support.anchor_client import AnchorFlowClient
from tests.support.lobby_api import FAST_GAMES, assert_no_server_errors
from tests.support.turns import random_turn

GAME_DEADLINE_S = 180


def one_poll(client: AnchorFlowClient, me: dict, rng: random.Random) -> bool:
    """Play wherever it is my roll; True while I still sit in a live game."""
    games = client.call("GET", "/bot/games", me["token"])["games"]
    for game in games:
        if game["dicePending"] and game["activeSeat"] == game["seat"]:
            tree = client.call("GET", f"/games/{game['gameId']}/moves")["legalMoves"]
            turn = random_turn(tree, rng)
            if turn:
                client.call("POST", f"/bot/game/{game['gameId']}/move", me["token"], {"moves": turn})
    return bool(games)


def test_the_anchor_polling_flow_plays_a_game_to_its_end(serve):
    server = serve(FAST_GAMES)
    client = AnchorFlowClient(server.base_url)
    rng = random.Random(7)

    a = client.call("POST", "/bot/anon", query="?name=rustam")
    b = client.call("POST", "/bot/anon", query="?name=emilia")
    assert a["id"].startswith("bot:team:anon:rustam-") and b["id"].startswith("bot:team:anon:emilia-")

    challenge = client.call("POST", "/bot/challenge", a["token"], {"team": b["team"], "name": b["name"]})
    assert challenge["targetOnline"] is False and challenge["timeControl"] == {"Unlimited": {}}
    incoming = client.call("GET", "/bot/challenges", b["token"])["in"]
    assert [c["id"] for c in incoming] == [challenge["id"]]
    game = client.call("POST", f"/bot/challenge/{incoming[0]['id']}/accept", b["token"])
    game_id = game["gameId"]

    for me in (a, b):
        client.call("POST", f"/bot/game/{game_id}/seed", me["token"], {"seed": secrets.token_hex(16)})

    deadline = time.monotonic() + GAME_DEADLINE_S
    while one_poll(client, a, rng) | one_poll(client, b, rng):
        assert time.monotonic() < deadline, "the game did not end in time"
        time.sleep(0.01)

    final = client.call("GET", f"/games/{game_id}")
    if "status" in final:  # the room may already have left the registry
        assert "Ended" in final["status"]
        assert final["seed"] and final["commit"]
    assert_no_server_errors(server)
