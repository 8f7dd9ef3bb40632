"""HTTP routes of human games against a real `playsite serve`: creation, reads, every error.

Error paths share one server (they create nothing); tests that count or list games start
their own, so other tests' games never change what they see.
"""

from __future__ import annotations

import json
import random
import re
import uuid

import httpx
import pytest
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from playsite.rules import count_turns, legal_tree, parse_dfen
from playsite.wire import DiceRolled, GameEnded, Resign, Snapshot, SubmitTurn, decode_frame, encode_command
from tests.support.errors import assert_error
from tests.support.server import ServerProcess
from tests.support.turns import random_turn
from tests.support.waiting import wait_until_sync

CREATE_BODY_MAX = 4096
"""The documented limit of a POST /games body, in bytes."""
JSON = {"Content-Type": "application/json"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
FRAME_WAIT_S = 5


@pytest.fixture(scope="module")
def shared_server():
    # One server for the whole module: far more games and sockets than one client may open in a minute.
    server = ServerProcess(
        {"DICE_SEED_WINDOW_MS": "0", "PLAY_GAME_CREATIONS_PER_MINUTE": "10000", "PLAY_SOCKET_CONNECTS_PER_MINUTE": "10000"}
    ).start()
    yield server
    server.close()


@pytest.fixture
def http(shared_server):
    with httpx.Client(base_url=shared_server.base_url, timeout=10) as client:
        yield client


def create(http: httpx.Client, body=None) -> dict:
    response = http.post("/games", json=body) if body is not None else http.post("/games")
    assert response.status_code == 201, response.text
    return response.json()


# ----- POST /games --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, headers",
    [(None, {}), (b"", JSON), (b"{}", JSON), (b"  \n", JSON), (b"", {"Content-Type": "text/plain"})],
    ids=["no-body", "empty-json", "empty-object", "whitespace", "empty-text-plain"],
)
def test_post_games_defaults_to_fischer_600_plus_10(http, content, headers):
    response = http.post("/games", content=content, headers=headers)
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store, private"
    created = response.json()
    game_id = created["gameId"]
    assert str(uuid.UUID(game_id)) == game_id
    assert HEX64.match(created["commit"])
    assert created["timeControl"] == {"Fischer": {"initialSeconds": 600, "incrementSeconds": 10}}
    assert created["rated"] is False
    assert set(created["seats"]) == {"white", "black"}
    for key, seat in (("white", "White"), ("black", "Black")):
        entry = created["seats"][key]
        assert set(entry) == {"seat", "token", "wsUrl"} and entry["seat"] == seat
        assert entry["wsUrl"] == f"/games/{game_id}/ws?token={entry['token']}"
    assert created["seats"]["white"]["token"] != created["seats"]["black"]["token"]
    assert created["spectatorWsUrl"] == f"/games/{game_id}/ws?mode=spectator"

    state = http.get(f"/games/{game_id}").json()
    assert state["version"] == 0 and state["status"] == {"Active": {}} and state["activeSeat"] == "White"
    assert state["dicePending"] is False and state["legalMoves"] is None
    assert state["commit"] == created["commit"] and state["seed"] is None and state["clientSeeds"] is None
    assert state["clocks"] == {"white": 600_000, "black": 600_000}
    assert state["players"] == {"white": {"kind": "Human", "name": None}, "black": {"kind": "Human", "name": None}}


TIME_CONTROLS = [
    ({"Fischer": {"initialSeconds": 1, "incrementSeconds": 0}}, {"white": 1000, "black": 1000}),
    ({"Fischer": {"initialSeconds": 10800, "incrementSeconds": 180}}, {"white": 10_800_000, "black": 10_800_000}),
    ({"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}, {"white": 300_000, "black": 300_000}),
    ({"SuddenDeath": {"initialSeconds": 180}}, {"white": 180_000, "black": 180_000}),
    ({"SuddenDeath": {"initialSeconds": 10800}}, {"white": 10_800_000, "black": 10_800_000}),
    ({"PerMove": {"secondsPerMove": 1}}, {"white": 1000, "black": 1000}),
    ({"PerMove": {"secondsPerMove": 3600}}, {"white": 3_600_000, "black": 3_600_000}),
    ({"Unlimited": {}}, None),
]


@pytest.mark.parametrize("time_control, clocks", TIME_CONTROLS, ids=lambda v: json.dumps(v) if v else "null")
def test_each_time_control_round_trips(http, time_control, clocks):
    created = create(http, {"timeControl": time_control})
    assert created["timeControl"] == time_control
    state = http.get(f"/games/{created['gameId']}").json()
    assert state["timeControl"] == time_control
    assert state["clocks"] == clocks


@pytest.mark.parametrize("rated", [True, False])
def test_rated_is_echoed(http, rated):
    created = create(http, {"rated": rated, "timeControl": {"Unlimited": {}}})
    assert created["rated"] is rated


def test_a_body_of_exactly_4_kib_is_accepted(http):
    head = b'{"rated": false'
    body = head + b" " * (CREATE_BODY_MAX - len(head) - 1) + b"}"
    assert len(body) == CREATE_BODY_MAX
    response = http.post("/games", content=body, headers=JSON)
    assert response.status_code == 201, response.text


def test_json_with_a_charset_parameter_is_json(http):
    response = http.post("/games", content=b'{"rated": true}', headers={"Content-Type": "application/json; charset=utf-8"})
    assert response.status_code == 201 and response.json()["rated"] is True


BAD_BODIES = {
    # body is not JSON
    "truncated": (b'{"rated": true', 400, "invalid_request"),
    "form-encoded-as-json": (b"rated=true", 400, "invalid_request"),
    "invalid-utf8": (b'{"rated": "\xff"}', 400, "invalid_request"),
    "trailing-garbage": (b"{} {}", 400, "invalid_request"),
    # body is not an object
    "array": (b"[]", 400, "invalid_request"),
    "null": (b"null", 400, "invalid_request"),
    "number": (b"3", 400, "invalid_request"),
    "string": (b'"Fischer"', 400, "invalid_request"),
    # unknown field
    "unknown-field": (b'{"color": "white"}', 400, "invalid_request"),
    "unknown-beside-known": (b'{"rated": false, "seats": {}}', 400, "invalid_request"),
    "camel-case-matters": (b'{"time_control": {"Unlimited": {}}}', 400, "invalid_request"),
    # rated is not a boolean
    "rated-string": (b'{"rated": "true"}', 400, "invalid_request"),
    "rated-number": (b'{"rated": 1}', 400, "invalid_request"),
    "rated-null": (b'{"rated": null}', 400, "invalid_request"),
    "rated-nan": (b'{"rated": NaN}', 400, "invalid_request"),
}

BAD_TIME_CONTROLS = {
    "tc-string": "Fischer",
    "tc-null": None,
    "tc-array": [{"Unlimited": {}}],
    "tc-no-variant": {},
    "tc-two-variants": {"Unlimited": {}, "Fischer": {"initialSeconds": 60, "incrementSeconds": 0}},
    "tc-unknown-variant": {"Blitz": {"initialSeconds": 60}},
    "tc-lowercase-variant": {"fischer": {"initialSeconds": 60, "incrementSeconds": 0}},
    "tc-body-not-object": {"Unlimited": None},
    "tc-unlimited-with-field": {"Unlimited": {"initialSeconds": 60}},
    "fischer-missing-increment": {"Fischer": {"initialSeconds": 600}},
    "fischer-extra-field": {"Fischer": {"initialSeconds": 600, "incrementSeconds": 10, "delay": 2}},
    "fischer-float": {"Fischer": {"initialSeconds": 600.0, "incrementSeconds": 10}},
    "fischer-string": {"Fischer": {"initialSeconds": "600", "incrementSeconds": 10}},
    "fischer-bool": {"Fischer": {"initialSeconds": True, "incrementSeconds": 10}},
    "fischer-zero": {"Fischer": {"initialSeconds": 0, "incrementSeconds": 10}},
    "fischer-too-long": {"Fischer": {"initialSeconds": 10801, "incrementSeconds": 10}},
    "fischer-negative-increment": {"Fischer": {"initialSeconds": 600, "incrementSeconds": -1}},
    "fischer-increment-too-big": {"Fischer": {"initialSeconds": 600, "incrementSeconds": 181}},
    "fischer-huge": {"Fischer": {"initialSeconds": 10**40, "incrementSeconds": 10}},
    "sudden-death-zero": {"SuddenDeath": {"initialSeconds": 0}},
    "sudden-death-too-long": {"SuddenDeath": {"initialSeconds": 10801}},
    "sudden-death-increment": {"SuddenDeath": {"initialSeconds": 60, "incrementSeconds": 1}},
    "per-move-zero": {"PerMove": {"secondsPerMove": 0}},
    "per-move-too-long": {"PerMove": {"secondsPerMove": 3601}},
    "per-move-wrong-field": {"PerMove": {"initialSeconds": 10}},
}


@pytest.mark.parametrize("content, status, code", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_a_bad_creation_body_gets_the_documented_error(http, content, status, code):
    assert_error(http.post("/games", content=content, headers=JSON), status, code)


def test_an_unknown_field_is_named(http):
    message = assert_error(http.post("/games", json={"color": "white", "rated": False}), 400, "invalid_request")
    assert "color" in message


@pytest.mark.parametrize("time_control", BAD_TIME_CONTROLS.values(), ids=BAD_TIME_CONTROLS.keys())
def test_a_bad_time_control_gets_invalid_request_naming_it(http, time_control):
    message = assert_error(http.post("/games", json={"timeControl": time_control}), 400, "invalid_request")
    assert message.startswith("timeControl")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "application/problem+json", "text/json", None],
)
def test_a_body_that_is_not_declared_json_gets_415(http, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    assert_error(http.post("/games", content=b'{"rated": false}', headers=headers), 415, "unsupported_media_type")


def test_a_body_over_4_kib_gets_413(http):
    body = b'{"rated": false' + b" " * (CREATE_BODY_MAX - 15) + b"}"
    assert len(body) == CREATE_BODY_MAX + 1
    assert_error(http.post("/games", content=body, headers=JSON), 413, "request_too_large")


def test_a_chunked_body_over_4_kib_gets_413(http):
    def chunks():
        yield b'{"rated": false'
        for _ in range(10):
            yield b" " * 1000
        yield b"}"

    assert_error(http.post("/games", content=chunks(), headers=JSON), 413, "request_too_large")


@pytest.mark.parametrize("content", [b"[" * 3000, b'{"timeControl": ' + b"[" * 2000 + b"]" * 2000 + b"}"])
def test_deeply_nested_json_gets_400_not_500(http, content):
    assert len(content) <= CREATE_BODY_MAX
    assert_error(http.post("/games", content=content, headers=JSON), 400, "invalid_request")


def test_a_refused_creation_creates_nothing(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        for content, _, _ in BAD_BODIES.values():
            client.post("/games", content=content, headers=JSON)
        client.post("/games", json={"timeControl": {"Blitz": {}}})
        client.post("/games", content=b"{}", headers={"Content-Type": "text/plain"})
        assert client.get("/games").json() == {"games": [], "total": 0}
    assert "Traceback" not in server.output()


# ----- reads --------------------------------------------------------------------------------


PUBLIC_LISTING_KEYS = {
    "gameId", "players", "timeControl", "activeSeat", "dicePending", "clocks", "version", "dfen", "lastMoves", "watching",
}


def test_get_games_lists_live_games_with_public_faces_and_no_tokens(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        created = [create(client, {"timeControl": tc}) for tc, _ in TIME_CONTROLS[:3]]
        response = client.get("/games")
    assert response.status_code == 200
    listing = response.json()
    assert listing["total"] == 3
    assert {entry["gameId"] for entry in listing["games"]} == {game["gameId"] for game in created}
    by_id = {entry["gameId"]: entry for entry in listing["games"]}
    for game in created:
        entry = by_id[game["gameId"]]
        assert set(entry) == PUBLIC_LISTING_KEYS
        assert entry["players"] == {"white": {"kind": "Human", "name": None}, "black": {"kind": "Human", "name": None}}
        assert entry["timeControl"] == game["timeControl"] and entry["version"] == 0 and entry["watching"] == 0
        assert entry["lastMoves"] == []  # nothing moved yet
        for seat in game["seats"].values():
            assert seat["token"] not in response.text
    assert "token" not in response.text.lower()


def test_the_list_names_each_games_newest_turn_that_moved_a_piece(serve):
    """`lastMoves`: what the wall's mini-boards mark, the newest turn's micro-moves, a pass
    (which moves nothing) leaving the turn before it marked. Two API bots play four turns."""
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    base = server.base_url
    with httpx.Client(base_url=base, timeout=10) as client:
        bots = [client.post("/bot/anon", params={"name": name}).json() for name in ("mark-white", "mark-black")]
        auth = [{"Authorization": f"Bearer {bot['token']}"} for bot in bots]
        challenge = client.post("/bot/challenge", json={"team": bots[1]["team"], "name": bots[1]["name"]}, headers=auth[0])
        game_id = client.post(f"/bot/challenge/{challenge.json()['id']}/accept", headers=auth[1]).json()["gameId"]
        expected: list[str] = []
        for _ in range(4):
            state = wait_until_sync(lambda: (s := client.get(f"/games/{game_id}").json())["dicePending"] and s,
                                    "a roll to play")
            tree = client.get(f"/games/{game_id}/moves").json()["legalMoves"]
            moves = []
            while tree:  # the tree's first path: a whole turn
                move = next(iter(tree))
                moves.append(move)
                tree = tree[move]
            played = client.post(f"/bot/game/{game_id}/move", json={"moves": moves},
                                 headers=auth[0 if state["activeSeat"] == "White" else 1])
            assert played.status_code == 200, played.text
            expected = moves or expected
            listed = next(game for game in client.get("/games").json()["games"] if game["gameId"] == game_id)
            assert listed["lastMoves"] == expected, (moves, listed)
        assert expected, "four turns moved something"


def test_get_games_shows_at_most_50_and_counts_them_all(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0", "PLAY_GAME_CREATIONS_PER_MINUTE": "100"})
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        for _ in range(55):
            create(client)
        listing = client.get("/games").json()
    assert listing["total"] == 55 and len(listing["games"]) == 50


@pytest.mark.parametrize("path", ["/games/{id}", "/games/{id}/moves"])
@pytest.mark.parametrize("game_id", [str(uuid.uuid4()), "not-a-game", "0"], ids=["a-new-uuid", "not-a-game", "zero"])
def test_an_unknown_game_is_404_game_not_found(http, path, game_id):
    assert_error(http.get(path.format(id=game_id)), 404, "game_not_found")


# ----- reads of a game in play ---------------------------------------------------------------


async def next_frame(ws):
    with trio.fail_after(FRAME_WAIT_S):
        return decode_frame(await ws.get_message())


async def frames_until(ws, wanted) -> list:
    seen = []
    while True:
        seen.append(await next_frame(ws))
        if wanted(seen[-1]):
            return seen


def playable_roll(frame) -> bool:
    return isinstance(frame, DiceRolled) and frame.legal_moves != {}


def seat_url(server, game: dict, seat: str) -> str:
    return f"{server.ws_url}{game['seats'][seat]['wsUrl']}&guest={uuid.uuid4()}"


async def test_moves_returns_version_dfen_and_the_full_tree_once_dice_are_rolled(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
        game = (await client.post("/games", json={"timeControl": {"Unlimited": {}}})).json()
        game_id = game["gameId"]
        waiting = (await client.get(f"/games/{game_id}/moves")).json()
        start = (await client.get(f"/games/{game_id}")).json()["dfen"]
        assert waiting == {"version": 0, "dfen": start, "dicePending": False, "legalMoves": {}}
        rng = random.Random(7)
        checked = 0
        with trio.fail_after(20):
            async with (
                open_websocket_url(seat_url(server, game, "white")) as white,
                open_websocket_url(seat_url(server, game, "black")) as black,
            ):
                seats = {"White": white, "Black": black}
                while checked < 8:
                    rolled = await next_frame(white)
                    if isinstance(rolled, GameEnded):
                        break
                    if not playable_roll(rolled):
                        continue
                    moves = (await client.get(f"/games/{game_id}/moves")).json()
                    state = (await client.get(f"/games/{game_id}")).json()
                    assert moves["version"] == rolled.v == state["version"]
                    assert moves["dfen"] == rolled.dfen == state["dfen"]
                    assert moves["dicePending"] is True and state["dicePending"] is True
                    full = json.loads(json.dumps(legal_tree(parse_dfen(rolled.dfen))))
                    assert moves["legalMoves"] == full, "the whole tree of the pending roll"
                    if rolled.legal_moves is not None:
                        assert rolled.legal_moves == full == state["legalMoves"]
                    else:  # too big to inline: only GET /moves has it
                        assert state["legalMoves"] is None and count_turns(full) > 0
                    checked += 1
                    turn = tuple(random_turn(moves["legalMoves"], rng))
                    await seats[rolled.seat].send_message(encode_command(SubmitTurn(turn)))
    assert checked > 0
    assert "Traceback" not in server.output()


async def read_to_close(ws) -> list[str]:
    texts = []
    with trio.fail_after(FRAME_WAIT_S):
        while True:
            try:
                texts.append(await ws.get_message())
            except ConnectionClosed:
                return texts


async def test_seat_tokens_never_appear_in_public_payloads(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    public_texts: list[str] = []
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:

        async def read_public(game_id: str) -> None:
            for path in ("/games", f"/games/{game_id}", f"/games/{game_id}/moves"):
                response = await client.get(path)
                assert response.status_code == 200
                public_texts.append(response.text)

        game = (await client.post("/games", json={"timeControl": {"Unlimited": {}}})).json()
        game_id = game["gameId"]
        tokens = [seat["token"] for seat in game["seats"].values()]
        await read_public(game_id)
        with trio.fail_after(20):
            async with open_websocket_url(server.ws_url + game["spectatorWsUrl"]) as spectator:
                async with (
                    open_websocket_url(seat_url(server, game, "white")) as white,
                    open_websocket_url(seat_url(server, game, "black")) as black,
                ):
                    seats = {"White": white, "Black": black}
                    for _ in range(2):
                        rolled = (await frames_until(white, playable_roll))[-1]
                        await read_public(game_id)
                        tree = (await client.get(f"/games/{game_id}/moves")).json()["legalMoves"]
                        turn = tuple(random_turn(tree, random.Random(1)))
                        await seats[rolled.seat].send_message(encode_command(SubmitTurn(turn)))
                    await white.send_message(encode_command(Resign()))
                    await frames_until(white, lambda f: isinstance(f, GameEnded))
                watched = await read_to_close(spectator)
            # A spectator arriving after the end gets the final Snapshot.
            async with open_websocket_url(server.ws_url + game["spectatorWsUrl"]) as late:
                watched.extend(await read_to_close(late))
        await read_public(game_id)
        history = await client.get(f"/games/{game_id}/history")

    assert isinstance(decode_frame(watched[0]), Snapshot)
    assert any(isinstance(decode_frame(text), GameEnded) for text in watched)
    assert isinstance(decode_frame(watched[-1]), Snapshot)
    everything = [*public_texts, *watched]
    if history.status_code == 200:
        everything.append(history.text)
    for text in everything:
        assert not any(token in text for token in tokens)
        assert '"token"' not in text
    assert "Traceback" not in server.output()


async def test_an_ended_game_leaves_the_list_and_stays_readable(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
        game = (await client.post("/games")).json()
        game_id = game["gameId"]
        assert [entry["gameId"] for entry in (await client.get("/games")).json()["games"]] == [game_id]
        with trio.fail_after(20):
            async with (
                open_websocket_url(seat_url(server, game, "white")) as white,
                open_websocket_url(seat_url(server, game, "black")),
            ):
                await frames_until(white, lambda f: isinstance(f, DiceRolled))
                await white.send_message(encode_command(Resign()))
                ended = (await frames_until(white, lambda f: isinstance(f, GameEnded)))[-1]
        assert (await client.get("/games")).json() == {"games": [], "total": 0}
        state = (await client.get(f"/games/{game_id}")).json()
        moves = (await client.get(f"/games/{game_id}/moves")).json()
    # Nobody had played a turn yet, so a resignation aborts the game.
    assert state["status"] == {"Ended": {"over": {"result": None, "termination": "Aborted"}}}
    assert ended.over.termination == "Aborted"
    assert state["seed"] == ended.seed and state["clientSeeds"] == {"white": "", "black": ""}
    assert state["clocks"]["white"] <= 600_000
    assert moves == {"version": ended.v, "dfen": state["dfen"], "dicePending": False, "legalMoves": {}}
