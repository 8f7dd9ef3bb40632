"""A real `playsite serve` process boots, answers over a real socket and shuts down cleanly."""

from __future__ import annotations

import resource
import signal
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from playsite.http.listening import ACCEPT_QUEUES
from playsite.store.migrations import apply_pending, load_migrations


def test_serve_answers_health_and_version_then_stops_on_sigterm(serve):
    server = serve()
    health = httpx.get(f"{server.base_url}/health", timeout=10)
    assert health.status_code == 200
    assert health.json() == {
        "status": "ok",
        "store": {"kind": "memory", "durable": False, "reachable": True},
    }
    version = httpx.get(f"{server.base_url}/version", timeout=10).json()
    assert version["name"] == "playsite" and version["version"]
    assert server.stop() == 0
    assert "playsite: SIGTERM received, shutting down" in server.output()
    assert "Traceback" not in server.output()


def test_serve_stops_cleanly_on_sigint(serve):
    server = serve()
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(15) == 0
    assert "Traceback" not in server.output()


def test_a_second_signal_during_shutdown_still_exits_cleanly(serve):
    server = serve()
    server.process.send_signal(signal.SIGTERM)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(15) == 0
    assert "Traceback" not in server.output()


def _listening_sockets(port: int) -> int:
    """Sockets in the LISTEN state on `port` of 127.0.0.1 (/proc/net/tcp: local address in hex,
    state 0A)."""
    local = f"0100007F:{port:04X}"
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1] == local and row.split()[3] == "0A")


def test_serve_listens_with_several_accept_queues_and_refuses_a_second_server_on_its_port(serve):
    server = serve()
    assert _listening_sockets(server.port) == ACCEPT_QUEUES
    assert server.output().count("playsite: listening on") == 1
    assert server.output().count(f"Running on http://127.0.0.1:{server.port}") == 1  # hypercorn's, once
    with pytest.raises(RuntimeError) as caught:
        serve({"PLAY_PORT": str(server.port)})
    assert "server exited with 3" in str(caught.value)
    assert f"playsite: cannot listen on 127.0.0.1:{server.port}: Address already in use" in str(caught.value)
    assert "Traceback" not in str(caught.value)
    # The first server still holds every queue, and answers.
    assert _listening_sockets(server.port) == ACCEPT_QUEUES
    assert httpx.get(f"{server.base_url}/health", timeout=10).status_code == 200
    assert server.stop() == 0
    assert _listening_sockets(server.port) == 0


def test_serve_raises_its_open_files_limit_to_the_hard_limit(serve):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard > 512, "the test needs a hard limit above the soft one it starts the server with"
    server = serve(open_files=512)
    limits = Path(f"/proc/{server.process.pid}/limits").read_text()
    soft_now = next(line.split()[3] for line in limits.splitlines() if line.startswith("Max open files"))
    assert int(soft_now) == hard
    assert f"playsite: open files limit {hard} (raised from 512)" in server.output()
    assert server.stop() == 0


def test_serve_prints_effective_configuration_with_secrets_redacted(serve):
    server = serve({"ANALYTICS_TOKEN": "never-print-me", "PLAY_PROT": "9000"})
    output = server.output()
    assert "WARNING playsite: PLAY_PROT is not a setting of playsite (misspelt?): ignored" in output
    assert "PLAY_PORT=0" in output and "ANALYTICS_TOKEN=<redacted>" in output
    assert "never-print-me" not in output
    # without a database it says so, as a warning (ops review s74: it said only DATABASE_URL=(unset))
    assert "WARNING playsite: no DATABASE_URL: games, accounts and ratings are kept in this process's memory only" in output


def test_serve_refuses_an_unmigrated_database(serve, database_url):
    with pytest.raises(RuntimeError) as caught:
        serve({"DATABASE_URL": database_url})
    assert "database schema is behind" in str(caught.value)
    assert "run `playsite migrate`" in str(caught.value)
    assert "Traceback" not in str(caught.value)


def test_serve_reports_an_unreachable_database_clearly(serve, pg_cluster):
    url = f"postgresql://postgres:sekrit@127.0.0.1:{pg_cluster.port + 1}/nowhere"
    with pytest.raises(RuntimeError) as caught:
        serve({"DATABASE_URL": url})
    message = str(caught.value)
    assert "cannot reach PostgreSQL" in message
    assert "sekrit" not in message and "Traceback" not in message


def test_serve_with_migrated_database_reports_postgres_health(serve, database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    server = serve({"DATABASE_URL": database_url})
    health = httpx.get(f"{server.base_url}/health", timeout=10).json()
    assert health == {"status": "ok", "store": {"kind": "postgres", "durable": True, "reachable": True}}
    assert server.stop() == 0


def test_unknown_paths_methods_and_huge_bodies_get_json_errors(serve):
    server = serve()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        missing = http.get("/games/no/such/thing")  # inside an API family: its JSON 404
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
        page = http.get("/no/such/thing")  # outside every family: the web client's not-found page
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        wrong = http.post("/health", json={"x": 1})
        assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"
        huge = http.post("/games", content=b"{" + b" " * (70 * 1024) + b"}", headers={"Content-Type": "application/json"})
        assert huge.status_code == 413 and huge.json()["error"]["code"] == "request_too_large"
        # a plain GET to the game socket's address (play-through s62: werkzeug's "The browser (or
        # proxy) sent a request that this server could not understand.")
        plain = http.get(f"/games/{uuid.uuid4()}/ws")
        assert plain.status_code == 426 and plain.headers["upgrade"] == "websocket", plain.text
        assert plain.json()["error"] == {"code": "upgrade_required",
                                         "message": "this address is a WebSocket: connect with a WebSocket client"}
    assert "Traceback" not in server.output()


def test_an_answer_without_a_body_says_no_content_type(serve):
    """On the wire (quart's own test client adds a default type back, so a real server): a 204
    or 202 says no Content-Type, where quart would label the empty body text/html."""
    server = serve()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        seek = http.post("/lobby/seeks", json={"creator": "0b5e6a8c-4f7e-4a55-9d51-3a0f3d1b2c44"})
        assert seek.status_code == 201, seek.text
        body = seek.json()
        cancelled = http.delete(f"/lobby/seeks/{body['seekId']}", params={"secret": body["secret"]})
        assert cancelled.status_code == 204 and "content-type" not in cancelled.headers, cancelled.headers
        bot = http.post("/bot/anon").json()
        assert http.get("/health").headers["content-type"].startswith("application/json")
        options = http.options("/bot/games")
        assert options.content == b"" and "content-type" not in options.headers, options.headers
        # a 202 with no body: a bot resigns a game it plays (challenged by a second bot)
        other = http.post("/bot/anon").json()
        auth = {"Authorization": f"Bearer {bot['token']}"}
        challenge = http.post("/bot/challenge", json={"team": "anon", "name": other["name"]}, headers=auth).json()
        accepted = http.post(f"/bot/challenge/{challenge['id']}/accept",
                             headers={"Authorization": f"Bearer {other['token']}"}).json()
        resigned = http.post(f"/bot/game/{accepted['gameId']}/resign", headers=auth)
        assert resigned.status_code == 202 and "content-type" not in resigned.headers, resigned.headers


def test_serve_boots_every_optional_loop_on_postgres(serve, database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    server = serve(
        {
            "DATABASE_URL": database_url,
            "RATING_BATCH_ENABLED": "true",
            "LADDER_SCHEDULER_ENABLED": "true",
            "RETENTION_ENABLED": "true",
            "WEBHOOK_PUSH_ENABLED": "true",
            "ANALYTICS_INGEST_ENABLED": "true",
            "ANALYTICS_URL": "http://127.0.0.1:9",
        }
    )
    assert httpx.get(f"{server.base_url}/health", timeout=10).json()["status"] == "ok"
    leaderboard = httpx.get(f"{server.base_url}/leaderboard", timeout=10)
    assert leaderboard.status_code == 200
    assert server.stop() == 0
    assert "Traceback" not in server.output()
