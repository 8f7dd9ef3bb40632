"""Helpers shared by the dice tests: the published vectors and synthetic game records."""

from __future__ import annotations

import json
import pathlib
from typing import Any

from playsite.dice import Fairness

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
