"""playsite/http/routercycles.py matches every request exactly as werkzeug does, and leaves no
cycle doing it (tests/test_reference_cycles.py checks whole requests and games)."""

from __future__ import annotations

import gc

import pytest
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.routing.exceptions import RequestRedirect
from werkzeug.routing.matcher import StateMachineMatcher

from playsite.app import create_app
from playsite.config import Settings
from playsite.http.routercycles import CyclelessMatcher, install
from tests.support.app import booted

RULES = [
    Rule("/games", methods=["GET", "POST"], endpoint="games"),
    Rule("/games/<game_id>", methods=["GET"], endpoint="game"),
    Rule("/games/<game_id>/moves", methods=["GET"], endpoint="moves"),
    Rule("/games/<int:n>/n", methods=["GET"], endpoint="number"),
    Rule("/files/<path:rest>", endpoint="files"),
    Rule("/ws/<game_id>", websocket=True, endpoint="socket"),
    Rule("/dir/", endpoint="dir"),
    Rule("/loose/", strict_slashes=False, endpoint="loose"),
    Rule("/old", redirect_to="/games", endpoint="old"),
    Rule("/aliased", endpoint="games", alias=True),
]
PATHS = [
    "/games", "/games/", "/games/abc", "/games/abc/", "/games/abc/moves", "/games/12/n", "/games/x/n",
    "/files/a/b/c.txt", "/files/", "/ws/abc", "/dir", "/dir/", "/loose", "/loose/", "/old", "/aliased",
    "//games", "/games//abc", "/nowhere", "/", "",
]


def outcome(url_map: Map, path: str, method: str, websocket: bool) -> object:
    adapter = url_map.bind("localhost", url_scheme="ws" if websocket else "http")
    try:
        return adapter.match(path, method, websocket=websocket)
    except RequestRedirect as redirect:
        return ("redirect", redirect.new_url)
    except HTTPException as refusal:
        return (type(refusal).__name__, getattr(refusal, "valid_methods", None))


def maps(rules: list[Rule]) -> tuple[Map, Map]:
    werkzeugs = Map([rule.empty() for rule in rules])
    ours = Map([rule.empty() for rule in rules])
    assert install(ours)
    return werkzeugs, ours


@pytest.mark.parametrize("websocket", [False, True])
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE", "HEAD"])
def test_every_path_matches_as_werkzeug_matches_it(method, websocket):
    werkzeugs, ours = maps(RULES)
    assert isinstance(ours._matcher, CyclelessMatcher)
    for path in PATHS:
        assert outcome(ours, path, method, websocket) == outcome(werkzeugs, path, method, websocket), path


def answer(matcher: StateMachineMatcher, path: str, method: str, websocket: bool) -> object:
    try:
        rule, values = matcher.match("", path, method, websocket)
    except Exception as refusal:  # werkzeug's routing exceptions, compared by kind and content
        return type(refusal).__name__, vars(refusal)
    return rule.endpoint, values


async def test_the_apps_own_routes_match_as_werkzeug_matches_them():
    async with booted(Settings()) as services:
        rules = list(create_app(services).url_map.iter_rules())
    werkzeugs, ours = StateMachineMatcher(merge_slashes=True), CyclelessMatcher(merge_slashes=True)
    for matcher in (werkzeugs, ours):
        for rule in rules:
            matcher.add(rule)
        matcher.update()
    paths = [rule.rule.replace("<", "").replace(">", "") for rule in rules]
    for path in paths + [p + "/" for p in paths] + ["/no/such/route", "//games"]:
        for method in ("GET", "POST", "PUT"):
            for websocket in (False, True):
                assert answer(ours, path, method, websocket) == answer(werkzeugs, path, method, websocket), path


def test_a_match_leaves_no_cycle():
    _, ours = maps(RULES)
    adapter = ours.bind("localhost")
    adapter.match("/games/abc/moves")
    gc.collect()
    gc.disable()
    try:
        adapter.match("/games/abc/moves")
        with pytest.raises(HTTPException):
            adapter.match("/nowhere")
        assert gc.collect() == 0
    finally:
        gc.enable()
