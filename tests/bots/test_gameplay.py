"""Bot gameplay over HTTP (/bot/game/{id}/seed|move|resign, /bot/games) and the ndjson streams.

Every test talks to a real server over real sockets with httpx. The `site` fixture runs
each test twice: against the app served in-process by hypercorn (bots minted and games
created directly, so internals such as the room's fan-out can be inspected), and against
a real `playsite serve` process whose games come from the Bot API's challenges.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import time

import attrs
import httpx
import pytest
import trio

from playsite.app import create_app
from playsite.config import Settings
from playsite.rooms.trees import INLINE_TREE_MAX_BYTES
from playsite.server import run_http
from playsite.services import Services, boot
from playsite.wire import Unlimited
from playsite.wire.text import compact_json
from tests.support.turns import king_sparing_turn, random_turn
from tests.support.waiting import deadline, wait_until

SEED_LEN = 32


@attrs.frozen
class Bot:
    token: str
    id: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@attrs.frozen
class Game:
    id: str
    white: Bot
    black: Bot

    def bot(self, seat: str) -> Bot:
        return self.white if seat == "White" else self.black


class InProcessSite:
    """The real app on hypercorn inside the test's trio run; bots and games made directly."""

    kind = "in_process"

    def __init__(self, services: Services, base_url: str, seed_window_s: float):
        self.services = services
        self.base_url = base_url
        self.seed_window_s = seed_window_s

    async def new_bot(self, name: str = "bot") -> Bot:
        account, token = self.services.bots.mint_anonymous(name)
        return Bot(token, account.id)

    async def new_game(self, white: Bot, black: Bot) -> Game:
        game = await self.services.bot_games.start(
            white=self.services.bots.get(white.id),
            black=self.services.bots.get(black.id),
            time_control=Unlimited(),
            rated=False,
            origin="challenge",
        )
        return Game(game.room.game_id, white, black)

    def room(self, game: Game):
        return self.services.registry.get(game.id)


class ServedSite:
    """A `playsite serve` process; bots from POST /bot/anon, games from challenges."""

    kind = "playsite_serve"

    def __init__(self, base_url: str):
        self.base_url = base_url

    async def new_bot(self, name: str = "bot") -> Bot:
        async with httpx.AsyncClient(base_url=self.base_url, timeout=10) as http:
            response = await http.post("/bot/anon", params={"name": name})
        assert response.status_code == 201, f"POST /bot/anon answered {response.status_code}: {response.text}"
        body = response.json()
        return Bot(body["token"], f"{body['team']}/{body['name']}")

    async def new_game(self, white: Bot, black: Bot) -> Game:
        a, b = white, black
        async with httpx.AsyncClient(base_url=self.base_url, timeout=10) as http:
            team, name = b.id.split("/")
            created = await http.post("/bot/challenge", json={"team": team, "name": name}, headers=a.auth)
            assert created.status_code == 201, f"POST /bot/challenge answered {created.status_code}: {created.text}"
            accepted = await http.post(f"/bot/challenge/{created.json()['id']}/accept", headers=b.auth)
            assert accepted.status_code == 201, accepted.text
            game_id = accepted.json()["gameId"]
            mine = (await http.get("/bot/games", headers=a.auth)).json()["games"]
        seat = next(g["seat"] for g in mine if g["gameId"] == game_id)
        return Game(game_id, a, b) if seat == "White" else Game(game_id, b, a)


@pytest.fixture(params=["in_process", "playsite_serve"])
def open_site(request, serve):
    """Factory: `async with open_site(**env) as site` — a fresh server with these test knobs."""

    @contextlib.asynccontextmanager
    async def opened(keepalive_s: float = 25, verdict_wait_s: float | None = None, seed_window_ms: int = 0):
        env = {"PLAY_NDJSON_KEEPALIVE_MS": str(round(keepalive_s * 1000)), "DICE_SEED_WINDOW_MS": str(seed_window_ms)}
        if verdict_wait_s is not None:
            env["PLAY_MOVE_VERDICT_WAIT_MS"] = str(round(verdict_wait_s * 1000))
        if request.param == "playsite_serve":
            yield ServedSite(serve(env).base_url)
            return
        async with in_process_site(env) as site:
            yield site

    return opened


@contextlib.asynccontextmanager
async def in_process_site(env: dict[str, str]):
    settings = Settings.from_environ({"PLAY_HOST": "127.0.0.1", "PLAY_PORT": "0", **env})
    async with trio.open_nursery() as nursery:
        services = await boot(settings, nursery)
        app = create_app(services)
        binds = await nursery.start(run_http, app, settings, trio.Event())
        yield InProcessSite(services, binds[0], settings.dice_seed_window_ms / 1000)
        nursery.cancel_scope.cancel()


@pytest.fixture
def in_process():
    """Factory for tests that look inside the server (fan-out, subscribers)."""

    def opened(keepalive_s: float = 25, verdict_wait_s: float | None = None, **extra_env: str):
        env = {"PLAY_NDJSON_KEEPALIVE_MS": str(round(keepalive_s * 1000)), "DICE_SEED_WINDOW_MS": "0", **extra_env}
        if verdict_wait_s is not None:
            env["PLAY_MOVE_VERDICT_WAIT_MS"] = str(round(verdict_wait_s * 1000))
        return in_process_site(env)

    return opened


@contextlib.asynccontextmanager
async def client(site):
    async with httpx.AsyncClient(base_url=site.base_url, timeout=10) as http:
        yield http


# ----- playing helpers -----------------------------------------------------------------------


async def my_turn(http, game: Game, timeout: float = 10) -> tuple[str, dict]:
    """(seat to move, the full moves response) once dice are rolled for a seat."""
    with deadline(timeout, f"dice rolled for a seat in game {game.id}"):
        while True:
            state = (await http.get(f"/games/{game.id}")).json()
            moves = (await http.get(f"/games/{game.id}/moves")).json()
            if moves["dicePending"] and moves["version"] == state["version"]:
                return state["activeSeat"], moves
            await trio.sleep(0.02)


async def play_one_turn(http, game: Game, rng: random.Random) -> tuple[str, list[str], httpx.Response]:
    seat, moves = await my_turn(http, game)
    turn = random_turn(moves["legalMoves"], rng)
    response = await http.post(f"/bot/game/{game.id}/move", json={"moves": turn}, headers=game.bot(seat).auth)
    return seat, turn, response


async def stream_lines(response: httpx.Response):
    async for line in response.aiter_lines():
        yield line


async def read_until(lines, predicate, timeout: float = 10) -> list[dict]:
    """Parsed events (blank keep-alives skipped) up to and including the first matching one."""
    seen = []
    with trio.fail_after(timeout):
        async for line in lines:
            if not line.strip():
                continue
            event = json.loads(line)
            seen.append(event)
            if predicate(event):
                return seen
    raise AssertionError(f"stream ended before the awaited event; saw {[next(iter(e)) for e in seen]}")


def kind(event: dict) -> str:
    return next(iter(event))


# ----- gameplay: authentication and addressing -----------------------------------------------


GAMEPLAY_ROUTES = [
    ("POST", "/bot/game/{id}/seed", {"seed": "x" * SEED_LEN}),
    ("POST", "/bot/game/{id}/move", {"moves": ["e2e4"]}),
    ("POST", "/bot/game/{id}/resign", None),
    ("GET", "/bot/games", None),
    ("GET", "/bot/stream/event", None),
    ("GET", "/bot/game/stream/{id}", None),
]


async def test_every_gameplay_route_answers_401_without_a_valid_bot_token(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        for method, path, body in GAMEPLAY_ROUTES:
            url = path.format(id=game.id)
            for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic abc"}):
                response = await http.request(method, url, json=body, headers=headers)
                assert response.status_code == 401, (method, url, headers, response.text)
                assert response.json()["error"]["code"] == "unauthorized"
                assert response.headers["WWW-Authenticate"].startswith("Bearer")


async def test_unknown_game_or_a_caller_not_seated_there_is_404(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        outsider = await site.new_bot("outsider")
        for method, path, body in GAMEPLAY_ROUTES[:3]:
            for game_id, bot in (("no-such-game", game.white), (game.id, outsider)):
                response = await http.request(method, path.format(id=game_id), json=body, headers=bot.auth)
                assert response.status_code == 404, (path, game_id, response.text)
                assert response.json()["error"]["code"] == "game_not_found"
        response = await http.get("/bot/game/stream/no-such-game", headers=game.white.auth)
        assert response.status_code == 404


# ----- moves and verdicts --------------------------------------------------------------------


async def test_a_legal_turn_is_applied_200_with_the_version_of_its_turn_played(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.white.auth) as stream:
            lines = stream.aiter_lines()
            await read_until(lines, lambda e: kind(e) == "Snapshot")
            seat, turn, response = await play_one_turn(http, game, random.Random(1))
            assert response.status_code == 200, response.text
            verdict = response.json()
            assert verdict == {"applied": True, "version": verdict["version"], "reason": None}
            assert isinstance(verdict["version"], int)
            events = await read_until(lines, lambda e: kind(e) == "TurnPlayed")
        played = events[-1]["TurnPlayed"]
        assert played == {**played, "v": verdict["version"], "seat": seat, "moves": turn}


async def test_a_seated_bots_stream_carries_the_legal_moves_and_a_watchers_does_not(open_site):
    """As a seat's WebSocket does: a bot that sits in the game reads every roll's tree inline
    (under the size cap) on its game stream, the Snapshot's too; a bot that only watches reads
    none, as a spectator's socket."""
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        watcher = await site.new_bot("watcher")
        async with contextlib.AsyncExitStack() as stack:
            streams = {}
            for who, bot in (("White", game.white), ("Black", game.bot("Black")), ("watcher", watcher)):
                response = await stack.enter_async_context(
                    http.stream("GET", f"/bot/game/stream/{game.id}", headers=bot.auth))
                streams[who] = response.aiter_lines()
            seat, moves = await my_turn(http, game)
            for who, lines in streams.items():
                rolled = (await read_until(lines, lambda e: kind(e) in ("DiceRolled", "Snapshot")
                                           and moves["dfen"] in json.dumps(e)))[-1]
                tree = next(iter(rolled.values()))["legalMoves"] if "DiceRolled" in rolled else \
                    rolled["Snapshot"]["state"]["legalMoves"]
                inline = len(compact_json(moves["legalMoves"]).encode()) <= INLINE_TREE_MAX_BYTES
                expected = moves["legalMoves"] if who != "watcher" and inline else None
                assert tree == expected, who


async def test_refused_turns_are_409_verdicts_with_the_reason(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        seat, moves = await my_turn(http, game)
        waiting = game.bot("Black" if seat == "White" else "White")
        turn = random_turn(moves["legalMoves"], random.Random(2))

        not_yours = await http.post(f"/bot/game/{game.id}/move", json={"moves": turn}, headers=waiting.auth)
        assert not_yours.status_code == 409
        assert not_yours.json() == {"applied": False, "version": None, "reason": "not your turn"}

        illegal = await http.post(f"/bot/game/{game.id}/move", json={"moves": ["a1a8"]}, headers=game.bot(seat).auth)
        assert illegal.status_code == 409
        body = illegal.json()
        assert body["applied"] is False and body["version"] is None and body["reason"] == "illegal turn"
        assert "a1a8" in body["detail"], "which move, and why, is kept beside the ecosystem's short reason"

        assert (await http.post(f"/bot/game/{game.id}/resign", headers=waiting.auth)).status_code == 202
        with deadline(10, "the resignation to end the game"):
            while (over := await http.post(f"/bot/game/{game.id}/move", json={"moves": turn},
                                           headers=game.bot(seat).auth)).json()["reason"] != "game is over":
                await trio.sleep(0.05)
        assert over.status_code == 409 and over.json()["applied"] is False


async def test_a_refused_turn_is_a_rejected_event_on_every_stream_of_the_game_with_a_new_version(open_site):
    """As the ecosystem does: a client that drops events with `v` at or below the last it saw
    keeps the Rejected; the version it carries is the room's committed version."""
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        watcher = await site.new_bot("watcher")  # any bot may watch any game
        seat, moves = await my_turn(http, game)
        other = "Black" if seat == "White" else "White"
        async with contextlib.AsyncExitStack() as stack:
            streams = {}
            for who, bot in (("mover", game.bot(seat)), ("other", game.bot(other)), ("watcher", watcher)):
                response = await stack.enter_async_context(
                    http.stream("GET", f"/bot/game/stream/{game.id}", headers=bot.auth)
                )
                streams[who] = response.aiter_lines()
                snapshot = (await read_until(streams[who], lambda e: kind(e) == "Snapshot"))[-1]["Snapshot"]
                assert snapshot["v"] == moves["version"]
            refused = await http.post(f"/bot/game/{game.id}/move", json={"moves": ["a1a8"]}, headers=game.bot(seat).auth)
            assert refused.status_code == 409 and refused.json()["reason"] == "illegal turn"
            for who, lines in streams.items():
                rejected = (await read_until(lines, lambda e: kind(e) == "Rejected"))[-1]["Rejected"]
                assert rejected["seat"] == seat and rejected["v"] == moves["version"] + 1, who
                assert rejected["reason"].startswith("illegal turn"), who
            state = (await http.get(f"/games/{game.id}")).json()
            assert state["version"] == moves["version"] + 1, "the Rejected's version is the room's version"
            assert state["activeSeat"] == seat and state["dicePending"] and state["dfen"] == moves["dfen"]
            # The roll still stands; the turn played next follows the Rejected's version.
            turn = random_turn(moves["legalMoves"], random.Random(8))
            played = await http.post(f"/bot/game/{game.id}/move", json={"moves": turn}, headers=game.bot(seat).auth)
            assert played.status_code == 200 and played.json()["version"] == moves["version"] + 2


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b"{}", "missing field"),
        (b'{"moves": "e2e4"}', "moves"),
        (b'{"moves": [1]}', "moves"),
        (b'{"moves": ["e2e4"], "extra": 1}', "unknown field"),
        (b'{"moves": ["e9e4"]}', "UCI"),
        (b'{"moves": null}', "moves"),
        (b'"e2e4"', "must be a JSON object"),
        (b"[" * 3000, "nested too deeply"),
        (b'{"moves": ' + b"[" * 2000 + b"]" * 2000 + b"}", "nested too deeply"),
    ],
)
async def test_malformed_move_bodies_are_400_with_a_clear_json_error(open_site, content, problem):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        response = await http.post(
            f"/bot/game/{game.id}/move", content=content,
            headers={**game.white.auth, "Content-Type": "application/json"},
        )
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "invalid_request" and problem in error["message"]


async def test_oversize_bodies_are_413_and_wrong_content_types_415(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        huge = json.dumps({"moves": ["e2e4"], "pad": "x" * 5000})
        for path in ("move", "seed", "resign"):
            url = f"/bot/game/{game.id}/{path}"
            as_json = {**game.white.auth, "Content-Type": "application/json"}
            too_big = await http.post(url, content=huge, headers=as_json)
            assert too_big.status_code == 413, (path, too_big.text)
            assert too_big.json()["error"]["code"] == "request_too_large"
            plain = await http.post(url, content=b'{"moves": ["e2e4"]}',
                                    headers={**game.white.auth, "Content-Type": "text/plain"})
            assert plain.status_code == 415, (path, plain.text)
            assert plain.json()["error"]["code"] == "unsupported_media_type"


async def test_no_verdict_within_the_wait_is_202_and_the_turn_still_stands(open_site):
    async with open_site(verdict_wait_s=0) as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        seat, moves = await my_turn(http, game)
        turn = random_turn(moves["legalMoves"], random.Random(3))
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.bot(seat).auth) as stream:
            lines = stream.aiter_lines()
            await read_until(lines, lambda e: kind(e) == "Snapshot")
            response = await http.post(f"/bot/game/{game.id}/move", json={"moves": turn}, headers=game.bot(seat).auth)
            assert response.status_code == 202
            assert response.json() == {"applied": False, "version": None, "reason": None}
            events = await read_until(lines, lambda e: kind(e) == "TurnPlayed")
            assert events[-1]["TurnPlayed"]["moves"] == turn
            assert events[-1]["TurnPlayed"]["seat"] == seat

            # A late refusal is told on the game stream as Rejected (an event of the room).
            late = await http.post(f"/bot/game/{game.id}/move", json={"moves": ["a1a8"]}, headers=game.bot(seat).auth)
            assert late.status_code == 202
            rejected = (await read_until(lines, lambda e: kind(e) == "Rejected"))[-1]["Rejected"]
            assert rejected["seat"] == seat
            assert rejected["reason"] == "not your turn" or rejected["reason"].startswith("illegal turn")


# ----- seeds and resignation -----------------------------------------------------------------


async def test_seeds_are_202_accepted_or_ignored_and_revealed_at_the_end(open_site):
    async with open_site(seed_window_ms=30_000) as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        seeds = {"White": "a" * SEED_LEN, "Black": "b" * SEED_LEN}
        started = time.monotonic()
        async def seed(seat: str, text: str) -> dict:
            response = await http.post(f"/bot/game/{game.id}/seed", json={"seed": text}, headers=game.bot(seat).auth)
            assert response.status_code == 202
            return response.json()

        assert await seed("White", seeds["White"]) == {"accepted": True, "reason": None}
        # A duplicate and a malformed seed are ignored, still 202: the body says so, and why.
        assert await seed("White", "c" * SEED_LEN) == {"accepted": False, "reason": "seed ignored (duplicate)"}
        assert await seed("Black", "short") == {"accepted": False, "reason": "seed ignored (malformed)"}
        assert await seed("Black", seeds["Black"]) == {"accepted": True, "reason": None}
        # Both seeds are in: the room rolls at once rather than waiting out the 30 s window.
        await my_turn(http, game)
        assert time.monotonic() - started < 10
        assert await seed("Black", "d" * SEED_LEN) == {"accepted": False, "reason": "seed ignored (late)"}, "the roll froze them"
        for bad in ({}, {"seed": 5}, {"seed": "x" * SEED_LEN, "more": 1}):
            response = await http.post(f"/bot/game/{game.id}/seed", json=bad, headers=game.white.auth)
            assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.white.auth) as stream:
            lines = stream.aiter_lines()
            await read_until(lines, lambda e: kind(e) == "Snapshot")
            assert (await http.post(f"/bot/game/{game.id}/resign", headers=game.black.auth)).status_code == 202
            ended = (await read_until(lines, lambda e: kind(e) == "GameEnded"))[-1]["GameEnded"]
        assert ended["clientSeeds"] == {"white": seeds["White"], "black": seeds["Black"]}


async def test_resign_is_202_and_ends_the_game_for_the_other_seat(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        rng = random.Random(4)
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.black.auth) as stream:
            lines = stream.aiter_lines()
            await read_until(lines, lambda e: kind(e) == "Snapshot")
            played = set()
            while len(played) < 2:  # both seats play once, so the resignation is a result, not an abort
                seat, _, response = await play_one_turn(http, game, rng)
                assert response.status_code == 200, response.text
                played.add(seat)
                if (await http.get(f"/games/{game.id}")).json()["status"].get("Ended"):
                    break
            response = await http.post(f"/bot/game/{game.id}/resign", headers=game.white.auth)
            assert response.status_code == 202 and response.content == b""
            ended = (await read_until(lines, lambda e: kind(e) == "GameEnded"))[-1]["GameEnded"]
        if ended["over"]["termination"] != "KingCaptured":  # unless a turn above already won
            assert ended["over"] == {"result": {"Win": {"side": "Black"}}, "termination": "Resign"}
        again = await http.post(f"/bot/game/{game.id}/resign", headers=game.white.auth)
        assert again.status_code == 202


# ----- GET /bot/games ------------------------------------------------------------------------


async def test_my_games_lists_every_live_game_of_the_caller_in_the_mygame_shape(open_site):
    async with open_site() as site, client(site) as http:
        a, b, c = [await site.new_bot(n) for n in ("a", "b", "c")]
        first = await site.new_game(a, b)
        second = await site.new_game(c, a)
        assert (await http.get("/bot/games", headers=(await site.new_bot("idle")).auth)).json() == {"games": []}
        await my_turn(http, first)
        await my_turn(http, second)
        response = await http.get("/bot/games", headers=a.auth)
        assert response.status_code == 200
        games = {g["gameId"]: g for g in response.json()["games"]}
        assert set(games) == {first.id, second.id}
        for game in (first, second):
            mine = games[game.id]
            assert list(mine) == ["gameId", "seat", "activeSeat", "dicePending", "timeControl", "clocks", "version"]
            assert mine["seat"] == ("White" if game.white == a else "Black")
            state = (await http.get(f"/games/{game.id}")).json()
            assert mine["activeSeat"] == state["activeSeat"] and mine["dicePending"] is True
            assert mine["timeControl"] == {"Unlimited": {}} and mine["clocks"] is None
            assert mine["version"] == state["version"]
        assert (await http.post(f"/bot/game/{first.id}/resign", headers=b.auth)).status_code == 202
        with deadline(10, "the resigned game to leave GET /bot/games"):
            while first.id in {g["gameId"] for g in (await http.get("/bot/games", headers=a.auth)).json()["games"]}:
                await trio.sleep(0.05)
        assert [g["gameId"] for g in (await http.get("/bot/games", headers=b.auth)).json()["games"]] == []


# ----- ndjson streams ------------------------------------------------------------------------


async def test_game_stream_is_ndjson_and_starts_with_a_snapshot(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        outsider = await site.new_bot("watcher")  # any bot may watch: the game is public
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=outsider.auth) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"] == "application/x-ndjson"
            first = await anext(aiter(stream.aiter_lines()))
        snapshot = json.loads(first)["Snapshot"]
        assert snapshot["state"]["players"]["white"]["kind"] == "Bot"
        assert snapshot["v"] == snapshot["state"]["version"]
        assert all(turn["moves"] == [] for turn in snapshot["history"])  # at most forced passes yet


async def test_streams_send_blank_keepalive_lines_when_silent(open_site):
    async with open_site(keepalive_s=0.2) as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        for url in (f"/bot/game/stream/{game.id}", "/bot/stream/event"):
            async with http.stream("GET", url, headers=game.white.auth) as stream:
                lines = stream.aiter_lines()
                # The first line says the subscription is live: a Snapshot, or a blank line.
                first = await anext(lines)
                if url == "/bot/stream/event":
                    assert first == ""
                else:
                    assert first.startswith('{"Snapshot"')
                started = time.monotonic()
                with trio.fail_after(5):
                    for _ in range(3):
                        assert await anext(lines) == ""
                assert time.monotonic() - started >= 0.5, url


async def test_game_stream_ends_after_game_ended(open_site):
    async with open_site() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.white.auth) as stream:
            lines = stream.aiter_lines()
            await read_until(lines, lambda e: kind(e) == "Snapshot")
            await http.post(f"/bot/game/{game.id}/resign", headers=game.white.auth)
            await read_until(lines, lambda e: kind(e) == "GameEnded")
            with trio.fail_after(5):
                rest = [line async for line in lines]
        assert all(line == "" for line in rest)
        # A stream opened after the end is the final Snapshot, then the end.
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.white.auth) as stream:
            with trio.fail_after(5):
                events = [json.loads(line) for line in [x async for x in stream.aiter_lines()] if line]
        assert [kind(e) for e in events] == ["Snapshot"]
        assert "Ended" in events[0]["Snapshot"]["state"]["status"]


async def test_account_stream_opens_with_a_blank_line_then_tells_game_start(open_site):
    async with open_site() as site, client(site) as http:
        white, black = await site.new_bot("w"), await site.new_bot("b")
        async with http.stream("GET", "/bot/stream/event", headers=black.auth) as stream:
            assert stream.headers["content-type"] == "application/x-ndjson"
            lines = stream.aiter_lines()
            assert await anext(lines) == ""  # subscribed: what happens from now on is heard
            game = await site.new_game(white, black)
            events = await read_until(lines, lambda e: kind(e) == "GameStart")
        assert events[-1] == {"GameStart": {"gameId": game.id}}


STUCK_GAMES = 4
"""A random game can end (a king left exposed by a forced roll) before the stuck stream's
buffers and queue are full; then the scenario is played again with a new game."""


async def test_a_client_that_never_reads_its_stream_does_not_stall_the_game(in_process):
    # A small kernel send buffer (PLAY_SEND_BUFFER_BYTES) and a tiny receive window: the
    # server's writes to the stuck stream block after a few events, not after megabytes.
    async with in_process(PLAY_SEND_BUFFER_BYTES="4096") as site, client(site) as http:
        rng = random.Random(5)
        for _ in range(STUCK_GAMES):
            game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
            room = site.room(game)
            port = int(site.base_url.rsplit(":", 1)[1])
            stuck = trio.socket.socket()
            stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # tiny window: the server's writes block
            await stuck.connect(("127.0.0.1", port))
            request = f"GET /bot/game/stream/{game.id} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {game.white.token}"
            await stuck.send(request.encode() + b"\r\n\r\n")
            await wait_until(lambda: room.fanout.subscribers, "the stuck stream to subscribe", 5)
            started = time.monotonic()
            with trio.fail_after(60):
                while room.fanout.stats.dropped_subscribers == 0 and not room.ended:
                    seat, moves = await my_turn(http, game)
                    turn = king_sparing_turn(moves["legalMoves"], moves["dfen"], seat, rng)
                    response = await http.post(
                        f"/bot/game/{game.id}/move", json={"moves": turn}, headers=game.bot(seat).auth
                    )
                    assert response.status_code == 200, response.text
            stuck.close()
            if room.fanout.stats.dropped_subscribers:
                break
        assert room.fanout.stats.dropped_subscribers == 1, "the stuck stream was detached from the room"
        assert room.fanout.subscribers == []
        assert time.monotonic() - started < 30


async def test_a_client_that_goes_away_is_detached_and_its_account_stream_closed(in_process):
    async with in_process() as site, client(site) as http:
        game = await site.new_game(await site.new_bot("w"), await site.new_bot("b"))
        room = site.room(game)
        async with http.stream("GET", f"/bot/game/stream/{game.id}", headers=game.white.auth) as stream:
            await read_until(stream.aiter_lines(), lambda e: kind(e) == "Snapshot")
            assert len(room.fanout.subscribers) == 1
        async with http.stream("GET", "/bot/stream/event", headers=game.white.auth) as stream:
            await wait_until(lambda: site.services.bot_events.online(game.white.id), "the account stream", 5)
        await wait_until(
            lambda: not room.fanout.subscribers and not site.services.bot_events.online(game.white.id),
            "the closed streams to be detached", 5,
        )
        assert room.game.seats["White"].connections == 0  # a stream is not a seat connection
