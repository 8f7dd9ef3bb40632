"""The strength reads and the wake answer against the dicechess-play ecosystem's published
contract (read in place from ../shared/reference; skipped when it is absent): real answers of
the app, from rated games between registered bots written through the store, must validate
against `StrengthReportResponse`, `BotStrengthProfile` and `Wake`. docs/bots/compatibility.md
lists what is deliberately different.
"""

from __future__ import annotations

import contextlib
import json

import pytest

from playsite.config import Settings
from playsite.strength.stats import SprtVerdict
from playsite.wire import Unlimited
from tests.support.app import booted, test_client
from tests.support.reference import OPENAPI, REFERENCE, reference  # noqa: F401 (the fixture)
from tests.support.strength import finish, play_results

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is absent")

REPORT = "/components/schemas/StrengthReportResponse"
PROFILE = "/components/schemas/BotStrengthProfile"
WAKE = "/components/schemas/Wake"


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


async def body_of(response) -> dict:
    """The answer's JSON, read strictly: NaN and Infinity are not JSON, whatever Python's parser allows."""
    assert response.content_type.startswith("application/json")
    return json.loads(await response.get_data(as_text=True), parse_constant=_no_constant)


@contextlib.asynccontextmanager
async def running(*, house: bool = False):
    async with booted(Settings(dice_seed_window_ms=0), house=house) as services:
        yield services, test_client(services)


async def register(services, *bot_ids: str) -> None:
    for bot_id in bot_ids:
        account, _ = await services.bots.register(*bot_id.split("/"))
        await services.bots.update(account, open_to_humans=True)


async def test_the_empty_report_and_profile_match_the_reference(reference, autojump_clock):  # noqa: F811
    async with running() as (services, client):
        await register(services, "acme/alice")
        await services.strength.refresh()
        response = await client.get("/strength")
        assert response.status_code == 200
        report = await body_of(response)
        reference(OPENAPI, REPORT, report)
        assert report == {"pairwise": [], "ranking": [], "completePairs": 0, "singles": 0, "excludedRows": 0}
        response = await client.get("/bots/acme/alice/strength")
        assert response.status_code == 200
        reference(OPENAPI, PROFILE, await body_of(response))


async def test_a_report_of_rated_bot_games_matches_the_reference(reference, autojump_clock):  # noqa: F811
    async with running() as (services, client):
        await register(services, "acme/alice", "acme/bob", "zen/carol", "zen/dave")
        store = services.store
        await play_results(store, "bot:acme/alice", "bot:acme/bob", wins=40, draws=2, losses=3)  # a clear verdict
        await play_results(store, "bot:acme/bob", "bot:zen/carol", wins=10, draws=10, losses=30)  # weaker, clearly
        await play_results(store, "bot:zen/carol", "bot:acme/alice", draws=1)  # one game: no verdict yet
        await play_results(store, "bot:zen/dave", "bot:zen/carol", wins=6)  # won every game
        await finish(store, "bot:acme/alice", "user:1b7c0a3e-3c63-4b6c-9d7e-0a4b0f3d2c11", 1)  # a person
        await finish(store, "bot:acme/alice", "bot:acme/bob", None)  # aborted
        await finish(store, "bot:zen/dave", "bot:zen/dave", 1)  # self-play
        await services.strength.refresh()

        response = await client.get("/strength")
        assert response.status_code == 200
        report = await body_of(response)
        reference(OPENAPI, REPORT, report)
        assert (report["singles"], report["excludedRows"], report["completePairs"]) == (102, 3, 0)
        verdicts = {(m["perspective"], m["opponent"]): m["result"]["verdict"] for m in report["pairwise"]}
        assert set(verdicts.values()) == {SprtVerdict.ACCEPT_H1, SprtVerdict.ACCEPT_H0, SprtVerdict.CONTINUE}
        ranking = report["ranking"]
        assert sorted(row["player"] for row in ranking) == ["acme alice", "acme bob", "zen carol", "zen dave"]
        assert [row["elo"] for row in ranking] == sorted((row["elo"] for row in ranking), reverse=True)
        assert ranking[-1]["losVsNext"] is None and all(0 <= row["losVsNext"] <= 1 for row in ranking[:-1])
        assert all(row["ciLow"] <= row["elo"] <= row["ciHigh"] for row in ranking)

        for team, name in (("acme", "alice"), ("acme", "bob"), ("zen", "carol"), ("zen", "dave")):
            response = await client.get(f"/bots/{team}/{name}/strength")
            assert response.status_code == 200
            profile = await body_of(response)
            reference(OPENAPI, PROFILE, profile)
            public = f"{team} {name}"
            assert profile["pairwise"] == [m for m in report["pairwise"] if public in (m["perspective"], m["opponent"])]


async def test_wake_answers_match_the_reference(reference, autojump_clock):  # noqa: F811
    async with running(house=True) as (services, client):
        await register(services, "acme/alice", "acme/busy")
        busy = services.bots.get("acme/busy")
        await services.bots.update(busy, max_concurrent_games=1)
        stranger, _ = services.bots.mint_anonymous("stranger")
        await services.bot_games.start(white=stranger, black=busy, time_control=Unlimited(), rated=False, origin="challenge")
        answers = {}
        for team, name in (("acme", "alice"), ("acme", "busy"), ("house", "random")):
            response = await client.post(f"/lobby/bots/{team}/{name}/wake")
            assert response.status_code == 200
            answers[name] = await body_of(response)
            reference(OPENAPI, WAKE, answers[name])
        assert answers == {
            "alice": {"alive": False, "busy": False},  # no stream, no webhook
            "busy": {"alive": False, "busy": True},
            "random": {"alive": True, "busy": False},
        }
