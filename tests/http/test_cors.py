"""CORS against a real `playsite serve`, as a browser on another origin meets it: the origins an
operator allows (PLAY_CORS_ORIGINS) read every answer with credentials, errors included, and
their preflights are answered; any other origin gets no CORS header (its page cannot read the
answer) unless the operator lists `*`, which lets any page read without credentials; a
wildcard never goes with credentials."""

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


@pytest.fixture(scope="module")
def open_http():
    """A server whose operator lists `*` beside the site's origin."""
    server = ServerProcess({"PLAY_CORS_ORIGINS": f"*, {SITE}"}).start()
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        yield client
    server.close()


def test_with_a_listed_wildcard_any_page_reads_without_credentials(open_http):
    for path in ("/games", "/lobby/seeks", "/games/nope", "/specs/openapi.yaml"):
        answer = open_http.get(path, headers={"Origin": ELSEWHERE})
        headers = cors_headers(answer)
        assert headers["access-control-allow-origin"] == "*", path
        assert "access-control-allow-credentials" not in headers, f"{path}: a wildcard never goes with credentials"
        assert "Origin" in answer.headers["Vary"]
    flight = preflight(open_http, ELSEWHERE, "POST", "/games")
    assert flight.status_code == 204
    assert cors_headers(flight)["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in cors_headers(flight)
    assert "POST" in cors_headers(flight)["access-control-allow-methods"]
    created = open_http.post("/games", json={}, headers={"Origin": ELSEWHERE})
    assert created.status_code == 201 and created.headers["Access-Control-Allow-Origin"] == "*"


def test_with_a_listed_wildcard_the_exact_origins_keep_their_credentials(open_http):
    answer = open_http.get("/games", headers={"Origin": SITE})
    assert answer.headers["Access-Control-Allow-Origin"] == SITE
    assert answer.headers["Access-Control-Allow-Credentials"] == "true"
    forged = open_http.get("/games", headers={"Origin": "*"})
    assert forged.headers["Access-Control-Allow-Origin"] == "*", "`*` is no origin: it gets what any page gets"
    assert "Access-Control-Allow-Credentials" not in forged.headers
    assert cors_headers(open_http.get("/games")) == {}, "no Origin (not a browser's cross-origin call): nothing to grant"


def test_the_wildcard_is_read_apart_from_the_origins_and_opens_no_session_write():
    settings = Settings.from_environ({"PLAY_CORS_ORIGINS": f"*, {SITE}"})
    assert settings.cors_any_origin is True
    assert settings.cors_origins == (SITE,), "session writes and sockets go by the exact origins alone"
    assert ("PLAY_CORS_ORIGINS", f"*,{SITE}") in settings.effective()
    only_wildcard = Settings.from_environ({"PLAY_CORS_ORIGINS": "*"})
    assert only_wildcard.cors_origins == () and only_wildcard.cors_any_origin
    assert not Settings.from_environ({}).cors_any_origin, "closed unless the operator opens it"
    with pytest.raises(ConfigError, match="PLAY_CORS_ORIGINS"):
        Settings.from_environ({"PLAY_CORS_ORIGINS": f"{SITE}/"})
    with pytest.raises(ConfigError, match="PLAY_CORS_ORIGINS"):
        Settings.from_environ({"PLAY_CORS_ORIGINS": "https://*.example"})
