"""Helpers shared by the dice tests: the published vectors and synthetic game records."""

from __future__ import annotations

import hashlib
import json
import pathlib
from collections.abc import Callable
from typing import Any

from playsite.dice import Fairness, roll

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS_PATH = REPO / "specs" / "dice" / "vectors-v1.json"


def load_vectors() -> dict[str, Any]:
    return json.loads(VECTORS_PATH.read_text(encoding="utf-8"))


def finished_game_record(
    fairness: Fairness, passes: tuple[int, ...] = (), turns: int = 6
) -> dict[str, Any]:
    """A GameHistory-shaped record whose dice come from `fairness`, turn i rolled at ply i.

    Turns listed in `passes` are forced passes (no moves); they still consume a ply.
    """
    history = []
    for ply in range(turns):
        history.append(
            {
                "turnNumber": ply + 1,
                "activeColor": "White" if ply % 2 == 0 else "Black",
                "dice": list(fairness.roll(ply)),
                "moves": [] if ply in passes else ["e2e4"],
                "fenAfter": f"placeholder-fen-{ply}",
            }
        )
    return {
        "gameId": "g-verify-1",
        "players": {"white": {"Guest": {}}, "black": {"Guest": {}}},
        "rated": False,
        "timeControl": None,
        "result": 1,
        "termination": "king_captured",
        "finishedAt": "2025-01-01T00:00:00Z",
        "initialDfen": "placeholder-dfen",
        "turns": history,
        "fairness": fairness.reveal(),
    }


def seed_rolling(*wanted: Callable[[tuple[int, ...]], bool]) -> bytes:
    """A server seed whose rolls at ply 0, 1, ... satisfy `wanted`, one test per ply, with no
    players' seeds: the first of a fixed series that does, so a test gets the same seed on every
    run (tests/support/positioned_server.py starts a game with it)."""
    for index in range(SEARCHED):
        seed = hashlib.sha256(b"playsite test seed %d" % index).digest()
        if all(test(tuple(roll(seed, "", "", ply))) for ply, test in enumerate(wanted)):
            return seed
    raise AssertionError(f"none of {SEARCHED} seeds rolls what the test wants")


SEARCHED = 1_000_000
