"""`playsite dice ...` and `playsite verify ...`."""

from __future__ import annotations

import importlib
import json
import sys
import types

import pytest

from playsite.cli import SUBCOMMANDS, main

GOLDEN_1_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


@pytest.fixture(autouse=True)
def other_subcommands_may_not_exist_yet(monkeypatch):
    """The dispatcher imports every subcommand; stand in for ones still being written
    elsewhere, so these tests exercise only `dice` and `verify`."""
    for name in SUBCOMMANDS:
        module = f"playsite.cli.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            stub = types.ModuleType(module)
            stub.add_parser = lambda subparsers, name=name: subparsers.add_parser(name)
            monkeypatch.setitem(sys.modules, module, stub)


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def test_dice_roll_prints_the_golden_roll(capsys):
    assert run(["dice", "roll", "--seed", GOLDEN_1_SEED, "--ply", "98"], capsys) == (
        0, "6 6 1\n", ""
    )


def test_dice_roll_with_client_seeds(capsys):
    code, out, _ = run(
        ["dice", "roll", "--seed", "ff" * 32, "--white", "alice's seed \u2713", "--ply", "41"],
        capsys,
    )
    assert (code, out) == (0, "6 2 3\n")
    code, out, _ = run(
        [
            "dice", "roll",
            "--seed", "149bf38eb3fbde09d62f6e9fd7bd03e35e001b7128ad8555336738d56883bbda",
            "--white", "f3a1c0de9b8a7c6d", "--black", "b27c00ffee112233", "--ply", "7",
        ],
        capsys,
    )
    assert (code, out) == (0, "2 5 4\n")


def test_dice_commit_prints_the_commitment(capsys):
    assert run(["dice", "commit", "--seed", GOLDEN_1_SEED], capsys) == (
        0, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd\n", ""
    )


@pytest.mark.parametrize(
    "seed, fragment",
    [("zz" * 32, "not hexadecimal"), ("abc", "not hexadecimal"), ("00" * 31, "must be 32 bytes")],
)
def test_dice_roll_rejects_a_bad_seed(capsys, seed, fragment):
    code, out, err = run(["dice", "roll", "--seed", seed, "--ply", "0"], capsys)
    assert code == 2 and out == ""
    assert "--seed" in err and fragment in err and "Traceback" not in err


@pytest.mark.parametrize("ply, fragment", [("-1", "must be in 0.."), ("x", "not an integer"),
                                           (str(2**63), "must be in 0..")])
def test_dice_roll_rejects_a_bad_ply(capsys, ply, fragment):
    code, out, err = run(["dice", "roll", "--seed", GOLDEN_1_SEED, "--ply", ply], capsys)
    assert code == 2 and out == ""
    assert "--ply" in err and fragment in err and "Traceback" not in err


def test_dice_needs_an_action(capsys):
    code, _, err = run(["dice"], capsys)
    assert code == 2 and "ACTION" in err


def test_verify_accepts_a_finished_game(tmp_path, capsys, finished_record):
    path = tmp_path / "history.json"
    path.write_text(json.dumps(finished_record))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0 and "6 turns checked" in out


def test_verify_reports_a_mismatch(tmp_path, capsys, finished_record):
    finished_record["turns"][5]["dice"] = [0, 0, 0]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(finished_record))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 1 and "turn 6 (ply 5, Black)" in out


def test_verify_unreadable_input(tmp_path, capsys):
    path = tmp_path / "history.json"
    path.write_text("this is not json")
    code, out, err = run(["verify", str(path)], capsys)
    assert code == 2 and out == "" and "not valid JSON" in err and "Traceback" not in err
