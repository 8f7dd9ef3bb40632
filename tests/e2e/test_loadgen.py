"""The load generator (tools/loadgen.py) and its WebSocket client (tools/wsclient.py) against
a real `playsite serve`: games are played and measured, the transport mode delivers frames, the
relay mode answers a game's traffic, and the client reports refusals and close codes as the
server sends them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import trio
from prometheus_client.parser import text_string_to_metric_families

from tests.support.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
LOADGEN = ROOT / "tools" / "loadgen.py"
OPEN_LIMITS = {
    "DICE_SEED_WINDOW_MS": "0",
    "PLAY_GAME_CREATIONS_PER_MINUTE": "10000",
    "PLAY_SOCKET_CONNECTS_PER_MINUTE": "10000",
    "PLAY_SPECTATORS_PER_ADDRESS": "1000",
}


wsclient = load_tool("wsclient")


def loadgen(*args: str) -> dict:
    finished = subprocess.run(
        [sys.executable, str(LOADGEN), *args, "--clients", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout.splitlines()[0])


def test_the_load_generator_plays_measured_games_on_a_real_server(serve):
    server = serve({**OPEN_LIMITS, "PLAY_METRICS_TOKEN": "bench-token"})
    summary = loadgen(
        "--url", server.base_url, "--server-pid", str(server.process.pid),
        "--games", "4", "--spectators", "1", "--think", "0.05", "--duration", "4", "--metrics-token", "bench-token",
    )
    assert summary["errors"] == {} and summary["closes"] == {}
    assert summary["sockets"] == 12 and summary["rate_per_s"] > 0
    assert summary["verdict_ms"]["p50"] is not None and summary["broadcast_ms"]["p50"] is not None
    assert 0 < summary["verdict_ms"]["p50"] <= summary["verdict_ms"]["p99"] <= summary["verdict_ms"]["max"]
    assert summary["server_cpu_cores"] is not None and summary["server_rss_mib"] > 0
    # What the server timed itself over the same window, from its GET /metrics.
    verdict, tree_wait = summary["server"]["verdict"], summary["server"]["tree_wait"]
    assert verdict["count"] > 0 and tree_wait["count"] > 0 and verdict["mean_ms"] > 0
    assert float(verdict["p50_at_most_s"]) <= float(verdict["p99_at_most_s"])
    assert summary["server"]["database"] is None, "the memory store has no database calls to time"
    assert summary["gc"]["collections"] >= 0 and summary["gc"]["share_of_cpu"] is not None
    # Every message counted, and the server's CPU per message.
    assert summary["frames_per_s"] > summary["rate_per_s"] and summary["server_cpu_ms_per_frame"] > 0
    # The server's CPU over the clients' (both measured over the window), for comparing builds.
    assert summary["server_per_client_cpu"] == pytest.approx(
        summary["server_cpu_cores"] / summary["client_cpu_cores"], rel=0.2, abs=0.05
    )
    # Where a slow window came from: the server's loop lag, each client's own, the machine.
    stalls = summary["stalls"]
    assert stalls["server_loop_lag"]["wakeups"] > 0 and stalls["server_loop_lag"]["over_100ms"] >= 0
    (client,) = stalls["clients"]
    assert client["ticks"] > 0 and client["loop_lag_max_ms"] >= 0 and client["tune_ms"] > 0
    assert stalls["machine"]["busy_cores"] >= 0 and stalls["verdict_max_sent_at_s"] is not None


def test_the_server_loop_lag_is_read_over_the_window_only():
    loadgen_module = load_tool("loadgen")
    name = "playsite_event_loop_lag_seconds"

    def scraped(at_01: int, total: int, worst: float) -> dict:
        return {(f"{name}_bucket", "0.1"): at_01, (f"{name}_bucket", "+Inf"): total, (f"{name}_count", None): total,
                (f"{name}_sum", None): 0.0, ("playsite_event_loop_lag_max_seconds", None): worst}

    # Before the window a 3 s lag (boot); in it, 50 wake-ups, 2 of them over 100 ms.
    lag = loadgen_module.server_loop_lag(scraped(10, 10, 3.0), scraped(58, 60, 3.0))
    assert lag["wakeups"] == 50 and lag["over_100ms"] == 2
    assert lag["max_ms"] is None and lag["max_before_window_ms"] == 3000.0  # the worst was not in the window
    assert loadgen_module.server_loop_lag(scraped(10, 10, 0.2), scraped(58, 60, 2.2))["max_ms"] == 2200.0


def test_a_database_call_is_read_in_its_three_parts():
    loadgen_module = load_tool("loadgen")

    def scraped(calls: int, seconds: dict[str, float]) -> dict:
        found: dict = {}
        for part, total in seconds.items():
            name = f"playsite_database_{part}_seconds"
            found |= {(f"{name}_bucket", "0.005"): calls, (f"{name}_bucket", "+Inf"): calls,
                      (f"{name}_count", None): calls, (f"{name}_sum", None): total}
        return found

    before = scraped(10, {"wait": 0.01, "transaction": 0.02, "return": 0.01})
    after = scraped(110, {"wait": 0.11, "transaction": 0.32, "return": 0.21})
    before[("playsite_database_turn_writes_by_thread_total", None)] = 2
    after[("playsite_database_turn_writes_by_thread_total", None)] = 7
    assert loadgen_module.server_latencies(before, after)["turn_writes_by_thread"] == 5
    database = loadgen_module.server_latencies(before, after)["database"]
    assert database["wait"]["mean_ms"] == 1.0 and database["return"]["mean_ms"] == 2.0
    assert database["transaction"] == {"count": 100, "mean_ms": 3.0, "p50_at_most_s": "0.005", "p99_at_most_s": "0.005"}
    assert loadgen_module.server_latencies({}, {})["database"] is None


def trees_computed(server, token: str) -> dict[str, float]:
    response = httpx.get(f"{server.base_url}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    return {
        sample.labels["where"]: sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == "playsite_trees_total"
    }


@pytest.mark.parametrize("workers", [0, 2])
def test_games_are_played_with_trees_from_workers_or_from_the_serving_process(serve, workers):
    server = serve({**OPEN_LIMITS, "PLAY_METRICS_TOKEN": "bench-token", "PLAY_TREE_WORKERS": str(workers)})
    summary = loadgen(
        "--url", server.base_url, "--server-pid", str(server.process.pid),
        "--games", "3", "--spectators", "1", "--think", "0.05", "--duration", "3", "--metrics-token", "bench-token",
    )
    assert summary["errors"] == {} and summary["closes"] == {} and summary["rate_per_s"] > 0
    computed = trees_computed(server, "bench-token")
    # Every roll's tree, counted where it was computed (a pool may take a late one back).
    assert summary["server"]["trees"] > 0
    if workers:
        assert computed["worker"] > 0
    else:
        assert computed == {"worker": 0, "serving_process": computed["serving_process"]}
        assert computed["serving_process"] > 0
    assert server.stop() == 0 and "Traceback" not in server.output()


def test_a_server_histogram_is_read_over_the_window_only():
    loadgen_module = load_tool("loadgen")
    name = "playsite_turn_verdict_seconds"

    def scraped(at_001: int, at_01: int, total: int, seconds: float) -> dict:
        return {(f"{name}_bucket", "0.01"): at_001, (f"{name}_bucket", "0.1"): at_01,
                (f"{name}_bucket", "+Inf"): total, (f"{name}_count", None): total, (f"{name}_sum", None): seconds}

    # 100 observations before the window; in it, 60 under 10 ms, 39 more under 100 ms, 1 above.
    window = loadgen_module.histogram_window(scraped(100, 100, 100, 0.5), scraped(160, 199, 200, 5.5), name)
    assert window == {"count": 100, "mean_ms": 50.0, "p50_at_most_s": "0.01", "p99_at_most_s": "0.1"}
    assert loadgen_module.histogram_window(scraped(1, 1, 1, 0.1), scraped(1, 1, 1, 0.1), name) is None


def test_a_refused_frame_is_counted_by_its_kind_and_reason_not_by_its_move():
    refusal_kind = load_tool("loadgen").refusal_kind
    illegal = '{"Rejected":{"v":3,"seat":"White","reason":"illegal turn: e2e5 is not a legal pawn move from e2"}}'
    other = '{"Rejected":{"v":5,"seat":"Black","reason":"illegal turn: no die left for a knight move (b8c6)"}}'
    assert refusal_kind(illegal) == refusal_kind(other) == "Rejected: illegal turn"
    assert refusal_kind('{"Rejected":{"v":4,"seat":"Black","reason":"not your turn"}}') == "Rejected: not your turn"
    assert refusal_kind('{"Error":{"reason":"spectators cannot send commands"}}') == "Error: spectators cannot send commands"


def test_the_transport_mode_delivers_every_socket_its_frames():
    summary = loadgen("--transport-only", "--sockets", "20", "--period-ms", "100", "--duration", "3")
    assert summary["errors"] == {} and summary["closes"] == {}
    # 20 sockets x 10 frames/s for 3 s, less what a loaded machine delays past the window.
    assert summary["rate_per_s"] > 100
    assert summary["broadcast_ms"]["p50"] is not None


def test_the_relay_mode_answers_each_turn_with_two_frames_to_every_socket_of_its_group():
    summary = loadgen("--relay", "--games", "10", "--spectators", "3", "--think", "0.05", "--duration", "3",
                      "--frame-bytes", "4000")
    assert summary["mode"] == "relay" and summary["sockets"] == 50 and summary["frame_bytes"] == 4000
    assert summary["errors"] == {} and summary["closes"] == {}
    # Every turn is its seat's verdict once and two frames on each of the group's 5 sockets:
    # 10 a turn, but for the frames of turns sent before the window and read in it (or after).
    assert summary["rate_per_s"] > 30
    assert 9 <= summary["frames_per_s"] / summary["rate_per_s"] <= 11
    assert summary["verdict_ms"]["p50"] is not None and summary["broadcast_ms"]["p50"] is not None
    assert summary["server_cpu_ms_per_frame"] is not None


@pytest.fixture
def server(serve):
    return serve(OPEN_LIMITS)


async def test_a_refused_handshake_says_its_status(server):
    with pytest.raises(wsclient.Refused) as refused:
        await wsclient.Socket.connect(f"{server.ws_url}/games/00000000-0000-4000-8000-000000000000/ws?mode=spectator")
    assert refused.value.status == 404


async def test_the_client_reads_a_whole_game_and_the_close_code_that_ends_it(server):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        game = (await http.post("/games", json={"timeControl": {"Unlimited": {}}})).json()
    game_ws = f"{server.ws_url}/games/{game['gameId']}/ws"
    seats = {seat: f"{game_ws}?token={game['seats'][seat]['token']}&guest={guest}" for seat, guest in (
        ("white", "6f1d3c1e-2f43-4a9e-9a4e-1f6a0c2b7d11"), ("black", "0b6c7e7a-5a0e-4d0e-8f57-8d8f2f3a9c22"))}
    async with await wsclient.Socket.connect(f"{game_ws}?mode=spectator") as spectator:
        assert json.loads(await spectator.receive())["Snapshot"]["v"] == 0  # nobody has joined yet
        async with await wsclient.Socket.connect(seats["white"]) as white, \
                await wsclient.Socket.connect(seats["black"]) as black:
            assert "Snapshot" in json.loads(await white.receive())
            assert "Snapshot" in json.loads(await black.receive())
            await white.send(json.dumps({"Resign": {}}))
            with trio.fail_after(10):
                seen = []
                with pytest.raises(wsclient.Closed) as closed:
                    while True:
                        seen.append(next(iter(json.loads(await spectator.receive()))))
    assert seen[-1] == "GameEnded"
    assert closed.value.code == 1000


def test_a_child_that_exits_keeps_its_cpu_counted():
    """The CPU of the server's tree workers: one replaced mid-run must not take what it used with it."""
    loadgen_module = load_tool("loadgen")
    burn = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ninput()"
    child = subprocess.Popen([sys.executable, "-c", burn], stdin=subprocess.PIPE, text=True)
    try:
        view = loadgen_module.ProcView(os.getpid())
        deadline = time.monotonic() + 30
        while view.children_cpu_s() < 0.3:  # the child has burnt its CPU and waits on stdin
            assert time.monotonic() < deadline, "the child never showed its CPU"
            time.sleep(0.05)
        seen = view.children_cpu_s()
    finally:
        child.communicate("\n", timeout=30)
    assert child.returncode == 0
    assert view.children_cpu_s() >= seen >= 0.3
