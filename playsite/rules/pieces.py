"""The level above the leaves with one die of a piece type other than pawns left: a child's
leaf is keyed by each piece's part (targets << 6 | square), computed from the squares a
micro-move empties and fills, without the child's state."""

from __future__ import annotations

from collections.abc import Callable

from . import movegen
from .leaves import LEAF, PAIR, LeafTables, MoveTree, without_empty
from .movegen import ALL, ATTACKS, BB, EP, KING, PAWN, QUEEN, THEM, UCI, US, State, advance, moves, piece_names
from .spending import Dice



#: The square of the absent second piece where the last die's type has one piece
#: (`above_pieces`): never attacked from; its reach is empty and its part 0, so a key of one
#: piece is its part. (One builder for one piece and two cost 1.2% more total time over the
#: corpus than two, timed in alternation, p99 unchanged.)
NO_PIECE = 64


def _cuts() -> tuple[list[list[int]], list[list[int]]]:
    """CUT[square][to]: the mask that leaves of a part of the piece on `square` (targets << 6 |
    square) what it still reaches once one of the mover's pieces stands on `to`, one of its
    targets: neither `to` nor, along a line, the squares beyond it, which are what a queen on
    `square` stops reaching when `to` is occupied. (A knight or a king reaches nothing beyond
    `to` anyway, and a knight's target is on no line from it.) CUT_HIGH: the same for the
    second piece of a pair (shifted by PAIR). A new part is then one `&` instead of the
    piece's attacks again: 4.4% fewer instructions on the slowest 3% of the corpus
    (tools/tree_instructions.py), 5% off its p99 in alternation."""
    queen = ATTACKS[QUEEN]
    cut = [
        [((ALL ^ queen(square, 0) ^ queen(square, BB[to]) ^ BB[to]) << 6) | 63 for to in range(64)]
        for square in range(64)
    ]
    high = [[value << PAIR for value in row] for row in cut]
    return cut, high


CUT, CUT_HIGH = _cuts()


def above_many_pieces(tables: LeafTables, state: State, face: int, rest: Dice, tree: MoveTree) -> int:
    """`TurnSearch.node`'s work for one face with one die left, for a piece type other than
    pawns of which the mover has no piece or three or more (the functions below take one or two).

    The moves of those pieces depend only on their squares and on the squares this
    micro-move empties and fills. So a child's leaf follows from each piece's targets (in
    square order), recomputed only for a piece that reaches one of those squares and for
    one that arrives (the piece moving, or a promotion), without the child's state."""
    last = rest[0]
    white = tables.white
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
    leaves = tables.leaves_by_targets
    turns = 0
    subtree: MoveTree | None
    for uci, f, t, promotion in moves(state, face, white, False):
        if kings & bb[t]:
            tree[uci] = LEAF
            turns += 1
            continue
        changed = bb[f] | bb[t]
        if changed & en_passant:
            # Takes en passant, which empties a third square: from the child's state.
            subtree = tables.leaf((advance(state, face, f, t, promotion, white), rest))
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
                    unmoved_leaf = tables.leaf_of_parts(unmoved)
                subtree = unmoved_leaf
                key = None
            if key is not None:
                subtree = leaves.get(key)
                if subtree is None:
                    subtree = tables.new_leaf_of_parts(key)
        if subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns


def above_pieces(
    tables: LeafTables, state: State, face: int, first: int, second: int, attack: Callable[[int, int], int],
    tree: MoveTree,
) -> int:
    """One face's micro-moves above the leaves (see `TurnSearch.node`) when the last die's type
    has one or two pieces (on `first`, and on `second` or NO_PIECE) and another type, not a
    pawn, moves now: a child's leaf is those pieces' moves, keyed by their parts. Piece by piece
    of the moving type: its moves to squares off the last pieces' lines (as they are once it has
    left its square) all get the same leaf, inserted at once; only the others are keyed one by
    one."""
    bb_kings = state[KING] & state[THEM]
    us = state[US]
    occupied = us | state[THEM]
    free = ~us
    reach1 = attack(first, occupied)
    reach2 = attack(second, occupied) if second != NO_PIECE else 0
    part1 = (reach1 & free) << 6 | first
    part2 = ((reach2 & free) << 6 | second) << PAIR if reach2 else 0
    span = reach1 | reach2
    unmoved_hits = span | bb_kings
    leaves = tables.leaves_by_part
    unmoved_leaf = None
    turns = 0
    names = movegen._NAMES
    attack_mover = ATTACKS[face]
    own = state[face] & us
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
        if low & span:  # it stands in a last piece's way: leaving opens the line
            occupied_after = occupied ^ low
            us_after = us ^ low
            if low & reach1:
                lines1 = attack(first, occupied_after)
                default1 = (lines1 & ~us_after) << 6 | first
            else:
                lines1 = reach1
                default1 = part1
            if low & reach2:
                lines2 = attack(second, occupied_after)
                default2 = ((lines2 & ~us_after) << 6 | second) << PAIR
            else:
                lines2 = reach2
                default2 = part2
            leaf = leaves.get(default1 | default2)
            if leaf is None:
                leaf = tables.new_leaf_of_pieces(default1 | default2)
            hits = targets & (lines1 | lines2 | bb_kings)
        else:
            lines1 = reach1
            lines2 = reach2
            default1 = part1
            default2 = part2
            if unmoved_leaf is None:
                unmoved_leaf = leaves.get(part1 | part2)
                if unmoved_leaf is None:
                    unmoved_leaf = tables.new_leaf_of_pieces(part1 | part2)
            leaf = unmoved_leaf
            hits = targets & unmoved_hits
        if not hits:
            if leaf:
                tree.update(dict.fromkeys(run, leaf))
                turns += len(leaf) * len(run)
            continue
        # Every move gets the piece's leaf, then each hit its own (a dict keeps a key's place).
        entries = dict.fromkeys(run, leaf)
        whole = len(leaf)
        turns += whole * len(run)
        some_empty = not whole
        named = UCI[f]
        while hits:
            to_bb = hits & -hits
            hits ^= to_bb
            to = to_bb.bit_length() - 1
            if to_bb & bb_kings:
                entries[named[to]] = LEAF
                turns += 1 - whole
                continue
            key = (default1 & CUT[first][to] if lines1 & to_bb else default1) | (
                default2 & CUT_HIGH[second][to] if lines2 & to_bb else default2
            )
            subtree = leaves.get(key)
            if subtree is None:
                subtree = tables.new_leaf_of_pieces(key)
            entries[named[to]] = subtree
            turns += len(subtree) - whole
            if not subtree:
                some_empty = True
        tree.update(without_empty(entries) if some_empty else entries)
    return turns


def above_one_moving(
    tables: LeafTables, state: State, square: int, attack: Callable[[int, int], int], tree: MoveTree
) -> int:
    """One face's micro-moves above the leaves (see `TurnSearch.node`) when the one piece of
    the last die's type (on `square`) moves now too: each leaf is its moves from where it
    arrives. (Kept apart from `above_two_moving`: one builder for both, taking one piece as two
    with an absent second, measured 0-1.1% more total time over the corpus and 0.001-0.006 ms
    more p99 in alternation, 0.003-0.013 ms with `above_per_move` merged too.)"""
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
    free_after = ~(us ^ left)
    leaves = tables.leaves_by_part
    turns = 0
    for uci in run:
        to_bb = targets & -targets
        targets ^= to_bb
        if to_bb & bb_kings:
            tree[uci] = LEAF
            turns += 1
            continue
        t = to_bb.bit_length() - 1
        # A piece's attacks from `t` neither depend on whether `t` is occupied nor include it.
        key = (attack(t, occupied_after) & free_after) << 6 | t
        subtree = leaves.get(key)
        if subtree is None:
            subtree = tables.new_leaf_of_pieces(key)
        if subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns


def above_two_moving(
    tables: LeafTables, state: State, first: int, second: int, attack: Callable[[int, int], int], tree: MoveTree
) -> int:
    """`above_one_moving` when the last die's type has two pieces (on `first` < `second`): each
    leaf is the moves of the one that moved, from where it arrives, and of the other."""
    bb_kings = state[KING] & state[THEM]
    us = state[US]
    occupied = us | state[THEM]
    names = movegen._NAMES
    leaves = tables.leaves_by_part
    reach1 = attack(first, occupied)
    reach2 = attack(second, occupied)
    turns = 0
    for square, other, reach, other_reach in ((first, second, reach1, reach2), (second, first, reach2, reach1)):
        targets = reach & ~us
        if not targets:
            continue
        part = targets << 6 | square
        run = names.get(part)
        if run is None:
            run = piece_names(part)
        other_part = (other_reach & ~us) << 6 | other
        other_high = other_part << PAIR
        left = movegen.BB[square]
        occupied_after = occupied ^ left
        free_after = ~(us ^ left)
        opened = other_reach & left  # it leaves the other's line: that one reaches further
        for uci in run:
            to_bb = targets & -targets
            targets ^= to_bb
            if to_bb & bb_kings:
                tree[uci] = LEAF
                turns += 1
                continue
            t = to_bb.bit_length() - 1
            # A piece's attacks from `t` neither depend on whether `t` is occupied nor include it.
            arrived = (attack(t, occupied_after) & free_after) << 6 | t
            if opened or other_reach & to_bb:
                stays = (attack(other, occupied_after | to_bb) & free_after & ~to_bb) << 6 | other
                key = arrived | stays << PAIR if t < other else stays | arrived << PAIR
            else:
                key = arrived | other_high if t < other else other_part | arrived << PAIR
            subtree = leaves.get(key)
            if subtree is None:
                subtree = tables.new_leaf_of_pieces(key)
            if subtree:
                tree[uci] = subtree
                turns += len(subtree)
    return turns


def above_one_per_move(
    tables: LeafTables, state: State, face: int, rest: Dice, square: int, attack: Callable[[int, int], int],
    tree: MoveTree,
) -> int:
    """One face's micro-moves above the leaves (see `TurnSearch.node`) when the last die's type
    (`rest`) has one piece (on `square`) and a pawn moves now: move by move, each leaf keyed
    by that piece's part. (Kept apart from `above_two_per_move`, as `above_one_moving` is: merged,
    0-0.9% more total time over the corpus and up to 0.007 ms more p99 in alternation.)"""
    white = tables.white
    bb = movegen.BB
    bb_kings = state[KING] & state[THEM]
    us = state[US]
    occupied = us | state[THEM]
    reach = attack(square, occupied)
    leaves = tables.leaves_by_part
    unmoved = (reach & ~us) << 6 | square
    unmoved_leaf = None
    last = rest[0]
    en_passant = state[EP]
    turns = 0
    subtree: MoveTree | None
    for uci, f, t, promotion in moves(state, face, white, False):
        to_bb = bb[t]
        if bb_kings & to_bb:
            tree[uci] = LEAF
            turns += 1
            continue
        changed = bb[f] | to_bb
        if changed & en_passant or promotion == last:
            # Takes en passant (a third square empties) or promotes to the last die's
            # type (a second piece of it): from the child's state.
            subtree = tables.leaf((advance(state, face, f, t, promotion, white), rest))
        elif changed & reach:
            if bb[f] & reach:  # the pawn leaves the piece's line: it reaches further
                key = (attack(square, (occupied | to_bb) ^ bb[f]) & ~(us ^ changed)) << 6 | square
            else:  # it arrives on it: the line ends there
                key = unmoved & CUT[square][t]
            subtree = leaves.get(key)
            if subtree is None:
                subtree = tables.new_leaf_of_pieces(key)
        else:
            if unmoved_leaf is None:
                unmoved_leaf = leaves.get(unmoved)
                if unmoved_leaf is None:
                    unmoved_leaf = tables.new_leaf_of_pieces(unmoved)
            subtree = unmoved_leaf
        if subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns


def above_two_per_move(
    tables: LeafTables, state: State, face: int, rest: Dice, first: int, second: int,
    attack: Callable[[int, int], int], tree: MoveTree,
) -> int:
    """`above_one_per_move` when the last die's type has two pieces (on `first` < `second`)."""
    white = tables.white
    bb = movegen.BB
    bb_kings = state[KING] & state[THEM]
    us = state[US]
    occupied = us | state[THEM]
    reach1 = attack(first, occupied)
    reach2 = attack(second, occupied)
    span = reach1 | reach2
    part1 = (reach1 & ~us) << 6 | first
    part2 = ((reach2 & ~us) << 6 | second) << PAIR
    leaves = tables.leaves_by_part
    unmoved_leaf = None
    last = rest[0]
    en_passant = state[EP]
    turns = 0
    subtree: MoveTree | None
    for uci, f, t, promotion in moves(state, face, white, False):
        to_bb = bb[t]
        if bb_kings & to_bb:
            tree[uci] = LEAF
            turns += 1
            continue
        changed = bb[f] | to_bb
        if changed & en_passant or promotion == last:
            # Takes en passant (a third square empties) or promotes to the last die's type (a
            # piece more of it): from the child's state.
            subtree = tables.leaf((advance(state, face, f, t, promotion, white), rest))
        elif changed & span:
            if bb[f] & span:  # the pawn leaves a line of theirs: it reaches further
                now_occupied = (occupied | to_bb) ^ bb[f]
                now_free = ~(us ^ changed)
                key = ((attack(first, now_occupied) & now_free) << 6 | first if reach1 & changed else part1) | (
                    ((attack(second, now_occupied) & now_free) << 6 | second) << PAIR if reach2 & changed else part2
                )
            else:  # it arrives on one or both: each line it is on ends there
                key = (part1 & CUT[first][t] if reach1 & to_bb else part1) | (
                    part2 & CUT_HIGH[second][t] if reach2 & to_bb else part2
                )
            subtree = leaves.get(key)
            if subtree is None:
                subtree = tables.new_leaf_of_pieces(key)
        else:
            if unmoved_leaf is None:
                unmoved_leaf = leaves.get(part1 | part2)
                if unmoved_leaf is None:
                    unmoved_leaf = tables.new_leaf_of_pieces(part1 | part2)
            subtree = unmoved_leaf
        if subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns
