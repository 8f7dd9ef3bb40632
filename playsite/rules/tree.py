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
by the siblings that leave the same squares around the pieces it moves (`_zone`). Treat it
as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import chess

from . import movegen
from .dfen import format_dfen
from .movegen import (
    ALL,
    ATTACKS,
    CASTLING,
    EP,
    KING,
    PAWN,
    PAWN_ATTACKS,
    ROOK,
    THEM,
    US,
    Move,
    State,
    advance,
    bits,
    capture_key,
    move_names,
    moves,
    pawn_capture_names,
    pawn_push_names,
    piece_names,
    push_key,
)
from .position import Position

MoveTree = dict[str, "MoveTree"]
TreeView = Mapping[str, "TreeView"]
"""Any tree of UCI keys, read-only: a `MoveTree` or one built elsewhere (the tests' brute force)."""
Dice = tuple[int, ...]

# Every complete turn ends in this same empty dict; sharing it keeps trees small.
_LEAF: MoveTree = {}


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


def _removals() -> dict[tuple[Dice, int], Dice]:
    """(remaining dice, face) → remaining dice after spending that face, for every pool."""
    table = {}
    pools: set[Dice] = {()}
    for _ in range(3):
        pools |= {tuple(sorted(p + (d,))) for p in pools for d in range(1, 7)}
    for pool in pools:
        for face in set(pool):
            rest = list(pool)
            rest.remove(face)
            table[pool, face] = tuple(rest)
    return table


_SPEND = _removals()
_FACES: dict[Dice, Dice] = {pool: tuple(sorted(set(pool))) for pool, _ in _SPEND}
_FACES[()] = ()


def _lines(square: int, diagonal: bool, straight: bool) -> int:
    mask = chess.BB_SQUARES[square]
    if diagonal:
        mask |= chess.BB_DIAG_ATTACKS[square][0]
    if straight:
        mask |= chess.BB_RANK_ATTACKS[square][0] | chess.BB_FILE_ATTACKS[square][0]
    return mask


#: Piece type (not a pawn) -> square -> the squares whose occupants can change that piece's
#: moves, or the moves of a piece stepping onto or off them: its lines, or its steps.
_ZONES: dict[int, list[int]] = {
    movegen.KNIGHT: [chess.BB_KNIGHT_ATTACKS[sq] | chess.BB_SQUARES[sq] for sq in chess.SQUARES],
    movegen.BISHOP: [_lines(sq, True, False) for sq in chess.SQUARES],
    ROOK: [_lines(sq, False, True) for sq in chess.SQUARES],
    movegen.QUEEN: [_lines(sq, True, True) for sq in chess.SQUARES],
    KING: [chess.BB_KING_ATTACKS[sq] | chess.BB_SQUARES[sq] for sq in chess.SQUARES],
}


def _pawn_zone(own: int, white: bool) -> int:
    """The squares of pawns on `own`, and those they step to and take on."""
    if white:
        steps = own << 8 | (own & chess.BB_RANK_2) << 16
        return (own | steps | (own & ~chess.BB_FILE_A) << 7 | (own & ~chess.BB_FILE_H) << 9) & ALL
    steps = own >> 8 | (own & chess.BB_RANK_7) >> 16
    return own | steps | (own & ~chess.BB_FILE_A) >> 9 | (own & ~chess.BB_FILE_H) >> 7


def _zone(state: State, rest: Dice, white: bool) -> int | None:
    """The squares a node with two dice of different types `rest` left depends on (see
    `_TurnSearch._above_nodes`), or None where it is not worth it or not that simple: the
    same type twice other than pawns (a piece moving twice reaches squares off its lines), or
    en-passant targets. A pawn that can promote adds the lines of the other die's type from
    the squares it can promote on."""
    first, second = rest
    us = state[US]
    if first == second:
        if first != PAWN or state[EP]:
            return None
        # Two pawn moves: the second pawn move may start from any square the first reaches,
        # and promoting with the first leaves no die for the new piece.
        return _pawn_zone(_pawn_zone(state[PAWN] & us, white), white)
    zone = 0
    for face in rest:
        own = state[face] & us
        if face == PAWN:
            if state[EP]:
                return None
            promoting = own & (chess.BB_RANK_7 if white else chess.BB_RANK_2)
            if promoting:
                # A piece promoted to the other die's type moves next: its lines too.
                lines = _ZONES[second if first == PAWN else first]
                arrivals = _pawn_zone(promoting, white) & (chess.BB_RANK_8 if white else chess.BB_RANK_1)
                while arrivals:
                    low = arrivals & -arrivals
                    arrivals ^= low
                    zone |= lines[low.bit_length() - 1]
            zone |= _pawn_zone(own, white)
        else:
            lines = _ZONES[face]
            while own:
                low = own & -own
                own ^= low
                zone |= lines[low.bit_length() - 1]
    return zone


def _pawn_attackers(targets: int, white: bool) -> int:
    """The squares from which a pawn of the mover's colour attacks one of `targets`."""
    if white:
        return (targets & ~chess.BB_FILE_H) >> 7 | (targets & ~chess.BB_FILE_A) >> 9
    return ((targets & ~chess.BB_FILE_A) << 7 | (targets & ~chess.BB_FILE_H) << 9) & ALL


def _en_passant_reachable(state: State, dice: Dice, white: bool) -> bool:
    """Whether a pawn of the mover could take en passant this turn, as far as the pawn dice
    let it get there (a pawn move per pawn die, the capture included): a pawn within that many
    pawn moves of a square attacking a target, whatever stands in the way."""
    pawn_dice = dice.count(PAWN)
    if not pawn_dice:
        return False
    cone = _pawn_attackers(state[EP], white)
    for _ in range(pawn_dice - 1):
        # Add the squares a pawn reaches cone from in one move: a step, a double step, a capture.
        if white:
            cone |= cone >> 8 | (cone & chess.BB_RANK_4) >> 16
            cone |= (cone & ~chess.BB_FILE_H) >> 7 | (cone & ~chess.BB_FILE_A) >> 9
        else:
            cone |= (cone << 8 | (cone & chess.BB_RANK_5) << 16) & ALL
            cone |= ((cone & ~chess.BB_FILE_A) << 7 | (cone & ~chess.BB_FILE_H) << 9) & ALL
    return bool(state[PAWN] & state[US] & cone)


def _insert(tree: MoveTree, run: tuple[str, ...], row: list[MoveTree]) -> int:
    """tree[run[i]] = row[i] in order, for every row[i] that is `_LEAF` (a king capture) or
    not empty; return the complete turns they add. (Where no row[i] is empty, the callers
    insert them with one update.)"""
    turns = 0
    for uci, subtree in zip(run, row):
        if subtree is _LEAF:
            tree[uci] = _LEAF
            turns += 1
        elif subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns


def _castling_rest(dice: Dice) -> Dice | None:
    if KING in dice and ROOK in dice:
        return _SPEND[_SPEND[dice, KING], ROOK]
    return None


class _TurnSearch:
    """One roll's search; its memo tables live as long as one `legal_tree` call."""

    __slots__ = (
        "white",
        "spend_memo",
        "tree_memo",
        "leaf_memo",
        "leaves_by_targets",
        "leaves_by_part",
        "shared",
        "pawn_leaves",
        "counts",
        "unspent",
    )

    def __init__(self, white: bool) -> None:
        self.white = white
        self.spend_memo: dict[tuple[State, Dice], int] = {}
        self.tree_memo: dict[tuple[State, Dice], MoveTree] = {}  # nodes three or more micro-moves short
        self.leaf_memo: dict[tuple[State, Dice], MoveTree] = {}  # the nodes whose every entry completes the turn
        # The same for one non-pawn die, by (targets << 6 | square, ...):
        self.leaves_by_targets: dict[tuple[int, ...], MoveTree] = {}
        self.leaves_by_part: dict[int, MoveTree] = {}  # the same for one piece, by its part
        # The same for one pawn die, by (push_key, capture keys...):
        self.pawn_leaves: dict[tuple[int, ...], MoveTree] = {}
        self.shared: dict[tuple[object, ...], MoveTree] = {}  # nodes two micro-moves short, by what they depend on
        self.counts: dict[int, int] = {}  # id of a node above the leaves -> its complete turns
        self.unspent = 0  # dice a complete non-capturing turn leaves unspent: len(roll) - L

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
            for face in _FACES[dice]:
                rest = _SPEND[dice, face]
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
            castled = _castling_rest(dice)
            if best < full and castled is not None and state[CASTLING]:
                for _, f, t, _ in _castles(state, white):
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
        for face in _FACES[dice]:
            rest = _SPEND[dice, face]
            if need == 3:
                turns += self._above_nodes(state, face, rest, tree)
                continue
            for uci, f, t, promotion in moves(state, face, white, False):
                if kings & bb[t]:
                    tree[uci] = _LEAF
                    turns += 1
                    continue
                subtree = self.build(advance(state, face, f, t, promotion, white), rest)
                if subtree:
                    tree[uci] = subtree
                    turns += counts[id(subtree)]
        castled = _castling_rest(dice)
        if castled is not None and state[CASTLING]:
            for uci, f, t, _ in _castles(state, white):
                subtree = self.build(advance(state, KING, f, t, 0, white), castled)
                if subtree:
                    tree[uci] = subtree
                    turns += len(subtree) if need == 3 else counts[id(subtree)]
        self.tree_memo[key] = tree
        counts[id(tree)] = turns
        return tree

    def _above_nodes(self, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
        """Put into `tree` the micro-moves of `face` after which two micro-moves complete the
        turn (`rest`: the two dice left); return the complete turns they add.

        With two dice of different types, or two pawn dice, such a node depends only on the
        squares in the zone of the pieces of `rest`'s types (their lines, or their steps and
        captures for pawns; `_zone`): who stands there, the kings among them, and where those
        pieces are. Two micro-moves that leave all of that alike lead to equal nodes, so the
        second one shares the first one's node."""
        white = self.white
        bb = movegen.BB
        kings = state[KING] & state[THEM]
        counts = self.counts
        shared = self.shared
        first, second = rest
        zone = _zone(state, rest, white)
        rebuilt = face in rest  # a piece of the zone moves: each child has its own zone
        castles = first == ROOK and second == KING
        turns = 0
        for uci, f, t, promotion in moves(state, face, white, False):
            if kings & bb[t]:
                tree[uci] = _LEAF
                turns += 1
                continue
            child = advance(state, face, f, t, promotion, white)
            here = _zone(child, rest, white) if rebuilt or promotion in rest else zone
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
        Each `_above_*` method puts into `tree` the micro-moves of one face after which one
        micro-move completes the turn (their children are leaf nodes) and returns the complete
        turns they add; each face goes to the one that fits. Most of a tree's work is here.
        Not memoised: the search reaches each such state once (from the root, or as the root)."""
        tree: MoveTree = {}
        turns = 0
        us = state[US]
        no_en_passant = not state[EP]
        for face in _FACES[dice]:
            rest = _SPEND[dice, face]
            if len(rest) != 1:
                turns += self._above_leaves_by_state(state, face, rest, tree)
                continue
            last = rest[0]
            if last == PAWN:
                if no_en_passant:
                    if face != PAWN:
                        turns += self._above_pawn_leaves(state, face, tree)
                    else:
                        turns += self._above_pawn_leaves_after_pawn(state, tree)
                else:
                    turns += self._above_leaves_by_state(state, face, rest, tree)
                continue
            own = state[last] & us
            others = own & (own - 1)
            if own and not others & (others - 1):
                attack = ATTACKS[last]
                if face != last and face != PAWN:
                    if others:
                        turns += self._above_two_pieces(state, face, own ^ others, others, attack, tree)
                    else:
                        turns += self._above_one_piece(state, face, own.bit_length() - 1, attack, tree)
                elif face == last:
                    if others:
                        turns += self._above_two_moving(state, own ^ others, others, attack, tree)
                    else:
                        turns += self._above_one_moving(state, own.bit_length() - 1, attack, tree)
                elif others:
                    turns += self._above_two_per_move(state, face, rest, own ^ others, others, attack, tree)
                else:
                    turns += self._above_one_per_move(state, face, rest, own.bit_length() - 1, attack, tree)
            else:
                turns += self._above_many_pieces(state, face, rest, tree)
        castled = _castling_rest(dice)
        if castled is not None and state[CASTLING]:
            for uci, _, _, _ in _castles(state, self.white):
                tree[uci] = _LEAF
                turns += 1
        self.counts[id(tree)] = turns
        return tree

    def _above_many_pieces(self, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
        """`node`'s work for one face with one die left, for a piece type other than pawns of
        which the mover has no piece or three or more (the methods above take one or two).

        The moves of those pieces depend only on their squares and on the squares this
        micro-move empties and fills. So a child's leaf follows from each piece's targets (in
        square order), recomputed only for a piece that reaches one of those squares and for
        one that arrives (the piece moving, or a promotion), without the child's state."""
        last = rest[0]
        white = self.white
        bb = movegen.BB
        kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        attack = ATTACKS[last]
        own = state[last] & us
        pieces = []
        parts = []
        span = 0
        while own:
            low = own & -own
            own ^= low
            square = low.bit_length() - 1
            reach = attack(square, occupied)
            span |= reach
            part = (reach & ~us) << 6 | square
            pieces.append((square, reach, part))
            parts.append(part)
        unmoved = tuple(parts)
        en_passant = state[EP] if face == PAWN else 0
        moving = face == last
        unmoved_leaf = None
        leaves = self.leaves_by_targets
        turns = 0
        subtree: MoveTree | None
        for uci, f, t, promotion in moves(state, face, white, False):
            if kings & bb[t]:
                tree[uci] = _LEAF
                turns += 1
                continue
            changed = bb[f] | bb[t]
            if changed & en_passant:
                # Takes en passant, which empties a third square: from the child's state.
                subtree = self.leaf((advance(state, face, f, t, promotion, white), rest))
            else:
                arrives = moving or promotion == last
                if arrives or changed & span:
                    now_us = us ^ changed
                    now_occupied = (occupied | changed) ^ bb[f]
                    parts = []
                    for square, reach, part in pieces:
                        if square == f:
                            continue  # the piece moving
                        if arrives and square > t:
                            parts.append((attack(t, now_occupied) & ~now_us) << 6 | t)
                            arrives = False
                        if reach & changed:
                            part = (attack(square, now_occupied) & ~now_us) << 6 | square
                        parts.append(part)
                    if arrives:
                        parts.append((attack(t, now_occupied) & ~now_us) << 6 | t)
                    key = tuple(parts)
                else:
                    if unmoved_leaf is None:
                        unmoved_leaf = self.leaf_of_parts(unmoved)
                    subtree = unmoved_leaf
                    key = None
                if key is not None:
                    subtree = leaves.get(key)
                    if subtree is None:
                        subtree = self.new_leaf_of_parts(key)
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def _above_one_piece(
        self, state: State, face: int, square: int, attack: Callable[[int, int], int], tree: MoveTree
    ) -> int:
        """One face's micro-moves above the leaves (see `node`) when the last die's type has
        one piece (on `square`) and another type, not a pawn, moves now: a child's leaf is
        that piece's moves, keyed by its part. Piece by piece of the moving type: its moves to
        squares off the last piece's lines (as they are once it has left its square) all get
        the same leaf, inserted at once; only the others are keyed one by one."""
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        free = ~us
        reach = attack(square, occupied)
        leaves = self.leaves_by_part
        unmoved = (reach & free) << 6 | square
        unmoved_leaf = leaves.get(unmoved)
        if unmoved_leaf is None:
            unmoved_leaf = self.new_leaf_of_part(unmoved)
        names = movegen._NAMES
        attack_mover = ATTACKS[face]
        own = state[face] & us
        turns = 0
        while own:
            low = own & -own
            own ^= low
            f = low.bit_length() - 1
            targets = attack_mover(f, occupied) & free
            if not targets:
                continue
            part = targets << 6 | f
            run = names.get(part)
            if run is None:
                run = piece_names(part)
            occupied_after = occupied ^ low
            us_after = us ^ low
            if low & reach:  # it stands in the last piece's way: leaving opens the line
                lines = attack(square, occupied_after)
                default = (lines & ~us_after) << 6 | square
                leaf = leaves.get(default)
                if leaf is None:
                    leaf = self.new_leaf_of_part(default)
            else:
                lines = reach
                leaf = unmoved_leaf
            hits = targets & (lines | bb_kings)
            if not hits:
                if leaf:
                    tree.update(dict.fromkeys(run, leaf))
                    turns += len(leaf) * len(run)
                continue
            row = [leaf] * len(run)
            whole = len(leaf)
            kings_taken = 0
            while hits:
                to_bb = hits & -hits
                hits ^= to_bb
                index = (targets & (to_bb - 1)).bit_count()
                if to_bb & bb_kings:
                    row[index] = _LEAF
                    kings_taken += 1
                    continue
                key = (attack(square, occupied_after | to_bb) & ~(us_after | to_bb)) << 6 | square
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = self.new_leaf_of_part(key)
                row[index] = subtree
                if not subtree:
                    whole = 0
            if whole:
                tree.update(zip(run, row))
                turns += sum(map(len, row)) + kings_taken
            else:
                turns += _insert(tree, run, row)
        return turns

    def _above_two_pieces(
        self, state: State, face: int, first_bb: int, second_bb: int, attack: Callable[[int, int], int], tree: MoveTree
    ) -> int:
        """`_above_one_piece` when the last die's type has two pieces (first_bb < second_bb)."""
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        free = ~us
        first = first_bb.bit_length() - 1
        second = second_bb.bit_length() - 1
        reach1 = attack(first, occupied)
        reach2 = attack(second, occupied)
        part1 = (reach1 & free) << 6 | first
        part2 = (reach2 & free) << 6 | second
        leaves = self.leaves_by_targets
        unmoved_leaf = None
        names = movegen._NAMES
        attack_mover = ATTACKS[face]
        own = state[face] & us
        turns = 0
        while own:
            low = own & -own
            own ^= low
            f = low.bit_length() - 1
            targets = attack_mover(f, occupied) & free
            if not targets:
                continue
            part = targets << 6 | f
            run = names.get(part)
            if run is None:
                run = piece_names(part)
            occupied_after = occupied ^ low
            us_after = us ^ low
            if low & (reach1 | reach2):  # it stands in a last piece's way: leaving opens the line
                if low & reach1:
                    lines1 = attack(first, occupied_after)
                    default1 = (lines1 & ~us_after) << 6 | first
                else:
                    lines1 = reach1
                    default1 = part1
                if low & reach2:
                    lines2 = attack(second, occupied_after)
                    default2 = (lines2 & ~us_after) << 6 | second
                else:
                    lines2 = reach2
                    default2 = part2
                leaf = leaves.get((default1, default2))
                if leaf is None:
                    leaf = self.new_leaf_of_parts((default1, default2))
            else:
                lines1 = reach1
                lines2 = reach2
                default1 = part1
                default2 = part2
                if unmoved_leaf is None:
                    unmoved_leaf = leaves.get((part1, part2))
                    if unmoved_leaf is None:
                        unmoved_leaf = self.new_leaf_of_parts((part1, part2))
                leaf = unmoved_leaf
            hits = targets & (lines1 | lines2 | bb_kings)
            if not hits:
                if leaf:
                    tree.update(dict.fromkeys(run, leaf))
                    turns += len(leaf) * len(run)
                continue
            row = [leaf] * len(run)
            whole = len(leaf)
            kings_taken = 0
            while hits:
                to_bb = hits & -hits
                hits ^= to_bb
                index = (targets & (to_bb - 1)).bit_count()
                if to_bb & bb_kings:
                    row[index] = _LEAF
                    kings_taken += 1
                    continue
                now_occupied = occupied_after | to_bb
                now_free = ~(us_after | to_bb)
                key = (
                    (attack(first, now_occupied) & now_free) << 6 | first if lines1 & to_bb else default1,
                    (attack(second, now_occupied) & now_free) << 6 | second if lines2 & to_bb else default2,
                )
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = self.new_leaf_of_parts(key)
                row[index] = subtree
                if not subtree:
                    whole = 0
            if whole:
                tree.update(zip(run, row))
                turns += sum(map(len, row)) + kings_taken
            else:
                turns += _insert(tree, run, row)
        return turns

    def _above_one_moving(self, state: State, square: int, attack: Callable[[int, int], int], tree: MoveTree) -> int:
        """One face's micro-moves above the leaves (see `node`) when the one piece of the last
        die's type (on `square`) moves now too: each leaf is its moves from where it arrives."""
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        targets = attack(square, occupied) & ~us
        if not targets:
            return 0
        part = targets << 6 | square
        run = movegen._NAMES.get(part)
        if run is None:
            run = piece_names(part)
        left = movegen.BB[square]
        occupied_after = occupied ^ left
        us_after = us ^ left
        leaves = self.leaves_by_part
        turns = 0
        for uci in run:
            to_bb = targets & -targets
            targets ^= to_bb
            if to_bb & bb_kings:
                tree[uci] = _LEAF
                turns += 1
                continue
            t = to_bb.bit_length() - 1
            key = (attack(t, occupied_after | to_bb) & ~(us_after | to_bb)) << 6 | t
            subtree = leaves.get(key)
            if subtree is None:
                subtree = self.new_leaf_of_part(key)
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def _above_two_moving(
        self, state: State, first_bb: int, second_bb: int, attack: Callable[[int, int], int], tree: MoveTree
    ) -> int:
        """`_above_one_moving` when the last die's type has two pieces (first_bb < second_bb):
        each leaf is the moves of the one that moved, from where it arrives, and of the other."""
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        names = movegen._NAMES
        leaves = self.leaves_by_targets
        first = first_bb.bit_length() - 1
        second = second_bb.bit_length() - 1
        reach1 = attack(first, occupied)
        reach2 = attack(second, occupied)
        turns = 0
        for left, other, reach, other_reach in ((first_bb, second, reach1, reach2), (second_bb, first, reach2, reach1)):
            targets = reach & ~us
            if not targets:
                continue
            part = targets << 6 | (left.bit_length() - 1)
            run = names.get(part)
            if run is None:
                run = piece_names(part)
            other_part = (other_reach & ~us) << 6 | other
            occupied_after = occupied ^ left
            us_after = us ^ left
            for uci in run:
                to_bb = targets & -targets
                targets ^= to_bb
                if to_bb & bb_kings:
                    tree[uci] = _LEAF
                    turns += 1
                    continue
                t = to_bb.bit_length() - 1
                now_occupied = occupied_after | to_bb
                now_free = ~(us_after | to_bb)
                arrived = (attack(t, now_occupied) & now_free) << 6 | t
                stays = other_part
                if other_reach & (left | to_bb):
                    stays = (attack(other, now_occupied) & now_free) << 6 | other
                key = (arrived, stays) if t < other else (stays, arrived)
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = self.new_leaf_of_parts(key)
                if subtree:
                    tree[uci] = subtree
                    turns += len(subtree)
        return turns

    def _above_one_per_move(
        self, state: State, face: int, rest: Dice, square: int, attack: Callable[[int, int], int], tree: MoveTree
    ) -> int:
        """One face's micro-moves above the leaves (see `node`) when the last die's type
        (`rest`) has one piece (on `square`) and a pawn moves now: move by move, each leaf
        keyed by that piece's part."""
        white = self.white
        bb = movegen.BB
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        reach = attack(square, occupied)
        leaves = self.leaves_by_part
        unmoved = (reach & ~us) << 6 | square
        unmoved_leaf = None
        last = rest[0]
        en_passant = state[EP]
        turns = 0
        subtree: MoveTree | None
        for uci, f, t, promotion in moves(state, face, white, False):
            to_bb = bb[t]
            if bb_kings & to_bb:
                tree[uci] = _LEAF
                turns += 1
                continue
            changed = bb[f] | to_bb
            if changed & en_passant or promotion == last:
                # Takes en passant (a third square empties) or promotes to the last die's
                # type (a second piece of it): from the child's state.
                subtree = self.leaf((advance(state, face, f, t, promotion, white), rest))
            elif changed & reach:
                key = (attack(square, (occupied | to_bb) ^ bb[f]) & ~(us ^ changed)) << 6 | square
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = self.new_leaf_of_part(key)
            else:
                if unmoved_leaf is None:
                    unmoved_leaf = leaves.get(unmoved)
                    if unmoved_leaf is None:
                        unmoved_leaf = self.new_leaf_of_part(unmoved)
                subtree = unmoved_leaf
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def _above_two_per_move(
        self, state: State, face: int, rest: Dice, first_bb: int, second_bb: int,
        attack: Callable[[int, int], int], tree: MoveTree,
    ) -> int:
        """`_above_one_per_move` when the last die's type has two pieces (first_bb < second_bb).
        """
        white = self.white
        bb = movegen.BB
        bb_kings = state[KING] & state[THEM]
        us = state[US]
        occupied = us | state[THEM]
        first = first_bb.bit_length() - 1
        second = second_bb.bit_length() - 1
        reach1 = attack(first, occupied)
        reach2 = attack(second, occupied)
        span = reach1 | reach2
        part1 = (reach1 & ~us) << 6 | first
        part2 = (reach2 & ~us) << 6 | second
        leaves = self.leaves_by_targets
        unmoved_leaf = None
        last = rest[0]
        en_passant = state[EP]
        turns = 0
        subtree: MoveTree | None
        key: tuple[int, int]
        for uci, f, t, promotion in moves(state, face, white, False):
            to_bb = bb[t]
            if bb_kings & to_bb:
                tree[uci] = _LEAF
                turns += 1
                continue
            changed = bb[f] | to_bb
            if changed & en_passant or promotion == last:
                subtree = self.leaf((advance(state, face, f, t, promotion, white), rest))
            elif changed & span:
                now_occupied = (occupied | to_bb) ^ bb[f]
                now_free = ~(us ^ changed)
                key = (
                    (attack(first, now_occupied) & now_free) << 6 | first if reach1 & changed else part1,
                    (attack(second, now_occupied) & now_free) << 6 | second if reach2 & changed else part2,
                )
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = self.new_leaf_of_parts(key)
            else:
                if unmoved_leaf is None:
                    unmoved_leaf = self.leaf_of_parts((part1, part2))
                subtree = unmoved_leaf
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def new_leaf_of_part(self, part: int) -> MoveTree:
        node = self.leaves_by_part[part] = dict.fromkeys(piece_names(part), _LEAF)
        return node

    def leaf_of_parts(self, parts: tuple[int, ...]) -> MoveTree:
        """The leaf node of pieces' moves, `parts` = (targets << 6 | square, ...) in square order."""
        known = self.leaves_by_targets.get(parts)
        return self.new_leaf_of_parts(parts) if known is None else known

    def new_leaf_of_parts(self, parts: tuple[int, ...]) -> MoveTree:
        if len(parts) == 2:
            # Two pieces: the union of each one's own leaf (one piece's leaves are shared by
            # many of these, and merging two dicts is cheaper than making one from names).
            first, second = parts
            alone = self.leaves_by_part
            leaf1 = alone.get(first)
            if leaf1 is None:
                leaf1 = self.new_leaf_of_part(first)
            leaf2 = alone.get(second)
            if leaf2 is None:
                leaf2 = self.new_leaf_of_part(second)
            node = self.leaves_by_targets[parts] = leaf1 | leaf2
            return node
        names: list[str] = []
        known = movegen._NAMES
        for part in parts:
            run = known.get(part)
            names += piece_names(part) if run is None else run
        node = self.leaves_by_targets[parts] = dict.fromkeys(names, _LEAF)
        return node

    def _above_pawn_leaves(self, state: State, face: int, tree: MoveTree) -> int:
        """One face's micro-moves above the leaves (see `node`) with one pawn die left,
        another piece moving now, and no en passant:
        the pawns stay where they are, so a child's pawn moves follow from the squares this
        micro-move empties and fills (pushes) and the piece it takes (captures). Piece by
        piece of the moving type, as in `_above_one_piece`: the moves that touch none of
        those squares all get the same leaf at once."""
        white = self.white
        us = state[US]
        them = state[THEM]
        occupied = us | them
        free = ~us
        bb_kings = state[KING] & them
        own = state[PAWN] & us
        if white:
            steps = (own << 8 | (own & chess.BB_RANK_2) << 16) & ALL
            prey = ((own & ~chess.BB_FILE_A) << 7 | (own & ~chess.BB_FILE_H) << 9) & them
        else:
            steps = own >> 8 | (own & chess.BB_RANK_7) >> 16
            prey = ((own & ~chess.BB_FILE_A) >> 9 | (own & ~chess.BB_FILE_H) >> 7) & them
        pushes = push_key(own, occupied, white)
        attacks = PAWN_ATTACKS[white]
        # (square, the pieces it can take) for each pawn that can take one: their prey's pawn
        # attacks, seen from the other side, show which pawns can.
        captors = [(square, attacks[square] & them) for square in bits(own & _pawn_attackers(prey, white))]
        captures = tuple(capture_key(square, targets, bb_kings) for square, targets in captors)
        touched = steps | prey
        pawn_leaves = self.pawn_leaves
        unmoved_leaf = None
        names = movegen._NAMES
        attack_mover = ATTACKS[face]
        mover = state[face] & us
        turns = 0
        while mover:
            low = mover & -mover
            mover ^= low
            f = low.bit_length() - 1
            targets = attack_mover(f, occupied) & free
            if not targets:
                continue
            part = targets << 6 | f
            run = names.get(part)
            if run is None:
                run = piece_names(part)
            if low & steps:  # it stands in a pawn's way: leaving lets it step
                pushes_after = push_key(own, occupied ^ low, white)
                leaf = pawn_leaves.get((pushes_after,) + captures)
                if leaf is None:
                    leaf = self._pawn_leaf((pushes_after,) + captures)
            else:
                pushes_after = pushes
                if unmoved_leaf is None:
                    unmoved_leaf = self._pawn_leaf((pushes,) + captures)
                leaf = unmoved_leaf
            hits = targets & (touched | bb_kings)
            if not hits:
                if leaf:
                    tree.update(dict.fromkeys(run, leaf))
                    turns += len(leaf) * len(run)
                continue
            row = [leaf] * len(run)
            whole = len(leaf)
            kings_taken = 0
            while hits:
                to_bb = hits & -hits
                hits ^= to_bb
                index = (targets & (to_bb - 1)).bit_count()
                if to_bb & bb_kings:
                    row[index] = _LEAF  # a king capture: complete as it is
                    kings_taken += 1
                    continue
                key: tuple[int, ...] = (
                    push_key(own, (occupied | to_bb) ^ low, white) if to_bb & steps else pushes_after,
                )
                if to_bb & prey:
                    parts: list[int] = []
                    for square, targets_of in captors:
                        targets_of &= ~to_bb
                        if targets_of:
                            parts.append(capture_key(square, targets_of, bb_kings))
                    key += tuple(parts)
                else:
                    key += captures
                subtree = pawn_leaves.get(key)
                if subtree is None:
                    subtree = self._pawn_leaf(key)
                row[index] = subtree
                if not subtree:
                    whole = 0
            if whole:
                tree.update(zip(run, row))
                turns += sum(map(len, row)) + kings_taken
            else:
                turns += _insert(tree, run, row)
        return turns

    def _above_pawn_leaves_after_pawn(self, state: State, tree: MoveTree) -> int:
        """One face's micro-moves above the leaves (see `node`) with two pawn dice left and
        no en passant: a child's leaf is keyed by its pawns' pushes and captures (as in
        `_above_pawn_leaves`), made without its state."""
        white = self.white
        bb = movegen.BB
        us = state[US]
        them = state[THEM]
        occupied = us | them
        bb_kings = state[KING] & them
        own = state[PAWN] & us
        attacks = PAWN_ATTACKS[white]
        turns = 0
        for uci, f, t, promotion in moves(state, PAWN, white, False):
            to_bb = bb[t]
            if bb_kings & to_bb:
                tree[uci] = _LEAF
                turns += 1
                continue
            from_bb = bb[f]
            now_own = own ^ from_bb if promotion else own ^ from_bb ^ to_bb
            now_them = them & ~to_bb
            key: tuple[int, ...] = (push_key(now_own, (occupied | to_bb) ^ from_bb, white),)
            if white:
                capturers = now_own & ((now_them & ~chess.BB_FILE_H) >> 7 | (now_them & ~chess.BB_FILE_A) >> 9)
            else:
                capturers = now_own & ((now_them & ~chess.BB_FILE_A) << 7 | (now_them & ~chess.BB_FILE_H) << 9)
            if capturers:
                key += tuple(capture_key(square, attacks[square] & now_them, bb_kings) for square in bits(capturers))
            subtree = self.pawn_leaves.get(key)
            if subtree is None:
                subtree = self._pawn_leaf(key)
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
        return turns

    def _pawn_leaf(self, key: tuple[int, ...]) -> MoveTree:
        """The leaf of the pawns' moves, `key` = (push_key, capture keys...)."""
        subtree = self.pawn_leaves.get(key)
        if subtree is None:
            names = pawn_push_names(key[0])
            for part in key[1:]:
                names += pawn_capture_names(part)
            subtree = dict.fromkeys(names, _LEAF)
            self.pawn_leaves[key] = subtree
        return subtree

    def _above_leaves_by_state(self, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
        white = self.white
        bb = movegen.BB
        kings = state[KING] & state[THEM]
        leaf_memo = self.leaf_memo
        turns = 0
        for uci, f, t, promotion in moves(state, face, white, False):
            if kings & bb[t]:
                tree[uci] = _LEAF
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

    def leaf(self, key: tuple[State, Dice]) -> MoveTree:
        """The node of `key` = (state, dice) one micro-move short of complete: any single
        micro-move completes the turn (castling would spend 2 dice, more than are left)."""
        known = self.leaf_memo.get(key)
        return self.new_leaf(key) if known is None else known

    def new_leaf(self, key: tuple[State, Dice]) -> MoveTree:
        state, dice = key
        names: list[str] = []
        for face in _FACES[dice]:
            names += move_names(state, face, self.white)
        node = self.leaf_memo[key] = dict.fromkeys(names, _LEAF)
        return node

    def turns(self, tree: MoveTree) -> int:
        """count_turns(tree) for a tree this search built (counted while building)."""
        if not tree:
            return 0
        known = self.counts.get(id(tree))
        return len(tree) if known is None else known


def _castles(state: State, white: bool) -> list[Move]:
    return [m for m in moves(state, KING, white, True) if m[0] in movegen.CASTLE_UCIS and abs(m[2] - m[1]) == 2]


def max_dice(position: Position) -> int:
    """L: the most dice any sequence can spend with the pending roll (castling counts 2)."""
    if not position.dice:
        raise NoDicePending(format_dfen(position))
    return _TurnSearch(position.turn).max_spend(state_of(position), position.dice)


def legal_tree(position: Position) -> MoveTree:
    """Prefix tree of all legal turns for the pending roll; `{}` = forced pass.

    Raises NoDicePending when the position has no roll pending.
    """
    return _searched(position)[1]


def legal_tree_and_turns(position: Position) -> tuple[MoveTree, int]:
    """`legal_tree(position)` and its `count_turns`, counted faster than from the tree alone."""
    search, tree = _searched(position)
    return tree, search.turns(tree)


def _searched(position: Position) -> tuple[_TurnSearch, MoveTree]:
    if not position.dice:
        raise NoDicePending(format_dfen(position))
    white = position.turn
    dice = position.dice
    state = state_of(position)
    if state[EP] and not _en_passant_reachable(state, dice, white):
        # No pawn of the mover can take en passant this turn: the targets change nothing, and
        # without them the pawns' leaves are keyed by their pushes and captures.
        state = state[:EP] + (0,)
    if len(dice) == 3 and all(movegen.has_move(state, face, white) for face in _FACES[dice]):
        # Every die's type can move: nearly always some turn spends all three. Build the tree
        # for L = 3 without searching for L first, and keep it when a micro-move in it has two
        # more after it (then L = 3 and it is the tree); otherwise search for L as below.
        search = _TurnSearch(white)
        tree = search.build(state, dice)
        if any(third for node in tree.values() for third in node.values()):
            return search, tree
    search = _TurnSearch(white)
    longest = search.max_spend(state, dice)
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
