"""The nodes one micro-move short of complete (leaves' parents, "leaf nodes"): every entry
completes the turn, so a node is `dict.fromkeys(names, LEAF)`, memoised per search by what its
moves depend on: the state, or one piece's part, several pieces' parts, the pawns' pushes and
captures."""

from __future__ import annotations

from . import movegen
from .movegen import State, move_names, pawn_capture_names, pawn_push_names, piece_names
from .spending import FACES, Dice

MoveTree = dict[str, "MoveTree"]

# Every complete turn ends in this same empty dict; sharing it keeps trees small.
LEAF: MoveTree = {}

#: The leaf of two pieces' moves is keyed by one int, part1 | part2 << PAIR: a part
#: (targets << 6 | square) is below 2**70, and one piece's key is its part (part2 = 0).
PAIR = 70
PART = (1 << PAIR) - 1


def without_empty(entries: MoveTree) -> MoveTree:
    """`entries` without the moves whose subtree is empty (nothing completes the turn after
    them), king captures (`LEAF`) kept."""
    return {uci: subtree for uci, subtree in entries.items() if subtree or subtree is LEAF}


class LeafTables:
    """One search's leaf nodes, by what they are keyed by; they live as long as the search."""

    __slots__ = ("white", "leaf_memo", "leaves_by_targets", "leaves_by_part", "pawn_leaves")

    def __init__(self, white: bool) -> None:
        self.white = white
        self.leaf_memo: dict[tuple[State, Dice], MoveTree] = {}  # by (state, dice)
        # For one non-pawn die, by (targets << 6 | square, ...):
        self.leaves_by_targets: dict[tuple[int, ...], MoveTree] = {}
        self.leaves_by_part: dict[int, MoveTree] = {}  # the same for one or two pieces, by part1 | part2 << PAIR
        # For one pawn die, by (push_key, capture keys...):
        self.pawn_leaves: dict[tuple[int, ...], MoveTree] = {}

    def leaf(self, key: tuple[State, Dice]) -> MoveTree:
        """The node of `key` = (state, dice) one micro-move short of complete: any single
        micro-move completes the turn (castling would spend 2 dice, more than are left)."""
        known = self.leaf_memo.get(key)
        return self.new_leaf(key) if known is None else known

    def new_leaf(self, key: tuple[State, Dice]) -> MoveTree:
        state, dice = key
        names: list[str] = []
        for face in FACES[dice]:
            names += move_names(state, face, self.white)
        node = self.leaf_memo[key] = dict.fromkeys(names, LEAF)
        return node

    def new_leaf_of_pieces(self, key: int) -> MoveTree:
        """The leaf node of one or two pieces' moves, `key` = part1 | part2 << PAIR (the lower
        square's first; part2 = 0: one piece), in `leaves_by_part`."""
        alone = self.leaves_by_part
        second = key >> PAIR
        if not second:
            node = alone[key] = dict.fromkeys(piece_names(key), LEAF)
            return node
        # Two pieces: the union of each one's own leaf (one piece's leaves are shared by many of
        # these, and merging two dicts is cheaper than making one from names).
        first = key & PART
        leaf1 = alone.get(first)
        if leaf1 is None:
            leaf1 = alone[first] = dict.fromkeys(piece_names(first), LEAF)
        leaf2 = alone.get(second)
        if leaf2 is None:
            leaf2 = alone[second] = dict.fromkeys(piece_names(second), LEAF)
        node = alone[key] = leaf1 | leaf2
        return node

    def leaf_of_parts(self, parts: tuple[int, ...]) -> MoveTree:
        """The leaf node of pieces' moves, `parts` = (targets << 6 | square, ...) in square order."""
        known = self.leaves_by_targets.get(parts)
        return self.new_leaf_of_parts(parts) if known is None else known

    def new_leaf_of_parts(self, parts: tuple[int, ...]) -> MoveTree:
        names: list[str] = []
        known = movegen._NAMES
        for part in parts:
            run = known.get(part)
            names += piece_names(part) if run is None else run
        node = self.leaves_by_targets[parts] = dict.fromkeys(names, LEAF)
        return node

    def pawn_leaf(self, key: tuple[int, ...]) -> MoveTree:
        """The leaf of the pawns' moves, `key` = (push_key, capture keys...)."""
        subtree = self.pawn_leaves.get(key)
        if subtree is None:
            names = pawn_push_names(key[0])
            for part in key[1:]:
                names += pawn_capture_names(part)
            subtree = dict.fromkeys(names, LEAF)
            self.pawn_leaves[key] = subtree
        return subtree
