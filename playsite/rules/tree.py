"""The legal-move tree of a roll: every legal turn as a prefix tree of UCI micro-moves.

Definitions (docs/rules.md explains them at length):

- A *sequence* is a run of micro-moves, each paid with one unspent die of the moved piece's
  type (castling: a king die and a rook die). A sequence stops at a king capture.
- L is the most dice any sequence can spend (castling counts 2, a king capture counts the
  dice spent up to and including it).
- A *complete turn* is a sequence that spends exactly L dice without capturing the king, or
  any sequence whose last micro-move captures the king.
- The tree holds exactly the prefixes of complete turns: `{}` under a key marks a complete
  turn; an empty tree (L = 0) is a forced pass.

Subtrees are memoised per (state, remaining dice): transpositions inside a turn share one
dict object, so the result is a DAG; a node one micro-move short of complete is also shared
by every node whose last micro-move leaves the same moves, and a node two micro-moves short
by the siblings that leave the same squares around the pieces it moves. Treat it as read-only.

The search lives in `search` (the levels above the leaves in `pieces` and `pawns`, the leaves
in `leaves`, the squares a node depends on in `zones`, the dice in `spending`); this module is
the public API.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from . import movegen
from .dfen import format_dfen
from .leaves import MoveTree
from .movegen import EP, State
from .position import Position
from .search import TurnSearch
from .spending import FACES
from .zones import en_passant_reachable

__all__ = [
    "CountedTree",
    "MoveTree",
    "NoDicePending",
    "TreeView",
    "count_turns",
    "iter_turns",
    "legal_tree",
    "legal_tree_counted",
    "max_dice",
    "state_of",
]

TreeView = Mapping[str, "TreeView"]
"""Any tree of UCI keys, read-only: a `MoveTree` or one built elsewhere (the tests' brute force)."""


class NoDicePending(ValueError):
    """The position has no roll pending, so there is no turn to enumerate."""

    def __init__(self, dfen: str) -> None:
        super().__init__(f"no dice pending in {dfen!r}: a tree needs a roll")
        self.dfen = dfen


def state_of(position: Position) -> State:
    """The mover-relative search state of `position` (see movegen)."""
    us, them = (position.white, position.black) if position.turn else (position.black, position.white)
    return (
        us,
        position.pawns,
        position.knights,
        position.bishops,
        position.rooks,
        position.queens,
        position.kings,
        them,
        position.castling,
        position.ep_mask,
    )


def max_dice(position: Position) -> int:
    """L: the most dice any sequence can spend with the pending roll (castling counts 2)."""
    if not position.dice:
        raise NoDicePending(format_dfen(position))
    return TurnSearch(position.turn).longest(state_of(position), position.dice)


def legal_tree(position: Position) -> MoveTree:
    """Prefix tree of all legal turns for the pending roll; `{}` = forced pass.

    Raises NoDicePending when the position has no roll pending.
    """
    return _searched(position)[1]


class CountedTree(NamedTuple):
    tree: MoveTree
    turns: int
    """`count_turns(tree)`."""
    longest: int
    """L: `max_dice` of the position (0 for a forced pass)."""


def legal_tree_counted(position: Position) -> CountedTree:
    """`legal_tree(position)` with its count of complete turns and its L, both known from the
    search (faster than from the tree)."""
    search, tree = _searched(position)
    return CountedTree(tree, search.turns(tree), len(position.dice) - search.unspent if tree else 0)


def _searched(position: Position) -> tuple[TurnSearch, MoveTree]:
    if not position.dice:
        raise NoDicePending(format_dfen(position))
    white = position.turn
    dice = position.dice
    state = state_of(position)
    if state[EP] and not en_passant_reachable(state, dice, white):
        # No pawn of the mover can take en passant this turn: the targets change nothing, and
        # without them the pawns' leaves are keyed by their pushes and captures.
        state = state[:EP] + (0,)
    if len(dice) == 3 and all(movegen.has_move(state, face, white) for face in FACES[dice]):
        # Every die's type can move: nearly always some turn spends all three. Build the tree
        # for L = 3 without searching for L first, and keep it when a micro-move in it has two
        # more after it (then L = 3 and it is the tree); otherwise search for L as below.
        search = TurnSearch(white)
        tree = search.build(state, dice)
        if any(third for node in tree.values() for third in node.values()):
            return search, tree
    search = TurnSearch(white)
    longest = search.longest(state, dice)
    if longest == 0:
        return search, {}
    search.unspent = len(dice) - longest
    return search, search.build(state, dice)


def count_turns(tree: TreeView) -> int:
    """Number of complete turns (root-to-leaf paths); shared subtrees are counted once each."""
    return _count(tree, {}) if tree else 0


def _count(node: TreeView, counts: dict[int, int]) -> int:
    # Module-level rather than a closure: a recursive closure refers to itself through its cell,
    # a reference cycle per call that only the cyclic collector could free. A leaf counts
    # without a call: most entries of a tree are leaves.
    total = 0
    for child in node.values():
        if child:
            known = counts.get(id(child))
            if known is None:
                known = counts[id(child)] = _count(child, counts)
            total += known
        else:
            total += 1
    return total


def iter_turns(tree: TreeView) -> Iterator[tuple[str, ...]]:
    """Every complete turn of `tree` as a tuple of UCI strings (expands shared subtrees)."""
    if not tree:
        return
    stack: list[tuple[tuple[str, ...], TreeView]] = [((), tree)]
    while stack:
        prefix, node = stack.pop()
        for uci, child in node.items():
            path = prefix + (uci,)
            if child:
                stack.append((path, child))
            else:
                yield path
