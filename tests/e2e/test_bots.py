"""Whole bot games against a real `playsite serve`: the example bot in each mode, and the
ecosystem's polling flow (the anchor's random_bot example) reproduced request by request."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.anchor_client import AnchorFlowClient
from tests.support.turns import random_turn

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_BOT = ROOT / "tools" / "example_bot.py"
GAME_TIMEOUT_S = 120
SERVER_ENV = {"DICE_SEED_WINDOW_MS": "0", "WEBHOOK_PUSH_ENABLED": "true", "WEBHOOK_ALLOW_LOOPBACK": "true"}


def run_demo(server, mode: str) -> tuple[str, dict]:
    """`example_bot.py --demo --mode <mode>` to the end; (game id, final public state)."""
    finished = subprocess.run(
        [sys.executable, str(EXAMPLE_BOT), "--api", server.base_url, "--demo", "--mode", mode, "--tick", "0.05"],
        capture_output=True, text=True, timeout=GAME_TIMEOUT_S,
    )
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    assert "Traceback" not in finished.stderr, finished.stderr
    game_id = re.search(r"^game id: (\S+)", finished.stdout, re.M)[1]
    result = json.loads(re.search(r"^result: (.+)$", finished.stdout, re.M)[1])
    state = httpx.get(f"{server.base_url}/games/{game_id}", timeout=10).json()
    assert state["status"] == {"Ended": {"over": result}}
    assert result["termination"] in ("KingCaptured", "Draw")  # played to the end, nobody resigned
    return game_id, state


def assert_both_bots_played(server, game_id: str, state: dict) -> None:
    assert {face["kind"] for face in state["players"].values()} == {"Bot"}
    history = httpx.get(f"{server.base_url}/games/{game_id}/history", timeout=10)
    assert history.status_code == 200, history.text
    played = {turn["activeColor"] for turn in history.json()["turns"] if turn["moves"]}
    assert len(played) == 2, played


def test_two_example_bots_play_a_whole_game_by_polling(serve):
    server = serve(SERVER_ENV)
    game_id, state = run_demo(server, "poll")
    assert_both_bots_played(server, game_id, state)
    assert "Traceback" not in server.output()


def test_two_example_bots_play_a_whole_game_over_ndjson_streams(serve):
    server = serve(SERVER_ENV)
    game_id, state = run_demo(server, "stream")
    assert_both_bots_played(server, game_id, state)
    assert "Traceback" not in server.output()


def test_two_example_bots_play_a_whole_game_by_webhook(serve):
    server = serve(SERVER_ENV)
    probe = httpx.post(f"{server.base_url}/bot/webhook", json={"url": "http://127.0.0.1:9/"},
                       headers={"Authorization": "Bearer nobody"}, timeout=10)
    assert probe.status_code == 401, f"POST /bot/webhook must be mounted (401 for a bad token): {probe.status_code}"
    game_id, state = run_demo(server, "webhook")
    assert_both_bots_played(server, game_id, state)


def test_example_bot_plays_with_a_token_and_accepts_a_challenge(serve):
    """The non-demo options: --anon NAME --accept --games 1 in one process, a challenger in another."""
    server = serve(SERVER_ENV)
    accepter = subprocess.Popen(
        [sys.executable, str(EXAMPLE_BOT), "--api", server.base_url, "--anon", "acceptor", "--accept",
         "--games", "1", "--mode", "stream", "--tick", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        name = None
        deadline = time.monotonic() + 30
        while name is None and time.monotonic() < deadline:
            line = accepter.stdout.readline()
            if match := re.match(r"\[(anon/acceptor-[0-9a-f]+)\] playing", line):
                name = match[1]
        assert name, "the accepting bot did not start"
        token = httpx.post(f"{server.base_url}/bot/anon", params={"name": "challenger"}, timeout=10).json()["token"]
        challenger = subprocess.run(
            [sys.executable, str(EXAMPLE_BOT), "--api", server.base_url, f"--token={token}",  # a token may start with "-"
             "--challenge", name, "--games", "1", "--mode", "poll", "--tick", "0.05"],
            capture_output=True, text=True, timeout=GAME_TIMEOUT_S,
        )
        assert challenger.returncode == 0, challenger.stderr[-3000:]
        assert re.search(r"game \S+ over: ", challenger.stdout)
        out, err = accepter.communicate(timeout=GAME_TIMEOUT_S)
        assert accepter.returncode == 0, err[-3000:]
        assert re.search(r"game \S+ over: ", out)
    finally:
        if accepter.poll() is None:
            accepter.kill()
            accepter.wait()


# ----- the ecosystem's polling flow, as the anchor's CC0 random_bot example performs it --------


def test_the_anchor_example_polling_flow_plays_a_game_to_its_end(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "2000"})
    api = AnchorFlowClient(server.base_url)
    rng = random.Random(7)

    a = api("POST", "/bot/anon?name=rustam")
    b = api("POST", "/bot/anon?name=emilia")
    assert {"token", "team", "name", "id"} <= set(a) and a["team"] == "anon"

    challenge = api("POST", "/bot/challenge", a["token"], {"team": b["team"], "name": b["name"]})
    assert challenge["id"] and challenge["targetOnline"] is False
    incoming = api("GET", "/bot/challenges", b["token"])["in"]
    assert [c["id"] for c in incoming] == [challenge["id"]]
    game = api("POST", f"/bot/challenge/{incoming[0]['id']}/accept", b["token"])
    game_id = game["gameId"]

    seeds = {}
    for bot in (a, b):
        seeds[bot["name"]] = seed = "%032x" % rng.getrandbits(128)
        assert api("POST", f"/bot/game/{game_id}/seed", bot["token"], {"seed": seed}) == {"accepted": True, "reason": None}
        assert api.statuses[-1][2] == 202

    verdicts = []

    def one_tick(bot: dict) -> bool:
        games = api("GET", "/bot/games", bot["token"])["games"]
        for listed in games:
            if listed["dicePending"] and listed["activeSeat"] == listed["seat"]:
                tree = api("GET", f"/games/{listed['gameId']}/moves")["legalMoves"]
                turn = random_turn(tree, rng)
                if not turn:
                    continue
                verdicts.append(api("POST", f"/bot/game/{listed['gameId']}/move", bot["token"], {"moves": turn}))
        return bool(games)

    deadline = time.monotonic() + GAME_TIMEOUT_S
    while one_tick(a) | one_tick(b):
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.02)

    assert verdicts and all(set(v) == {"applied", "version", "reason"} for v in verdicts)
    assert any(v["applied"] for v in verdicts)
    move_statuses = {status for method, path, status in api.statuses if method == "POST" and path.endswith("/move")}
    assert move_statuses <= {200, 409}
    over = api("GET", f"/games/{game_id}")
    assert "status" in over and "Ended" in over["status"]
    assert len(over["commit"]) == 64 and len(over["seed"]) == 64
    assert over["clientSeeds"] == {"white": seeds[_seat_name(over, a, b, "white")],
                                   "black": seeds[_seat_name(over, a, b, "black")]}


def _seat_name(state: dict, a: dict, b: dict, colour: str) -> str:
    face = state["players"][colour]["name"]
    return a["name"] if face == f"{a['team']} {a['name']}" else b["name"]


def test_example_bot_finds_the_server_on_play_port_and_says_so_in_one_line_when_it_is_down(serve):
    server = serve(SERVER_ENV)
    env = {**os.environ, "PLAY_PORT": str(server.port)}
    found = subprocess.run(
        [sys.executable, str(EXAMPLE_BOT), "--demo", "--tick", "0.05"], capture_output=True, text=True,
        timeout=GAME_TIMEOUT_S, env=env,
    )
    assert found.returncode == 0, found.stderr[-3000:]
    server.kill()
    down = subprocess.run(
        [sys.executable, str(EXAMPLE_BOT), "--demo"], capture_output=True, text=True, timeout=60, env=env
    )
    assert down.returncode == 1 and "Traceback" not in down.stderr
    assert down.stderr.strip().splitlines() == [
        f"example_bot: cannot reach http://127.0.0.1:{server.port} (ConnectError); is `playsite serve` running?"
    ]
