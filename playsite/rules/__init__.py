"""Dice-chess rules: positions, DFEN, the legal-move tree of a roll, playing a turn.

Pure: imports nothing from the rest of playsite, no I/O, no clocks. See docs/rules.md.
"""

from .dfen import START_DFEN, InvalidDfen, format_dfen, parse_dfen
from .ending import Termination
from .movegen import PIECE_NAMES
from .perft import micro_moves, perft
from .position import DICE_PER_TURN, NO_PROGRESS_LIMIT, Position
from .tree import (
    CountedTree,
    MoveTree,
    NoDicePending,
    count_turns,
    iter_turns,
    legal_tree,
    legal_tree_counted,
    max_dice,
)
from .turn import GameEnd, IllegalTurn, TurnOutcome, play_turn

START_POSITION = parse_dfen(START_DFEN)

__all__ = [
    "DICE_PER_TURN",
    "NO_PROGRESS_LIMIT",
    "PIECE_NAMES",
    "START_DFEN",
    "START_POSITION",
    "CountedTree",
    "GameEnd",
    "IllegalTurn",
    "InvalidDfen",
    "MoveTree",
    "NoDicePending",
    "Position",
    "Termination",
    "TurnOutcome",
    "count_turns",
    "format_dfen",
    "iter_turns",
    "legal_tree",
    "legal_tree_counted",
    "max_dice",
    "micro_moves",
    "parse_dfen",
    "perft",
    "play_turn",
]
