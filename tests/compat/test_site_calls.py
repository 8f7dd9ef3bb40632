"""The ecosystem's web site against a real `playsite serve` (PostgreSQL, house bots): every call
the site's API client makes, made as it makes it (the same URL, method, headers and body,
from the site's own origin, as a browser sends it), and every answer checked for the keys the
site's types declare. The site's sockets are opened as it opens them: a seat with its token
alone (no `guest`, no session), watching with a bare `/ws`.

The key sets below are the site's declared types, restated (docs/bots/compatibility.md lists
what still differs).
"""

from __future__ import annotations

import json
import random
import uuid

import httpx
import pytest
import trio
from trio_websocket import open_websocket_url

from tests.support.database import migrate
from tests.support.documented import Documented
from tests.support.server import ServerProcess
from tests.support.turns import king_sparing_turn
from tests.support.waiting import deadline

SITE = "http://site.example:5173"
"""The site's own origin, the one PLAY_CORS_ORIGINS allows here."""
JSON = {"content-type": "application/json"}
FISCHER_3_2 = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}
FRAME_WAIT_S = 10
GAMES_PAGE = 20
"""Games per page of a guest's history."""

# The site's types (declared keys; `?` ones are optional there and checked when playsite sends them).
CREATE_GAME_RESPONSE = {"gameId", "commit", "tokens"}
SEAT_TOKEN = {"seat", "token"}
PUBLIC_GAME_STATE = {"version", "dfen", "activeSeat", "dicePending", "status", "clocks", "players"}
PUBLIC_PLAYER = {"kind", "name"}
LIVE_GAMES = {"games", "total"}
LIVE_GAME = {"gameId", "players", "timeControl", "activeSeat", "dicePending", "clocks", "version", "dfen"}
SEEK = {"id", "timeControl", "kind", "name"}
CREATED_SEEK = {"seekId", "secret"}
SEEK_STATE = {"matched", "gameId", "token", "seat"}
SEEK_MATCH = {"gameId", "token", "seat"}
BOT_CATALOG = {"bots"}
CATALOG_BOT = {"team", "name", "rating", "rd", "provisional", "description", "available"}
WAKE_RESPONSE = {"alive", "busy"}
PLAY_BOT_MATCH = {"gameId", "token", "seat"}
GAME_HISTORY = {
    "gameId", "players", "rated", "timeControl", "result", "termination", "finishedAt", "initialDfen", "turns", "fairness",
}
HISTORY_TURN = {"turnNumber", "activeColor", "dice", "moves", "fenAfter"}
HISTORY_FAIRNESS = {"commit", "seed", "clientSeeds"}
PLAYER_GAMES_PAGE = {"games", "hasMore"}
PLAYER_GAME = {"gameId", "seat", "opponent", "result", "rated", "termination", "timeControl", "finishedAt"}
PLAYER_OPPONENTS = {"opponents"}
PLAYER_OPPONENT = {"opponent", "team", "botName", "games", "wins", "draws", "losses", "lastPlayedAt"}
LEADERBOARD = {"leaders"}
BOT_PROFILE = {
    "team", "name", "rating", "rd", "provisional", "onLadder", "games", "wins", "draws", "losses", "opponents", "recent",
}
EVENTS = {
    "Snapshot": {"v", "state", "history"},
    "DiceRolled": {"v", "seat", "dice", "dfen", "clocks"},
    "TurnPlayed": {"v", "seat", "moves", "fenAfter"},
    "GameEnded": {"v", "over"},
    "Rejected": {"v", "seat", "reason"},
}
SNAPSHOT_TURN = {"seat", "dice", "moves", "fenAfter"}
OVER = {"result", "termination"}


def has_keys(value: dict, keys: set[str], what: str) -> None:
    assert isinstance(value, dict), f"{what}: {value!r} is not an object"
    missing = keys - set(value)
    assert not missing, f"{what} lacks {sorted(missing)}: {value!r}"


@pytest.fixture(scope="module")
def server(pg_cluster):
    database_url = migrate(pg_cluster.create_database(f"t_{uuid.uuid4().hex[:16]}"))
    process = ServerProcess(
        {"DATABASE_URL": database_url, "DICE_SEED_WINDOW_MS": "0", "PLAY_CORS_ORIGINS": SITE, "PLAY_HOUSE_BOTS": "true",
         "PLAY_GAME_CREATIONS_PER_MINUTE": "1000", "PLAY_SOCKET_CONNECTS_PER_MINUTE": "1000"}
    ).start()
    yield process
    process.close()


class Site:
    """The site's API client, call for call: `fetch(url, {method, headers, body})` from its origin."""

    def __init__(self, server):
        self.server = server
        self.http = httpx.AsyncClient(base_url=server.base_url, timeout=15, headers={"Origin": SITE})

    async def call(self, method: str, path: str, body: dict | None = None) -> httpx.Response:
        content = None if body is None else json.dumps(body, separators=(",", ":"))  # JSON.stringify
        answer = await self.http.request(method, path, content=content, headers=JSON if body is not None else None)
        assert answer.headers.get("Access-Control-Allow-Origin") == SITE, f"{method} {path}: the site could not read it"
        return answer

    async def ok(self, method: str, path: str, body: dict | None = None, status: int = 200):
        answer = await self.call(method, path, body)
        assert answer.status_code == status, f"{method} {path} -> {answer.status_code} {answer.text}"
        return answer.json() if answer.content else None

    def socket(self, game_id: str, token: str | None):
        """liveApi.wsUrl: the token alone, or nothing at all to watch; opened by a page of the site."""
        query = f"?token={token}" if token else ""
        return open_websocket_url(f"{self.server.ws_url}/games/{game_id}/ws{query}", extra_headers=[("Origin", SITE)])


async def next_event(ws) -> tuple[str, dict]:
    with deadline(FRAME_WAIT_S, "the next game event"):
        frame = json.loads(await ws.get_message())
    (name, body), = frame.items()
    if name in EVENTS:
        has_keys(body, EVENTS[name], name)
    return name, body


async def events_until(ws, name: str) -> list[tuple[str, dict]]:
    seen = []
    while True:
        seen.append(await next_event(ws))
        if seen[-1][0] == name:
            return seen


def check_state(state: dict) -> None:
    has_keys(state, PUBLIC_GAME_STATE, "PublicGameState")
    for seat in ("white", "black"):
        has_keys(state["players"][seat], PUBLIC_PLAYER, "PublicPlayer")


async def test_a_friend_game_created_played_watched_and_listed_as_the_site_does(server):
    site, guest = Site(server), str(uuid.uuid4())
    created = await site.ok("POST", "/games", {"white": guest, "black": guest, "timeControl": FISCHER_3_2}, 201)
    has_keys(created, CREATE_GAME_RESPONSE, "CreateGameResponse")
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    for entry in created["tokens"]:
        has_keys(entry, SEAT_TOKEN, "SeatToken")
    assert set(tokens) == {"White", "Black"}
    game_id = created["gameId"]
    check_state(await site.ok("GET", f"/games/{game_id}"))
    listed = await site.ok("GET", "/games")
    has_keys(listed, LIVE_GAMES, "LiveGames")
    has_keys(next(game for game in listed["games"] if game["gameId"] == game_id), LIVE_GAME, "LiveGame")

    with deadline(30, "a friend game played over the site's sockets"):
        async with (
            site.socket(game_id, tokens["White"]) as white,
            site.socket(game_id, tokens["Black"]) as black,
            site.socket(game_id, None) as watcher,
        ):
            for ws in (white, black, watcher):
                name, snapshot = await next_event(ws)
                assert name == "Snapshot"
                check_state(snapshot["state"])
            await watcher.send_message(json.dumps({"Resign": {}}))
            assert (await events_until(watcher, "Error"))[-1][1]["reason"] == "spectators cannot send commands"
            seed = {"SubmitSeed": {"seed": "00112233445566778899aabbccddeeff"}}  # the site's hello
            await white.send_message(json.dumps(seed))
            await black.send_message(json.dumps(seed))
            rolled = (await events_until(white, "DiceRolled"))[-1][1]
            await {"White": white, "Black": black}[rolled["seat"]].send_message(json.dumps({"Resign": {}}))
            for ws in (white, black, watcher):
                ended = (await events_until(ws, "GameEnded"))[-1][1]
                has_keys(ended["over"], OVER, "Over")
    assert (await site.ok("GET", f"/games/{game_id}"))["status"] != {"Active": {}}


async def test_people_meet_through_a_seek_as_the_site_does(server):
    site, creator, accepter = Site(server), str(uuid.uuid4()), str(uuid.uuid4())
    seek = await site.ok("POST", "/lobby/seeks", {"creator": creator, "timeControl": FISCHER_3_2}, 201)
    has_keys(seek, CREATED_SEEK, "CreatedSeek")
    listed = await site.ok("GET", "/lobby/seeks")
    assert isinstance(listed, list)
    has_keys(next(entry for entry in listed if entry["id"] == seek["seekId"]), SEEK, "Seek")
    waiting = await site.ok("GET", f"/lobby/seeks/{seek['seekId']}?secret={seek['secret']}")
    has_keys(waiting, SEEK_STATE, "SeekState")
    assert waiting["matched"] is False
    match = await site.ok("POST", f"/lobby/seeks/{seek['seekId']}/accept", {"accepter": accepter}, 201)
    has_keys(match, SEEK_MATCH, "SeekMatch")
    matched = await site.ok("GET", f"/lobby/seeks/{seek['seekId']}?secret={seek['secret']}")
    has_keys(matched, SEEK_STATE, "SeekState")
    assert matched["matched"] is True and matched["gameId"] == match["gameId"] and matched["seat"] != match["seat"]
    with deadline(20, "both people seated over the site's sockets"):
        async with (
            site.socket(match["gameId"], match["token"]) as accepting,
            site.socket(matched["gameId"], matched["token"]) as creating,
        ):
            for ws in (accepting, creating):
                assert (await next_event(ws))[0] == "Snapshot"
            await accepting.send_message(json.dumps({"Resign": {}}))
            await events_until(creating, "GameEnded")
    other = await site.ok("POST", "/lobby/seeks", {"creator": str(uuid.uuid4())}, 201)
    cancelled = await site.call("DELETE", f"/lobby/seeks/{other['seekId']}?secret={other['secret']}")
    assert cancelled.status_code in (200, 204)
    assert all(entry["id"] != other["seekId"] for entry in await site.ok("GET", "/lobby/seeks"))


async def test_a_guest_plays_a_catalog_bot_then_browses_history_and_records(server):
    site, guest = Site(server), str(uuid.uuid4())
    catalog = await site.ok("GET", "/lobby/bots")
    has_keys(catalog, BOT_CATALOG, "BotCatalog")
    bot = next(card for card in catalog["bots"] if (card["team"], card["name"]) == ("house", "random"))
    has_keys(bot, CATALOG_BOT, "CatalogBot")
    has_keys(await site.ok("POST", "/lobby/bots/house/random/wake"), WAKE_RESPONSE, "WakeResponse")
    request = {"guestId": guest, "team": "house", "name": "random", "timeControl": FISCHER_3_2, "preferredColor": "White"}
    match = await site.ok("POST", "/lobby/play-bot", request, 201)
    has_keys(match, PLAY_BOT_MATCH, "PlayBotMatch")
    assert match["seat"] == "White"
    with deadline(20, "a bot game played over the site's socket"):
        async with site.socket(match["gameId"], match["token"]) as ws:
            name, snapshot = await next_event(ws)
            assert name == "Snapshot"
            await ws.send_message(json.dumps({"SubmitSeed": {"seed": "ffeeddccbbaa99887766554433221100"}}))
            # Play until both sides have played a turn of their own (a forced pass is not one:
            # before that a resignation is an abort), then resign at the next roll: a decided
            # game, lost.
            rng, played, state = random.Random(3), set(), snapshot["state"]
            white_to_play = state["dicePending"] and state["activeSeat"] == "White"
            roll = state["dfen"]  # the position and dice of White's roll
            while not (white_to_play and played == {"White", "Black"}):
                if white_to_play:
                    pending = await site.ok("GET", f"/games/{match['gameId']}/moves")
                    # A roll without moves is passed by the server in the same commit that rolls
                    # for Black: the pending tree is then Black's, and White waits for its next roll.
                    if pending["dfen"] == roll and pending["legalMoves"]:
                        turn = king_sparing_turn(pending["legalMoves"], pending["dfen"], "White", rng)
                        await ws.send_message(json.dumps({"SubmitTurn": {"moves": turn}}))
                name, event = await next_event(ws)
                assert name not in ("GameEnded", "Rejected"), event
                if name == "TurnPlayed" and event["moves"]:
                    played.add(event["seat"])
                white_to_play = name == "DiceRolled" and event["seat"] == "White"
                if white_to_play:
                    roll = event["dfen"]
            await ws.send_message(json.dumps({"Resign": {}}))
            await events_until(ws, "GameEnded")

    async def archived():
        answer = await site.call("GET", f"/games/{match['gameId']}/history")
        return answer.json() if answer.status_code == 200 else None

    with deadline(10, "the archive record"):
        while (history := await archived()) is None:
            await trio.sleep(0.05)
    has_keys(history, GAME_HISTORY, "GameHistory")
    has_keys(history["fairness"], HISTORY_FAIRNESS, "HistoryFairness")
    for turn in history["turns"]:
        has_keys(turn, HISTORY_TURN, "HistoryTurn")

    page = await site.ok("GET", f"/players/{guest}/games")
    has_keys(page, PLAYER_GAMES_PAGE, "PlayerGamesPage")
    assert page["hasMore"] is False and [game["gameId"] for game in page["games"]] == [match["gameId"]]
    game = page["games"][0]
    has_keys(game, PLAYER_GAME, "PlayerGame")
    assert (game["seat"], game["result"], game["timeControl"]) == ("White", "loss", "Fischer(180,2)")
    assert game["opponent"]["kind"] == "Bot"
    assert (await site.ok("GET", f"/players/{guest}/games?vs=human"))["games"] == []
    assert len((await site.ok("GET", f"/players/{guest}/games?vs=house/random&result=loss"))["games"]) == 1
    before = await site.ok("GET", f"/players/{guest}/games?before={game['finishedAt']}")
    assert before == {"games": [], "hasMore": False}, "the cursor is strict"
    opponents = await site.ok("GET", f"/players/{guest}/opponents")
    has_keys(opponents, PLAYER_OPPONENTS, "PlayerOpponents")
    for row in opponents["opponents"]:
        has_keys(row, PLAYER_OPPONENT, "PlayerOpponent")

    has_keys(await site.ok("GET", "/leaderboard"), LEADERBOARD, "Leaderboard")
    profile = await site.ok("GET", "/bots/house/random")
    has_keys(profile, BOT_PROFILE, "BotProfile")


async def test_a_guests_history_pages_by_the_oldest_game_shown(server):
    site, guest = Site(server), str(uuid.uuid4())
    finished = []
    with deadline(60, f"{GAMES_PAGE + 1} games against people, resigned at once"):
        for _ in range(GAMES_PAGE + 1):
            created = await site.ok("POST", "/games", {"white": guest, "black": str(uuid.uuid4())}, 201)
            tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
            async with site.socket(created["gameId"], tokens["White"]) as white, site.socket(created["gameId"], tokens["Black"]):
                assert (await next_event(white))[0] == "Snapshot"
                await white.send_message(json.dumps({"Resign": {}}))
                await events_until(white, "GameEnded")
            finished.append(created["gameId"])

    async def page(query: str = "") -> dict:
        with deadline(10, "every game in the guest's history"):
            while True:
                answer = await site.ok("GET", f"/players/{guest}/games{query}")
                if query or len(answer["games"]) == GAMES_PAGE:
                    return answer
                await trio.sleep(0.05)

    first = await page()
    assert first["hasMore"] is True and len(first["games"]) == GAMES_PAGE
    assert [game["gameId"] for game in first["games"]] == finished[::-1][:GAMES_PAGE], "newest first"
    assert all((game["seat"], game["result"], game["opponent"]) == ("White", "unknown", {"kind": "Human", "name": None})
               for game in first["games"]), "aborted: no result; a person is never named by id"
    rest = await page(f"?before={first['games'][-1]['finishedAt']}")
    assert rest == {"games": rest["games"], "hasMore": False} and [game["gameId"] for game in rest["games"]] == finished[:1]
    assert (await page("?vs=human&result=loss"))["games"] == [], "an aborted game is nobody's loss"
    assert len((await page("?vs=human"))["games"]) == GAMES_PAGE


async def test_bad_guest_history_reads_are_refused_as_such(server):
    site = Site(server)
    for path, code in [
        ("/players/not-a-uuid-nor-a-nickname/games", "invalid_guest_id"),  # a nickname has 3 to 20 characters
        (f"/players/{uuid.uuid4()}/games?vs=nobody", "invalid_request"),
        (f"/players/{uuid.uuid4()}/games?result=won", "invalid_request"),
        (f"/players/{uuid.uuid4()}/games?before=yesterday", "invalid_request"),
        ("/players/not-a-uuid/opponents", "invalid_guest_id"),
    ]:
        answer = await site.call("GET", path)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == code, (path, answer.text)
    unknown = await site.ok("GET", f"/players/{uuid.uuid4()}/games")
    assert unknown == {"games": [], "hasMore": False}, "a guest who never played has an empty history"
    nobody = await site.call("GET", "/players/not-a-uuid/games")  # a nickname, nobody's
    assert nobody.status_code == 404 and nobody.json()["error"]["code"] == "player_not_found", nobody.text


async def test_a_guest_history_needs_persistence(serve):
    server = serve({"PLAY_CORS_ORIGINS": SITE})
    answer = await Site(server).call("GET", f"/players/{uuid.uuid4()}/games")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "persistence_required"


async def test_the_ingest_call_is_declined_and_signed_out_claims_are_401(server):
    site = Site(server)
    report = {"id": str(uuid.uuid4()), "source": "playsite", "mode": "classic", "initial_fen": "x", "turns": [], "events": []}
    ingest = await site.call("POST", "/ingest/games", report)
    assert ingest.status_code == 422, "a permanent refusal: the site files the report as rejected"
    assert ingest.json()["error"]["code"] == "ingest_not_accepted"
    long_report = dict(report, turns=[{"turn_number": n, "active_color": "w", "dice": [1, 2, 3], "moves": ["e2e4"]} for n in range(300)])
    assert (await site.call("POST", "/ingest/games", long_report)).status_code == 422, "a long game is refused the same way"
    for method, body in (("GET", None), ("POST", {"guestId": str(uuid.uuid4())})):
        claims = await site.call(method, "/auth/me/guests", body)
        assert claims.status_code == 401 and claims.json()["code"] == "not_signed_in", "the site shows 'signed out'"


async def test_creating_a_game_with_guest_ids_checks_them(server):
    site = Site(server)
    guest = str(uuid.uuid4())
    for body, code in [
        ({"white": guest}, "invalid_request"),
        ({"white": guest, "black": "guest:" + guest}, "invalid_guest_id"),
        ({"white": 7, "black": guest}, "invalid_guest_id"),
    ]:
        answer = await site.call("POST", "/games", body)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == code, (body, answer.text)
    playsite_shape = await site.ok("POST", "/games", {"timeControl": FISCHER_3_2}, 201)
    assert {"seats", "spectatorWsUrl", "tokens"} <= set(playsite_shape), "both shapes in one answer"


async def test_the_answers_of_the_sites_calls_are_the_documented_ones(server, serve):
    """What playsite added for the site answers as specs/openapi.yaml says, errors included."""
    documented, site, guest = Documented(), Site(server), str(uuid.uuid4())
    checks = [
        ("post", "/games", await site.call("POST", "/games", {"white": guest, "black": guest, "timeControl": FISCHER_3_2})),
        ("post", "/games", await site.call("POST", "/games", {"timeControl": FISCHER_3_2})),
        ("post", "/games", await site.call("POST", "/games", {"white": guest, "black": "x"})),
        ("get", "/players/{guestId}/games", await site.call("GET", f"/players/{guest}/games?vs=human&result=win")),
        ("get", "/players/{guestId}/games", await site.call("GET", "/players/nobody/games")),  # a nickname, nobody's
        ("get", "/players/{guestId}/games", await site.call("GET", "/players/no%20body/games")),
        ("get", "/players/{guestId}/games", await site.call("GET", f"/players/{guest}/games?before=soon")),
        ("get", "/players/{guestId}/opponents", await site.call("GET", f"/players/{guest}/opponents")),
        ("get", "/players/{guestId}/opponents", await site.call("GET", "/players/nobody/opponents")),
        ("post", "/ingest/games", await site.call("POST", "/ingest/games", {"id": guest})),
        ("get", "/auth/me/guests", await site.call("GET", "/auth/me/guests")),
        ("post", "/auth/me/guests", await site.call("POST", "/auth/me/guests", {"guestId": guest})),
    ]
    without_database = Site(serve({"PLAY_CORS_ORIGINS": SITE}))
    checks.append(("get", "/players/{guestId}/games", await without_database.call("GET", f"/players/{guest}/games")))
    checks.append(("get", "/players/{guestId}/opponents", await without_database.call("GET", f"/players/{guest}/opponents")))
    for method, path, answer in checks:
        documented.check_http(method, path, answer)
    assert [answer.status_code for _, _, answer in checks] == [201, 201, 400, 200, 404, 400, 400, 200, 400, 422, 401, 401, 404, 404]
