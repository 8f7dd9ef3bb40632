"""The level above the leaves with one pawn die left (no en passant): a child's leaf is keyed
by its pawns' pushes and captures, computed from the squares a micro-move empties and fills."""

from __future__ import annotations

import chess

from . import movegen
from .leaves import LEAF, LeafTables, MoveTree, without_empty
from .movegen import (
    ALL,
    ATTACKS,
    KING,
    PAWN,
    PAWN_ATTACKS,
    THEM,
    UCI,
    US,
    State,
    bits,
    capture_key,
    moves,
    piece_names,
    push_key,
)
from .zones import pawn_attackers


def above_pawn_leaves(tables: LeafTables, state: State, face: int, tree: MoveTree) -> int:
    """One face's micro-moves above the leaves (see `TurnSearch.node`) with one pawn die left,
    another piece moving now, and no en passant:
    the pawns stay where they are, so a child's pawn moves follow from the squares this
    micro-move empties and fills (pushes) and the piece it takes (captures). Piece by
    piece of the moving type, as in `pieces.above_pieces`: the moves that touch none of
    those squares all get the same leaf at once."""
    white = tables.white
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
    captors = [(square, attacks[square] & them) for square in bits(own & pawn_attackers(prey, white))]
    captures = tuple(capture_key(square, targets, bb_kings) for square, targets in captors)
    touched = steps | prey | bb_kings
    pawn_leaves = tables.pawn_leaves
    unmoved_leaf = None
    turns = 0
    names = movegen._NAMES
    attack_mover = ATTACKS[face]
    mover = state[face] & us
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
                leaf = tables.pawn_leaf((pushes_after,) + captures)
        else:
            pushes_after = pushes
            if unmoved_leaf is None:
                unmoved_leaf = tables.pawn_leaf((pushes,) + captures)
            leaf = unmoved_leaf
        hits = targets & touched
        if not hits:
            if leaf:
                tree.update(dict.fromkeys(run, leaf))
                turns += len(leaf) * len(run)
            continue
        # Every move gets the pawns' leaf, then each hit its own (a dict keeps a key's place).
        entries = dict.fromkeys(run, leaf)
        whole = len(leaf)
        turns += whole * len(run)
        some_empty = not whole
        named = UCI[f]
        while hits:
            to_bb = hits & -hits
            hits ^= to_bb
            if to_bb & bb_kings:
                entries[named[to_bb.bit_length() - 1]] = LEAF  # a king capture: complete as it is
                turns += 1 - whole
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
                subtree = tables.pawn_leaf(key)
            entries[named[to_bb.bit_length() - 1]] = subtree
            turns += len(subtree) - whole
            if not subtree:
                some_empty = True
        tree.update(without_empty(entries) if some_empty else entries)
    return turns

def above_pawn_leaves_after_pawn(tables: LeafTables, state: State, tree: MoveTree) -> int:
    """One face's micro-moves above the leaves (see `TurnSearch.node`) with two pawn dice left and
    no en passant: a child's leaf is keyed by its pawns' pushes and captures (as in
    `above_pawn_leaves`), made without its state."""
    white = tables.white
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
            tree[uci] = LEAF
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
        subtree = tables.pawn_leaves.get(key)
        if subtree is None:
            subtree = tables.pawn_leaf(key)
        if subtree:
            tree[uci] = subtree
            turns += len(subtree)
    return turns
