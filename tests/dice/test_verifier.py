"""The stand-alone verifier (playsite/verifier.py, also tools/verify_dice.py)."""

from __future__ import annotations

import ast
import copy
import functools
import http.server
import json
import urllib.request
import os
import pathlib
import shutil
import subprocess
import sys
import threading

import pytest

from playsite import verifier
from playsite.dice import Fairness, FixedSeedSource
from tests.support.dice import REPO, finished_game_record


def write(tmp_path: pathlib.Path, record: object, name: str = "history.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def verify(tmp_path, record, capsys, *flags: str) -> tuple[int, str, str]:
    code = verifier.main([write(tmp_path, record), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- a genuine record verifies -------------------------------------------------------------


def test_finished_game_verifies(tmp_path, capsys, finished_record):
    code, out, err = verify(tmp_path, finished_record, capsys)
    assert code == 0, out + err
    assert out.count("\n") == 1
    assert "6 turns checked" in out and out.startswith("OK")


def test_forced_pass_consumes_a_ply(tmp_path, capsys, finished_record):
    assert finished_record["turns"][2]["moves"] == []
    code, out, _ = verify(tmp_path, finished_record, capsys, "--verbose")
    assert code == 0
    assert "turn 3 (ply 2, White)" in out and "(forced pass)" in out


def test_turns_are_taken_in_turn_number_order(tmp_path, capsys, finished_record):
    finished_record["turns"].reverse()
    code, _, _ = verify(tmp_path, finished_record, capsys)
    assert code == 0


def test_game_without_client_seeds_verifies(tmp_path, capsys):
    fairness = Fairness.draw(FixedSeedSource([bytes(range(32))])).freeze_client_seeds()
    record = finished_game_record(fairness, turns=3)
    assert [turn["dice"] for turn in record["turns"]] == [[3, 4, 5], [3, 3, 1], [6, 2, 5]]
    code, out, _ = verify(tmp_path, record, capsys)
    assert code == 0 and "3 turns checked" in out
    assert "client seeds: White none, Black none;" in out


def test_the_ok_line_quotes_the_client_seeds_that_went_into_the_dice(tmp_path, capsys, finished_record):
    seeds = finished_record["fairness"]["clientSeeds"]
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 0 and f'client seeds: White "{seeds["white"]}", Black "{seeds["black"]}";' in out, out
    long = Fairness.draw(FixedSeedSource([bytes(range(32))])).submit_client_seed("White", "w" * 200).freeze_client_seeds()
    code, out, _ = verify(tmp_path, finished_game_record(long, turns=1), capsys)
    assert code == 0 and f'White "{"w" * 40}...", Black none;' in out, out


def test_game_without_turns_verifies_the_commitment_only(tmp_path, capsys, finished_record):
    finished_record["turns"] = []
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 0 and "0 turns checked" in out


# --- tampering is a mismatch (exit 1) naming the first one -----------------------------------


def test_tampered_die_names_the_turn(tmp_path, capsys, finished_record):
    turn = finished_record["turns"][3]
    genuine = list(turn["dice"])
    turn["dice"][1] = genuine[1] % 6 + 1
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1
    assert "turn 4 (ply 3, Black)" in out
    assert f"expected dice {' '.join(map(str, genuine))}" in out
    assert f"recorded {' '.join(map(str, turn['dice']))}" in out


def test_first_mismatch_is_reported(tmp_path, capsys, finished_record):
    for index in (4, 1):
        dice = finished_record["turns"][index]["dice"]
        dice[0] = dice[0] % 6 + 1
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "turn 2 " in out and "turn 5 " not in out


def test_dice_order_matters(tmp_path, capsys):
    fairness = Fairness.draw(FixedSeedSource([bytes(range(32))])).freeze_client_seeds()
    record = finished_game_record(fairness, turns=1)
    record["turns"][0]["dice"] = [5, 4, 3]  # the roll at ply 0 is 3 4 5
    code, out, _ = verify(tmp_path, record, capsys)
    assert code == 1 and "expected dice 3 4 5, recorded 5 4 3" in out


@pytest.mark.parametrize(
    "index, dice",
    [(0, [3, 4]), (0, [3, 4, 5, 1]), (0, [3.0, 4, 5]), (0, ["3", "4", "5"]), (1, [3, 3, True])],
    ids=["two-dice", "four-dice", "float", "strings", "bool"],
)
def test_dice_must_be_exactly_the_three_integers(tmp_path, capsys, index, dice):
    fairness = Fairness.draw(FixedSeedSource([bytes(range(32))])).freeze_client_seeds()
    record = finished_game_record(fairness, turns=2)  # golden-1: 3 4 5, then 3 3 1
    record["turns"][index]["dice"] = dice
    code, out, _ = verify(tmp_path, record, capsys)
    assert code == 1 and f"turn {index + 1} (ply {index}" in out


def test_missing_turn_shifts_the_plies(tmp_path, capsys, finished_record):
    del finished_record["turns"][2]
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "turn 4 (ply 2" in out


def test_tampered_seed_fails_the_commitment(tmp_path, capsys, finished_record):
    finished_record["fairness"]["seed"] = "ab" * 32
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1
    assert "commitment is not SHA-256 of the revealed seed" in out
    assert f"recorded {finished_record['fairness']['commit']}" in out


def test_tampered_commit_fails(tmp_path, capsys, finished_record):
    finished_record["fairness"]["commit"] = "0" * 64
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "commitment" in out and "recorded " + "0" * 64 in out


def test_short_seed_is_a_mismatch(tmp_path, capsys, finished_record):
    finished_record["fairness"]["seed"] = "ab" * 16
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "16 bytes" in out


@pytest.mark.parametrize("seat", ["white", "black"])
def test_tampered_client_seed_fails_at_the_first_turn(tmp_path, capsys, finished_record, seat):
    finished_record["fairness"]["clientSeeds"][seat] += "!"
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "turn 1 (ply 0, White)" in out


def test_swapped_client_seeds_fail(tmp_path, capsys, finished_record):
    seeds = finished_record["fairness"]["clientSeeds"]
    seeds["white"], seeds["black"] = seeds["black"], seeds["white"]
    code, out, _ = verify(tmp_path, finished_record, capsys)
    assert code == 1 and "MISMATCH" in out


# --- unreadable input and unfinished games (exit 2, no traceback) -----------------------------


def _assert_unreadable(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and fragment in err
    assert "Traceback" not in err


def test_file_that_is_not_json(tmp_path, capsys):
    path = tmp_path / "history.json"
    path.write_bytes(b"<html>not json</html>")
    code = verifier.main([str(path)])
    _assert_unreadable(code, *capsys.readouterr(), "not valid JSON")


def test_file_that_is_not_utf8(tmp_path, capsys):
    path = tmp_path / "history.json"
    path.write_bytes(b"\xff\xfe\xfa{")
    code = verifier.main([str(path)])
    _assert_unreadable(code, *capsys.readouterr(), "not valid JSON")


def test_missing_file(tmp_path, capsys):
    code = verifier.main([str(tmp_path / "nowhere.json")])
    _assert_unreadable(code, *capsys.readouterr(), "cannot read")


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (lambda r: r["fairness"].update(seed=None), "no revealed seed"),
        (lambda r: r["fairness"].pop("seed"), "no revealed seed"),
        (lambda r: r["fairness"].update(clientSeeds=None), "no revealed client seeds"),
        (lambda r: r["fairness"]["clientSeeds"].pop("black"), "clientSeeds.black"),
        (lambda r: r["fairness"].update(seed="not hex at all"), "not hexadecimal"),
        (lambda r: r.pop("fairness"), "'fairness'"),
        (lambda r: r["fairness"].pop("commit"), "commitment"),
        (lambda r: r.pop("turns"), "'turns'"),
        (lambda r: r["turns"][1].pop("turnNumber"), "turnNumber"),
        (lambda r: r["turns"][1].update(turnNumber=1), "more than once"),
        (lambda r: r["turns"][1].update(dice=None), "'dice'"),
        (lambda r: r["turns"].append("turn"), "not an object"),
    ],
    ids=[
        "seed-null", "seed-missing", "client-seeds-null", "client-seed-missing", "seed-not-hex",
        "no-fairness", "no-commit", "no-turns", "no-turn-number", "duplicate-turn-number",
        "dice-not-a-list", "turn-not-an-object",
    ],
)
def test_record_that_is_not_a_finished_game(tmp_path, capsys, finished_record, mutate, fragment):
    record = copy.deepcopy(finished_record)
    mutate(record)
    code, out, err = verify(tmp_path, record, capsys)
    _assert_unreadable(code, out, err, fragment)


def test_json_that_is_not_an_object(tmp_path, capsys):
    code, out, err = verify(tmp_path, [1, 2, 3], capsys)
    _assert_unreadable(code, out, err, "not a JSON object")


def test_usage_error_returns_2(capsys):
    assert verifier.main([]) == 2
    assert "usage:" in capsys.readouterr().err


def test_reads_standard_input(monkeypatch, capsys, finished_record):
    import io

    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(finished_record).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert verifier.main(["-"]) == 0
    assert "6 turns checked" in capsys.readouterr().out


# --- over HTTP --------------------------------------------------------------------------------


class _HistoryHandler(http.server.BaseHTTPRequestHandler):
    def __init__(self, *args, body: bytes, **kwargs):
        self.body = body
        super().__init__(*args, **kwargs)

    def do_GET(self):
        if self.path != "/games/g-verify-1/history":
            self.send_error(404, "Unknown game")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format, *args):
        pass


@pytest.fixture
def history_server(finished_record, monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    handler = functools.partial(_HistoryHandler, body=json.dumps(finished_record).encode())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def test_verifies_a_record_fetched_over_http(history_server, capsys):
    code = verifier.main([f"{history_server}/games/g-verify-1/history"])
    out = capsys.readouterr().out
    assert code == 0 and "6 turns checked" in out


def test_http_error_is_unreadable(history_server, capsys):
    code = verifier.main([f"{history_server}/games/nope/history"])
    _assert_unreadable(code, *capsys.readouterr(), "HTTP 404")


@pytest.mark.parametrize("page", ["games/{id}", "play/{id}", "replay/{id}", "replay/{id}#fairness", "games/{id}/"])
def test_the_address_of_a_game_s_page_is_answered_with_its_record_s(history_server, capsys, page):
    """Play-through (session 57): given the address a person has (the game's page or state), the
    verifier said only that it was not JSON, or had no 'fairness' object."""
    game_id = "0b5e6a8c-4f7e-4a55-9d51-3a0f3d1b2c44"
    code = verifier.main([f"{history_server}/{page.format(id=game_id)}"])
    _out, err = capsys.readouterr()
    assert code == 2, err
    assert f"its record is {history_server}/games/{game_id}/history" in err, err


def test_an_address_of_no_game_gets_no_hint(history_server, capsys):
    code = verifier.main([f"{history_server}/games/nope/history"])
    assert code == 2 and "its record is" not in capsys.readouterr().err

def test_unreachable_url_is_unreadable(capsys, monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    code = verifier.main(["http://127.0.0.1:9/games/x/history"])
    _assert_unreadable(code, *capsys.readouterr(), "cannot fetch")


# --- a single stand-alone file ----------------------------------------------------------------


def test_tool_is_a_symlink_to_the_verifier():
    tool = REPO / "tools" / "verify_dice.py"
    assert tool.is_symlink()
    assert os.readlink(tool) == "../playsite/verifier.py"
    assert tool.resolve() == pathlib.Path(verifier.__file__).resolve()


def test_verifier_uses_only_the_standard_library():
    tree = ast.parse(pathlib.Path(verifier.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            assert top == "__future__" or top in sys.stdlib_module_names, module


def test_tool_runs_as_a_script(tmp_path, finished_record):
    path = write(tmp_path, finished_record)
    result = subprocess.run(
        [sys.executable, "-I", str(REPO / "tools" / "verify_dice.py"), path],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("OK") and "6 turns checked" in result.stdout


def test_tool_script_exits_1_on_mismatch(tmp_path, finished_record):
    finished_record["turns"][0]["dice"] = [9, 9, 9]
    path = write(tmp_path, finished_record)
    result = subprocess.run(
        [sys.executable, "-I", str(REPO / "tools" / "verify_dice.py"), path],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert result.returncode == 1 and "turn 1 (ply 0, White)" in result.stdout


def test_downloaded_copy_is_not_fooled_by_modules_next_to_it(tmp_path, finished_record):
    # Python puts a script's own directory first on sys.path; a stray json.py or hashlib.py
    # next to the downloaded verifier must not replace the standard library.
    shutil.copy(verifier.__file__, tmp_path / "verify_dice.py")
    for name in ("json", "hashlib", "hmac"):
        (tmp_path / f"{name}.py").write_text("raise SystemExit('shadowed stdlib module')\n")
    path = write(tmp_path, finished_record)
    # Not -I: since Python 3.11 it implies -P, which would hide the problem.
    result = subprocess.run(
        [sys.executable, "-E", "-s", str(tmp_path / "verify_dice.py"), path],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_closed_output_pipe_is_not_a_traceback(tmp_path):
    fairness = Fairness.draw(FixedSeedSource([bytes(32)])).freeze_client_seeds()
    path = write(tmp_path, finished_game_record(fairness, turns=5000))
    verifier_run = subprocess.Popen(
        [sys.executable, "-I", str(REPO / "tools" / "verify_dice.py"), "-v", path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert verifier_run.stdout.readline().startswith(b"ok  turn 1 (ply 0, White)")
    verifier_run.stdout.close()  # like `| head -1`
    _, err = verifier_run.communicate(timeout=60)
    assert verifier_run.returncode == 2
    assert b"Traceback" not in err


def test_an_unfinished_game_says_why_in_the_servers_words(serve, capsys):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    game = json.loads(urllib.request.urlopen(urllib.request.Request(f"{server.base_url}/games", method="POST"), timeout=10).read())
    code = verifier.main([f"{server.base_url}/games/{game['gameId']}/history"])
    _assert_unreadable(code, *capsys.readouterr(), "HTTP 404: no finished game with this id")


# --- the roll a game ended on, unplayed ------------------------------------------------------


def with_unplayed_roll(record: dict, fairness_dice: list[int]) -> dict:
    return {**record, "termination": "resign", "unplayedRoll": {"activeColor": "White", "dice": fairness_dice}}


def test_the_roll_a_game_ended_on_is_checked_at_the_ply_after_the_last_turn(tmp_path, capsys):
    fairness = Fairness.draw(FixedSeedSource([bytes(range(32))])).freeze_client_seeds()
    record = with_unplayed_roll(finished_game_record(fairness, turns=2), list(fairness.roll(2)))
    code, out, _ = verify(tmp_path, record, capsys, "--verbose")
    assert code == 0, out
    assert "ok  the unplayed last roll (ply 2, White)" in out
    assert "2 turns and the unplayed last roll checked, all dice match" in out


def test_an_unplayed_roll_not_from_its_ply_is_a_mismatch(tmp_path, capsys):
    fairness = Fairness.draw(FixedSeedSource([bytes(range(32))])).freeze_client_seeds()
    genuine = list(fairness.roll(2))
    record = with_unplayed_roll(finished_game_record(fairness, turns=2), list(fairness.roll(1)))
    assert record["unplayedRoll"]["dice"] != genuine  # the seed of this test gives different rolls there
    code, out, _ = verify(tmp_path, record, capsys)
    assert code == 1
    assert f"the unplayed last roll (ply 2, White): expected dice {' '.join(map(str, genuine))}" in out


def test_an_unplayed_roll_without_dice_is_unreadable(tmp_path, capsys, finished_record):
    finished_record["unplayedRoll"] = {"activeColor": "White"}
    code, out, err = verify(tmp_path, finished_record, capsys)
    _assert_unreadable(code, out, err, "'unplayedRoll' is not an object with a 'dice' list")
