"""The Bot API's real answers against the dicechess-play ecosystem's published contract.

A running `playsite serve` is asked for what a bot author meets first: its identity (the
token response, the account, its public name in a game), the verdict on a move (applied, and
each refusal the ecosystem names), and the `Rejected` line a refusal puts on the game
streams. Every answer must validate against the ecosystem's schemas, read in place from
../shared/reference (skipped when it is absent), and have the forms the ecosystem describes
there: the external id of its example, the refusal reasons its 409 lists, a `Rejected` with
a version above every event before it, on every stream of the game. docs/bots/compatibility.md
lists what is deliberately different.
"""

from __future__ import annotations

import contextlib
import json
import random
import re

import httpx
import pytest
import trio

from tests.support.lobby_api import FAST_GAMES
from tests.support.reference import ASYNCAPI, OPENAPI, REFERENCE, reference  # noqa: F401 (the fixture)
from tests.support.turns import random_turn
from tests.support.waiting import deadline

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is absent")

MOVE = "/bot/game/{id}/move"


@pytest.fixture(scope="module")
def published():
    """The ecosystem's openapi document itself, for what its descriptions say."""
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((REFERENCE / "openapi.yaml").read_text(encoding="utf-8"))


def example_external_id(published) -> str:
    """The external id the ecosystem gives as its example (`bot:team:anon:mybot-…`)."""
    description = published["components"]["schemas"]["TokenResponse"]["properties"]["id"]["description"]
    return re.search(r"(bot:\S+?)\.?$", description).group(1)


def refusal_reasons(published) -> set[str]:
    """The refusals the ecosystem's 409 names, each in backticks."""
    return set(re.findall(r"`([^`]+)`", published["paths"][MOVE]["post"]["responses"]["409"]["description"]))


def auth(bot: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {bot['token']}"}


async def lines_of(stack: contextlib.AsyncExitStack, http: httpx.AsyncClient, path: str, bot: dict):
    response = await stack.enter_async_context(http.stream("GET", path, headers=auth(bot)))
    assert response.status_code == 200
    return response.aiter_lines()


async def next_event(lines) -> dict:
    with trio.fail_after(10):
        async for line in lines:
            if line.strip():
                return json.loads(line)
    raise AssertionError("the stream ended")


async def events_until(lines, wanted) -> list[dict]:
    seen = []
    while not seen or not wanted(seen[-1]):
        seen.append(await next_event(lines))
    return seen


def version_of(event: dict) -> int:
    return next(iter(event.values()))["v"]


async def test_identity_shapes_match_the_ecosystem(serve, reference, published):  # noqa: F811
    example = example_external_id(published).split(":")
    server = serve(FAST_GAMES)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        for label, slug in (("MyBot", "mybot"), ("x" * 40, "x" * 23), ("My Bot!", "my-bot")):
            minted = await http.post("/bot/anon", params={"name": label})
            assert minted.status_code == 201, (label, minted.text)
            body = minted.json()
            reference(OPENAPI, "/components/schemas/TokenResponse", body)
            assert body["name"].rsplit("-", 1)[0] == slug, "a name is made a slug, as the ecosystem does"
            ours = body["id"].split(":")
            assert len(ours) == len(example) and ours[:2] == example[:2] == ["bot", "team"]
            assert body["id"] == f"bot:team:{body['team']}:{body['name']}"
            account = (await http.get("/bot/account", headers=auth(body))).json()
            reference(OPENAPI, "/components/schemas/Account", account)
            assert account["id"] == body["id"]
        registered = await http.post("/bot/register", json={"team": "acme", "name": "alice"})
        assert registered.status_code == 201
        alice = registered.json()
        reference(OPENAPI, "/components/schemas/TokenResponse", alice)
        assert alice["id"] == "bot:team:acme:alice"

        # A challenge reaches alice's account stream with the challenger as a Principal, and
        # the game shows both bots by their team-qualified names, "team name".
        rustam = (await http.post("/bot/anon", params={"name": "rustam"})).json()
        async with contextlib.AsyncExitStack() as stack:
            account_lines = await lines_of(stack, http, "/bot/stream/event", alice)
            with trio.fail_after(10):
                assert await account_lines.__anext__() == "", "a blank first line: the subscription is live"
            created = await http.post("/bot/challenge", json={"team": "acme", "name": "alice"}, headers=auth(rustam))
            assert created.status_code == 201
            received = await next_event(account_lines)
            reference(ASYNCAPI, "/components/messages/ChallengeReceived/payload", received)
            assert received["ChallengeReceived"]["challenger"] == {"Bot": {"team": "anon", "name": rustam["name"]}}
        challenge_id = created.json()["id"]
        accepted = await http.post(f"/bot/challenge/{challenge_id}/accept", headers=auth(alice))
        game_id = accepted.json()["gameId"]
        state = (await http.get(f"/games/{game_id}")).json()
        reference(OPENAPI, "/components/schemas/PublicGameState", state)
        reference(OPENAPI, "/components/schemas/Players", state["players"])
        assert {face["name"] for face in state["players"].values()} == {"acme alice", f"anon {rustam['name']}"}
        listed = (await http.get("/games")).json()["games"]
        for game in listed:
            reference(OPENAPI, "/components/schemas/PublicGame", game)
        assert any(g["gameId"] == game_id and g["players"] == state["players"] for g in listed)


async def test_verdicts_and_rejected_match_the_ecosystem(serve, reference, published):  # noqa: F811
    reasons = refusal_reasons(published)
    assert {"not your turn", "illegal turn", "game is over"} <= reasons, reasons
    server = serve(FAST_GAMES)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        white, black, watcher = [(await http.post("/bot/anon", params={"name": n})).json() for n in ("w", "b", "v")]
        created = (await http.post("/bot/challenge", json={"team": "anon", "name": black["name"]}, headers=auth(white)))
        game_id = (await http.post(f"/bot/challenge/{created.json()['id']}/accept", headers=auth(black))).json()["gameId"]
        bots = {"White": white, "Black": black}
        move = f"/bot/game/{game_id}/move"
        with deadline(10, "the first roll"):
            while not (moves := (await http.get(f"/games/{game_id}/moves")).json())["dicePending"]:
                await trio.sleep(0.02)
        mover = (await http.get(f"/games/{game_id}")).json()["activeSeat"]
        waiting = "Black" if mover == "White" else "White"

        async with contextlib.AsyncExitStack() as stack:
            streams = {
                who: await lines_of(stack, http, f"/bot/game/stream/{game_id}", bot)
                for who, bot in (("mover", bots[mover]), ("waiting", bots[waiting]), ("watcher", watcher))
            }
            last_v = {}
            for who, lines in streams.items():
                snapshot = await next_event(lines)
                reference(ASYNCAPI, "/components/messages/Snapshot/payload", snapshot)
                last_v[who] = version_of(snapshot)

            async def refused(bot: dict, moves_sent: list[str], reason: str) -> None:
                answer = await http.post(move, json={"moves": moves_sent}, headers=auth(bot))
                assert answer.status_code == 409, answer.text
                verdict = answer.json()
                reference(OPENAPI, "/components/schemas/MoveVerdict", verdict)
                assert (verdict["applied"], verdict["version"], verdict["reason"]) == (False, None, reason)
                assert verdict["reason"] in reasons
                seat = mover if bot is bots[mover] else waiting
                for who, lines in streams.items():
                    event = await next_event(lines)
                    reference(ASYNCAPI, "/components/messages/Rejected/payload", event)
                    rejected = event["Rejected"]
                    assert rejected["seat"] == seat and rejected["reason"].startswith(reason), who
                    assert rejected["v"] > last_v[who], "a client dropping v <= the last it saw keeps it"
                    last_v[who] = rejected["v"]

            await refused(bots[waiting], random_turn(moves["legalMoves"], random.Random(1)), "not your turn")
            await refused(bots[mover], ["a1a8"], "illegal turn")
            assert len(set(last_v.values())) == 1, "every stream saw the same versions"
            assert (await http.get(f"/games/{game_id}")).json()["version"] == last_v["mover"], "a committed version"

            turn = random_turn(moves["legalMoves"], random.Random(2))
            applied = await http.post(move, json={"moves": turn}, headers=auth(bots[mover]))
            assert applied.status_code == 200
            verdict = applied.json()
            reference(OPENAPI, "/components/schemas/MoveVerdict", verdict)
            played = (await events_until(streams["watcher"], lambda e: "TurnPlayed" in e))[-1]
            reference(ASYNCAPI, "/components/messages/TurnPlayed/payload", played)
            assert verdict == {"applied": True, "version": played["TurnPlayed"]["v"], "reason": None}
            assert played["TurnPlayed"]["v"] == last_v["watcher"] + 1

        assert (await http.post(f"/bot/game/{game_id}/resign", headers=auth(bots[waiting]))).status_code == 202
        with deadline(10, "the resignation to end the game"):
            while (over := await http.post(move, json={"moves": turn}, headers=auth(bots[mover]))).json()[
                "reason"
            ] != "game is over":
                await trio.sleep(0.05)
        assert over.status_code == 409
        reference(OPENAPI, "/components/schemas/MoveVerdict", over.json())
        assert over.json() == {"applied": False, "version": None, "reason": "game is over"}
