"""CORS against a real `playsite serve`, as a browser on another origin meets it: the origins an
operator allows (PLAY_CORS_ORIGINS) read every answer with credentials, errors included, and
their preflights are answered; any other origin gets no CORS header (its page cannot read the
answer); a wildcard never goes with credentials."""

from __future__ import annotations

import httpx
import pytest

from playsite.config import ConfigError, Settings
from tests.support.server import ServerProcess

SITE = "http://site.example:5173"
ELSEWHERE = "https://elsewhere.example"


@pytest.fixture(scope="module")
def http():
    server = ServerProcess({"PLAY_CORS_ORIGINS": f"https://other.example, {SITE}"}).start()
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        yield client
    server.close()


def cors_headers(answer: httpx.Response) -> dict[str, str]:
    return {name.lower(): value for name, value in answer.headers.items() if name.lower().startswith("access-control-")}


def preflight(http: httpx.Client, origin: str, method: str, path: str, headers: str = "content-type") -> httpx.Response:
    return http.options(
        path, headers={"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}
    )


@pytest.mark.parametrize(
    "method, path",
    [("POST", "/games"), ("POST", "/lobby/seeks"), ("DELETE", "/lobby/seeks/people-x?secret=s"),
     ("POST", "/lobby/play-bot"), ("POST", "/ingest/games"), ("POST", "/lobby/seeks/people-x/accept")],
)
def test_an_allowed_origins_preflight_is_answered_for_every_call_the_site_makes(http, method, path):
    answer = preflight(http, SITE, method, path)
    assert answer.status_code == 204
    headers = cors_headers(answer)
    assert headers["access-control-allow-origin"] == SITE
    assert headers["access-control-allow-credentials"] == "true"
    assert method in [m.strip() for m in headers["access-control-allow-methods"].split(",")]
    assert "content-type" in headers["access-control-allow-headers"].lower()
    assert int(headers["access-control-max-age"]) > 0
    assert "Origin" in answer.headers["Vary"]


def test_a_refused_origins_preflight_gets_no_cors_headers(http):
    answer = preflight(http, ELSEWHERE, "POST", "/games")
    assert answer.status_code == 204 and cors_headers(answer) == {}, "the browser then refuses to send the request"
    assert preflight(http, "null", "POST", "/games").headers.get("Access-Control-Allow-Origin") is None


@pytest.mark.parametrize("path", ["/games", "/lobby/seeks", "/lobby/bots", "/health", "/games/nope", "/no/such/route"])
def test_an_allowed_origin_reads_answers_and_errors_with_credentials(http, path):
    answer = http.get(path, headers={"Origin": SITE})
    assert answer.headers["Access-Control-Allow-Origin"] == SITE, f"{path} -> {answer.status_code}"
    assert answer.headers["Access-Control-Allow-Credentials"] == "true"
    assert "Origin" in answer.headers["Vary"], "a cache must not hand one origin's answer to another"


def test_a_write_from_an_allowed_origin_is_readable_there(http):
    answer = http.post("/games", json={"white": "0" * 8 + "-0000-4000-8000-" + "0" * 12, "black": "1" * 8 + "-0000-4000-8000-" + "0" * 12},
                       headers={"Origin": SITE})
    assert answer.status_code == 201
    assert answer.headers["Access-Control-Allow-Origin"] == SITE


def test_another_origin_gets_nothing_it_could_read(http):
    for path in ("/games", "/lobby/seeks", "/games/nope"):
        answer = http.get(path, headers={"Origin": ELSEWHERE})
        assert cors_headers(answer) == {}, path


def test_a_wildcard_never_goes_with_credentials(http):
    """The published documents are readable from anywhere (`*`), without credentials; an allowed
    origin gets its own name back instead, with them."""
    anywhere = http.get("/specs/openapi.yaml", headers={"Origin": ELSEWHERE})
    assert anywhere.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in anywhere.headers
    allowed = http.get("/specs/openapi.yaml", headers={"Origin": SITE})
    assert allowed.headers["Access-Control-Allow-Origin"] == SITE
    assert allowed.headers["Access-Control-Allow-Credentials"] == "true"
    for path in ("/games", "/lobby/bots", "/health"):
        answer = http.get(path, headers={"Origin": SITE})
        assert answer.headers["Access-Control-Allow-Origin"] != "*"


def test_a_wildcard_is_not_an_origin_an_operator_can_allow():
    with pytest.raises(ConfigError, match="PLAY_CORS_ORIGINS"):
        Settings.from_environ({"PLAY_CORS_ORIGINS": "*"})
    with pytest.raises(ConfigError, match="PLAY_CORS_ORIGINS"):
        Settings.from_environ({"PLAY_CORS_ORIGINS": f"{SITE}/"})
