"""One roll's search: the most dice a sequence can spend, and the tree built level by level.

Subtrees are memoised per (state, remaining dice): transpositions inside a turn share one
dict object, so the result is a DAG. A node two micro-moves short of complete is shared by the
siblings that leave the same squares around the pieces it moves (`zones.zone`); the level
above the leaves is built by `pieces` and `pawns`, the leaves by `leaves`.
"""

from __future__ import annotations

from . import movegen
from .leaves import LEAF, LeafTables, MoveTree
from .movegen import ATTACKS, CASTLING, EP, KING, PAWN, ROOK, THEM, US, State, advance, moves
from .pawns import above_pawn_leaves, above_pawn_leaves_after_pawn
from .pieces import (
    NO_PIECE,
    above_many_pieces,
    above_one_moving,
    above_one_per_move,
    above_pieces,
    above_two_moving,
    above_two_per_move,
)
from .spending import FACES, SPEND, Dice, castles, castling_rest, spendable
from .zones import zone


class TurnSearch(LeafTables):
    """One roll's search; its memo tables live as long as one `legal_tree` call."""

    __slots__ = ("spend_memo", "tree_memo", "shared", "counts", "unspent")

    def __init__(self, white: bool) -> None:
        super().__init__(white)
        self.spend_memo: dict[tuple[State, Dice], int] = {}
        self.tree_memo: dict[tuple[State, Dice], MoveTree] = {}  # nodes three or more micro-moves short
        self.shared: dict[tuple[object, ...], MoveTree] = {}  # nodes two micro-moves short, by what they depend on
        self.counts: dict[int, int] = {}  # id of a node above the leaves -> its complete turns
        self.unspent = 0  # dice a complete non-capturing turn leaves unspent: len(roll) - L

    def longest(self, state: State, dice: Dice) -> int:
        """L: the most dice any sequence from here can spend (`max_spend` of the `spendable` dice)."""
        return self.max_spend(state, spendable(state, dice, self.white))

    def max_spend(self, state: State, dice: Dice) -> int:
        """Most dice any sequence from here can spend (a king capture stops a sequence)."""
        key = (state, dice)
        known = self.spend_memo.get(key)
        if known is not None:
            return known
        white = self.white
        full = len(dice)
        best = 0
        if full == 1:
            best = 1 if movegen.has_move(state, dice[0], white) else 0
        else:
            kings = state[KING] & state[THEM]
            for face in FACES[dice]:
                rest = SPEND[dice, face]
                for _, f, t, promotion in moves(state, face, white, False):
                    if kings & movegen.BB[t]:
                        spent = 1
                    else:
                        child = advance(state, face, f, t, promotion, white)
                        spent = 1 + self.max_spend(child, rest)
                    if spent > best:
                        best = spent
                        if best == full:
                            break
                if best == full:
                    break
            castled = castling_rest(dice)
            if best < full and castled is not None and state[CASTLING]:
                for _, f, t, _ in castles(state, white):
                    child = advance(state, KING, f, t, 0, white)
                    best = max(best, 2 + (self.max_spend(child, castled) if castled else 0))
        self.spend_memo[key] = best
        return best

    def build(self, state: State, dice: Dice) -> MoveTree:
        need = len(dice) - self.unspent
        if need == 1:
            return self.leaf((state, dice))
        if need == 2:
            return self.node(state, dice)
        key = (state, dice)
        known = self.tree_memo.get(key)
        if known is not None:
            return known
        white = self.white
        bb = movegen.BB
        tree: MoveTree = {}
        turns = 0
        kings = state[KING] & state[THEM]
        counts = self.counts
        for face in FACES[dice]:
            rest = SPEND[dice, face]
            if need == 3:
                turns += self.above_nodes(state, face, rest, tree)
                continue
            for uci, f, t, promotion in moves(state, face, white, False):
                if kings & bb[t]:
                    tree[uci] = LEAF
                    turns += 1
                    continue
                subtree = self.build(advance(state, face, f, t, promotion, white), rest)
                if subtree:
                    tree[uci] = subtree
                    turns += counts[id(subtree)]
        castled = castling_rest(dice)
        if castled is not None and state[CASTLING]:
            for uci, f, t, _ in castles(state, white):
                subtree = self.build(advance(state, KING, f, t, 0, white), castled)
                if subtree:
                    tree[uci] = subtree
                    turns += len(subtree) if need == 3 else counts[id(subtree)]
        self.tree_memo[key] = tree
        counts[id(tree)] = turns
        return tree

    def above_nodes(self, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
        """Put into `tree` the micro-moves of `face` after which two micro-moves complete the
        turn (`rest`: the two dice left); return the complete turns they add.

        With two dice of different types, or two pawn, knight or king dice, such a node
        depends only on the squares in the zone of the pieces of `rest`'s types (their lines,
        or their steps and captures for pawns; `zone`): who stands there, the kings among them, and where those
        pieces are. Two micro-moves that leave all of that alike lead to equal nodes, so the
        second one shares the first one's node."""
        white = self.white
        bb = movegen.BB
        kings = state[KING] & state[THEM]
        counts = self.counts
        shared = self.shared
        first, second = rest
        around = zone(state, rest, white)
        rebuilt = face in rest  # a piece of the zone moves: each child has its own zone
        castles = first == ROOK and second == KING
        turns = 0
        for uci, f, t, promotion in moves(state, face, white, False):
            if kings & bb[t]:
                tree[uci] = LEAF
                turns += 1
                continue
            child = advance(state, face, f, t, promotion, white)
            here = zone(child, rest, white) if rebuilt or promotion in rest else around
            if here is None or (castles and child[CASTLING]):
                subtree = self.node(child, rest)
            else:
                us = child[US]
                them = child[THEM]
                signature = (
                    rest, us & here, them & here, child[KING] & them & here, child[first] & us, child[second] & us
                )
                known = shared.get(signature)
                if known is None:
                    subtree = shared[signature] = self.node(child, rest)
                else:
                    subtree = known
            if subtree:
                tree[uci] = subtree
                turns += counts[id(subtree)]
        return turns

    def node(self, state: State, dice: Dice) -> MoveTree:
        """The node of (state, dice) two micro-moves short of complete: `build` for them.
        Each `above_*` function (modules `pieces` and `pawns`, and `above_leaves_by_state`)
        puts into `tree` the micro-moves of one face after which one micro-move completes the
        turn (their children are leaf nodes) and returns the complete turns they add; each face
        goes to the one that fits. Most of a tree's work is here. Not memoised: the search
        reaches each such state once (from the root, or as the root)."""
        tree: MoveTree = {}
        turns = 0
        us = state[US]
        no_en_passant = not state[EP]
        for face in FACES[dice]:
            rest = SPEND[dice, face]
            if len(rest) != 1:
                turns += self.above_leaves_by_state(state, face, rest, tree)
                continue
            last = rest[0]
            if last == PAWN:
                if no_en_passant:
                    if face != PAWN:
                        turns += above_pawn_leaves(self, state, face, tree)
                    else:
                        turns += above_pawn_leaves_after_pawn(self, state, tree)
                else:
                    turns += self.above_leaves_by_state(state, face, rest, tree)
                continue
            own = state[last] & us
            count = own.bit_count()
            if 0 < count < 3:  # one or two pieces
                attack = ATTACKS[last]
                first = (own & -own).bit_length() - 1
                pair = count == 2
                second = own.bit_length() - 1 if pair else NO_PIECE
                if face != last and face != PAWN:
                    turns += above_pieces(self, state, face, first, second, attack, tree)
                elif face == last:
                    if pair:
                        turns += above_two_moving(self, state, first, second, attack, tree)
                    else:
                        turns += above_one_moving(self, state, first, attack, tree)
                elif pair:
                    turns += above_two_per_move(self, state, face, rest, first, second, attack, tree)
                else:
                    turns += above_one_per_move(self, state, face, rest, first, attack, tree)
            else:
                turns += above_many_pieces(self, state, face, rest, tree)
        if state[CASTLING] and castling_rest(dice) is not None:
            for uci, _, _, _ in castles(state, self.white):
                tree[uci] = LEAF
                turns += 1
        self.counts[id(tree)] = turns
        return tree

    def above_leaves_by_state(self, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
        """One face's micro-moves above the leaves (see `node`) where no builder of `pieces` or
        `pawns` fits (en passant, or two dice left): each leaf from the child's state."""
        white = self.white
        bb = movegen.BB
        kings = state[KING] & state[THEM]
        leaf_memo = self.leaf_memo
        turns = 0
        for uci, f, t, promotion in moves(state, face, white, False):
            if kings & bb[t]:
                tree[uci] = LEAF
                turns += 1
                continue
            child = (advance(state, face, f, t, promotion, white), rest)
            subtree = leaf_memo.get(child)
            if subtree is None:
                subtree = self.new_leaf(child)
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def turns(self, tree: MoveTree) -> int:
        """count_turns(tree) for a tree this search built (counted while building)."""
        if not tree:
            return 0
        known = self.counts.get(id(tree))
        return len(tree) if known is None else known
