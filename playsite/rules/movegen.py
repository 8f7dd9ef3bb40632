"""Micro-move generation over a light bitboard state (the hot path of the turn tree).

Inside one turn the mover never changes, so the search works on a *mover-relative* state
tuple instead of `Position`:

    (us, pawns, knights, bishops, rooks, queens, kings, them, castling, ep)

Index `piece_type` (1..6) is that type's mask for both colours, so `state[pt] & state[US]`
are the mover's pieces of type pt. `ep` holds the targets the mover may capture on. The
attack tables are python-chess's; nothing here builds a chess.Board.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import chess

State = tuple[int, ...]
"""The mover-relative search state above: ten masks."""
Move = tuple[str, int, int, int]
"""One micro-move: (uci, from square, to square, promotion piece type or 0)."""
_Run = TypeVar("_Run", tuple[Move, ...], tuple[str, ...])
_T = TypeVar("_T")

US, THEM, CASTLING, EP = 0, 7, 8, 9
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
ALL = chess.BB_ALL
BB = chess.BB_SQUARES
SQUARE_NAMES = chess.SQUARE_NAMES
PIECE_NAMES = {1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king"}
PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)
PROMOTION_LETTERS = {QUEEN: "q", ROOK: "r", BISHOP: "b", KNIGHT: "n"}

_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
PAWN_ATTACKS = chess.BB_PAWN_ATTACKS
_DIAG_MASKS = chess.BB_DIAG_MASKS
_DIAG_ATTACKS = chess.BB_DIAG_ATTACKS
_RANK_MASKS = chess.BB_RANK_MASKS
_RANK_ATTACKS = chess.BB_RANK_ATTACKS
_FILE_MASKS = chess.BB_FILE_MASKS
_FILE_ATTACKS = chess.BB_FILE_ATTACKS

UCI = [[SQUARE_NAMES[f] + SQUARE_NAMES[t] for t in range(64)] for f in range(64)]
#: Every (uci, from, to, 0) micro-move tuple, made once: the memoised runs below share them.
MOVE = [[(UCI[f][t], f, t, 0) for t in range(64)] for f in range(64)]

#: Castling as one king micro-move: (rook square holding the right, king from, king to,
#: rook from, rook to, squares that must be empty), per colour.
CASTLES = {
    True: (
        (chess.H1, chess.E1, chess.G1, chess.H1, chess.F1, chess.BB_F1 | chess.BB_G1),
        (chess.A1, chess.E1, chess.C1, chess.A1, chess.D1, chess.BB_B1 | chess.BB_C1 | chess.BB_D1),
    ),
    False: (
        (chess.H8, chess.E8, chess.G8, chess.H8, chess.F8, chess.BB_F8 | chess.BB_G8),
        (chess.A8, chess.E8, chess.C8, chess.A8, chess.D8, chess.BB_B8 | chess.BB_C8 | chess.BB_D8),
    ),
}
CASTLE_UCIS = frozenset(UCI[k][t] for side in CASTLES.values() for _, k, t, _, _, _ in side)

# A move from or to one of these squares removes the listed castling rights for good.
_RIGHTS_LOST = [0] * 64
_RIGHTS_LOST[chess.E1] = chess.BB_A1 | chess.BB_H1
_RIGHTS_LOST[chess.E8] = chess.BB_A8 | chess.BB_H8
for _sq in (chess.A1, chess.H1, chess.A8, chess.H8):
    _RIGHTS_LOST[_sq] = BB[_sq]
RIGHTS_KEPT = [ALL ^ lost for lost in _RIGHTS_LOST]


#: Moves of one piece, keyed by `targets << 6 | from square`: (uci, from, to, 0) tuples in
#: _RUNS, UCI names in _NAMES; pawn pushes by `push_key`, one pawn's captures (and their
#: names) by `capture_key`. A memo of a pure function (a piece on a square with a given
#: target set always has the same moves), shared by every search in the process: most of a
#: tree's leaves repeat some piece's run. Each table is emptied when it reaches _RUNS_MAX.
_RUNS: dict[int, tuple[Move, ...]] = {}
_NAMES: dict[int, tuple[str, ...]] = {}
_PAWN_PUSHES: dict[int, tuple[Move, ...]] = {}
_PAWN_CAPTURES: dict[int, tuple[Move, ...]] = {}
_PAWN_CAPTURE_NAMES: dict[int, tuple[str, ...]] = {}
_RUNS_MAX = 1 << 15
"""~170 bytes an entry, so at most ~5.5 MiB a table. A serving process at 400 turns/s names
~1,000 pieces' moves it has not named before every second: with 8,192 entries `_NAMES` was
emptied every ~3 s and missed 1.7 times as often as with this bound (docs/performance.md)."""


def forget_moves() -> None:
    """Empty the tables of memoised moves (benchmarks time trees from empty tables)."""
    for table in (_RUNS, _NAMES, _PAWN_PUSHES, _PAWN_CAPTURES, _PAWN_CAPTURE_NAMES):
        table.clear()


def _remember(table: dict[int, _Run], key: int, run: _Run) -> _Run:
    if len(table) >= _RUNS_MAX:
        table.clear()
    table[key] = run
    return run


#: The squares of each byte value in each rank, lowest first: `squares` reads a mask a rank
#: at a time (about twice as fast as bit by bit for a slider's targets).
_RANK_SQUARES = [[tuple(8 * rank + i for i in range(8) if value >> i & 1) for value in range(256)] for rank in range(8)]


def by_rank(mask: int, table: Sequence[Sequence[tuple[_T, ...]]], rank: int = 0) -> list[_T]:
    """`table[rank][byte]` for each non-empty byte of `mask` (its lowest byte on `rank`), joined:
    a bitboard read a rank at a time. Its bytes are read from `to_bytes`, not cut off with `& 255`
    and `>>= 8`: every operation on a bitboard over 2**30 makes a new int, and these made a
    tenth of the trees' integer operations (2.5% of the instructions of the largest trees)."""
    out: list[_T] = []
    for value in mask.to_bytes((mask.bit_length() + 7) >> 3, "little"):
        if value:
            out += table[rank][value]
        rank += 1
    return out


def squares(mask: int) -> list[int]:
    """Squares of `mask`, lowest first (as `bits`, as a list)."""
    return by_rank(mask, _RANK_SQUARES)


def bits(mask: int) -> Iterator[int]:
    """Squares of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _bishop(square: int, occupied: int) -> int:
    return _DIAG_ATTACKS[square][_DIAG_MASKS[square] & occupied]


def _rook(square: int, occupied: int) -> int:
    return _RANK_ATTACKS[square][_RANK_MASKS[square] & occupied] | _FILE_ATTACKS[square][_FILE_MASKS[square] & occupied]


def _queen(square: int, occupied: int) -> int:
    return (
        _DIAG_ATTACKS[square][_DIAG_MASKS[square] & occupied]
        | _RANK_ATTACKS[square][_RANK_MASKS[square] & occupied]
        | _FILE_ATTACKS[square][_FILE_MASKS[square] & occupied]
    )


def _knight(square: int, occupied: int) -> int:
    return _KNIGHT[square]


def _king(square: int, occupied: int) -> int:
    return _KING[square]


ATTACKS: dict[int, Callable[[int, int], int]] = {
    KNIGHT: _knight, BISHOP: _bishop, ROOK: _rook, QUEEN: _queen, KING: _king,
}
"""Piece type (not a pawn) -> the squares such a piece on a square attacks, given the
occupied squares, whoever stands there: one call where the tree's inner loops need it."""


def moves(state: State, piece_type: int, white: bool, castling: bool) -> list[Move]:
    """Micro-moves of the mover's pieces of `piece_type`, as (uci, from, to, promotion).

    `promotion` is 0 when there is none. With `castling`, king moves include the castling
    moves whose right is intact and whose squares between king and rook are empty (the rook
    die it also needs is the caller's business).
    """
    us = state[US]
    them = state[THEM]
    occupied = us | them
    out: list[Move] = []
    own = state[piece_type] & us
    if piece_type == PAWN:
        _pawn_moves(state, own, us, them, occupied, white, out)
        return out
    extend = out.extend
    runs = _RUNS
    attack = ATTACKS[piece_type]
    while own:
        low = own & -own
        own ^= low
        f = low.bit_length() - 1
        targets = attack(f, occupied) & ~us
        key = targets << 6 | f
        run = runs.get(key)
        if run is None:
            run = _remember(runs, key, tuple(map(MOVE[f].__getitem__, squares(targets))))
        extend(run)
    if piece_type == KING and castling and state[CASTLING]:
        for right, k, kt, _, _, between in CASTLES[white]:
            if state[CASTLING] & BB[right] and not occupied & between:
                out.append(MOVE[k][kt])
    return out


def _pawn_moves(state: State, own: int, us: int, them: int, occupied: int, white: bool, out: list[Move]) -> None:
    out.extend(pawn_pushes(push_key(own, occupied, white)))
    ep = state[EP] & ~occupied
    prey = them | ep
    # The pawns that can take something: those a pawn of the other side on a prey square attacks.
    if white:
        capturers = own & ((prey & ~chess.BB_FILE_H) >> 7 | (prey & ~chess.BB_FILE_A) >> 9)
    else:
        capturers = own & ((prey & ~chess.BB_FILE_A) << 7 | (prey & ~chess.BB_FILE_H) << 9)
    if not capturers:
        return  # no pawn can capture: most of the time
    kings = state[KING]
    attacks = PAWN_ATTACKS[white]
    captures = _PAWN_CAPTURES
    while capturers:
        low = capturers & -capturers
        capturers ^= low
        f = low.bit_length() - 1
        targets = attacks[f] & them
        if targets:
            key = capture_key(f, targets, kings)
            run = captures.get(key)
            if run is None:
                run = pawn_captures(key)
            out.extend(run)
        if ep and attacks[f] & ep:
            victim_step = -8 if white else 8
            for t in bits(attacks[f] & ep):
                if state[PAWN] & them & BB[t + victim_step]:
                    out.append(MOVE[f][t])


def push_key(own: int, occupied: int, white: bool) -> int:
    """What the pushes of the mover's pawns `own` depend on: the squares they step to once (a
    bitboard) and twice (a byte: those of the fourth rank from the mover's side), as
    `single << 8 | double`, complemented for Black (so negative, never one of White's keys).
    Both bitboards side by side made a 129-bit int, each operation on it dearer: this key
    took 0.5% off the instructions of the largest trees."""
    free = ~occupied
    if white:
        single = own << 8 & free
        return single << 8 | (single & chess.BB_RANK_3) >> 16 & free >> 24
    single = own >> 8 & free
    return ~(single << 8 | (single & chess.BB_RANK_6) >> 40 & free >> 32)


def pawn_pushes(key: int) -> tuple[Move, ...]:
    """The pushes of `push_key`, single steps first (promotions spelt out), then double steps."""
    run = _PAWN_PUSHES.get(key)
    if run is not None:
        return run
    white = key >= 0
    pushes = key if white else ~key
    single = pushes >> 8
    double = pushes & 255
    step = 8 if white else -8
    # Single steps in square order: White's promotions (rank 8) come last, Black's (rank 1) first.
    promoting = single & (chess.BB_RANK_8 if white else chess.BB_RANK_1)
    out: list[Move] = []
    if promoting and not white:
        for t in squares(promoting):
            _pawn_arrival(t - step, t, white, False, out.append)
    out += [MOVE[t - step][t] for t in squares(single ^ promoting)]
    if promoting and white:
        for t in squares(promoting):
            _pawn_arrival(t - step, t, white, False, out.append)
    out += [MOVE[t - 2 * step][t] for t in _RANK_SQUARES[3 if white else 4][double]]
    return _remember(_PAWN_PUSHES, key, tuple(out))


def _push_names(step: int, ranks: range) -> list[list[tuple[str, ...]]]:
    """Rank -> byte of target squares on it -> UCI names of the pawn moves `step` squares
    long that reach them (filled for the ranks in `ranks` only)."""
    table: list[list[tuple[str, ...]]] = [[()] * 256 for _ in range(8)]
    for rank in ranks:
        table[rank] = [tuple(UCI[t - step][t] for t in _RANK_SQUARES[rank][value]) for value in range(256)]
    return table


#: Per colour (False, True): the names of single steps onto ranks that do not promote, by rank
#: and byte, and of double steps, by byte: a pawn leaf's pushes are named a rank at a time.
_SINGLE_PUSH_NAMES = (_push_names(-8, range(1, 7)), _push_names(8, range(1, 7)))
_DOUBLE_PUSH_NAMES = (_push_names(-16, range(4, 5))[4], _push_names(16, range(3, 4))[3])
_PROMOTION_RANKS = (chess.BB_RANK_1, chess.BB_RANK_8)


def pawn_push_names(key: int) -> list[str]:
    """UCI names of `pawn_pushes(key)`, as a new list. Not memoised: a tree's pawn leaves
    rarely share their pushes (each leaf is made once per key)."""
    white = key >= 0
    pushes = key if white else ~key
    single = pushes >> 8
    if single & _PROMOTION_RANKS[white]:
        return [move[0] for move in pawn_pushes(key)]
    # no pawn steps onto the first rank without promoting
    names = by_rank(single >> 8, _SINGLE_PUSH_NAMES[white], 1)
    double = pushes & 255
    if double:
        names += _DOUBLE_PUSH_NAMES[white][double]
    return names


def capture_key(square: int, targets: int, kings: int) -> int:
    """What one pawn's captures depend on: the pieces it can take, and the kings among them."""
    return ((targets & kings) << 64 | targets) << 6 | square


def pawn_captures(key: int) -> tuple[Move, ...]:
    """The captures of one pawn, `key` = `capture_key(...)` (no promotion when the king is
    taken)."""
    run = _PAWN_CAPTURES.get(key)
    if run is not None:
        return run
    f = key & 63
    targets = (key >> 6) & ALL
    kings = key >> 70
    white = targets > BB[f]  # White's pawns take upwards
    out: list[Move] = []
    for t in bits(targets):
        _pawn_arrival(f, t, white, bool(kings & BB[t]), out.append)
    return _remember(_PAWN_CAPTURES, key, tuple(out))


def pawn_capture_names(key: int) -> tuple[str, ...]:
    """UCI names of `pawn_captures(key)`."""
    run = _PAWN_CAPTURE_NAMES.get(key)
    if run is None:
        run = _remember(_PAWN_CAPTURE_NAMES, key, tuple([move[0] for move in pawn_captures(key)]))
    return run


def _pawn_arrival(f: int, t: int, white: bool, takes_king: bool, append: Callable[[Move], None]) -> None:
    if BB[t] & (chess.BB_RANK_8 if white else chess.BB_RANK_1) and not takes_king:
        uci = UCI[f][t]
        for promotion in PROMOTIONS:
            append((uci + PROMOTION_LETTERS[promotion], f, t, promotion))
    else:
        append(MOVE[f][t])


def _reach_names() -> list[list[list[tuple[str, ...]]]]:
    """From-square -> rank -> byte of target squares on it -> the UCI names of the moves from
    that square to them, for every byte a piece on the square can reach on an empty board
    (a queen's or a knight's squares; empty for the others): `piece_names` names a piece's
    moves a rank at a time. Built once, at import (~40 ms, ~1.8 MiB): 13,728 runs of names.
    (The same table of moves for `moves` was timed too, and changed nothing.)"""
    table: list[list[list[tuple[str, ...]]]] = []
    for f in range(64):
        of = UCI[f].__getitem__
        reach = chess.BB_KNIGHT_ATTACKS[f] | _DIAG_ATTACKS[f][0] | _RANK_ATTACKS[f][0] | _FILE_ATTACKS[f][0]
        ranks: list[list[tuple[str, ...]]] = []
        for rank in range(8):
            row: list[tuple[str, ...]] = [()] * 256
            full = reach >> 8 * rank & 255
            value = full
            while True:  # every subset of `full`
                row[value] = tuple(map(of, _RANK_SQUARES[rank][value]))
                if not value:
                    break
                value = (value - 1) & full
            ranks.append(row)
        table.append(ranks)
    return table


_REACH_NAMES = _reach_names()


def piece_names(part: int) -> tuple[str, ...]:
    """UCI names of one piece's moves, `part` = its targets << 6 | its square."""
    run = _NAMES.get(part)
    if run is None:
        run = _remember(_NAMES, part, tuple(by_rank(part >> 6, _REACH_NAMES[part & 63])))
    return run


def move_names(state: State, piece_type: int, white: bool) -> list[str]:
    """UCI names of `moves(state, piece_type, white, castling=False)`, built faster.

    The last die of a turn needs no child states, only names: this is the leaf level of
    the tree, where most of the work is.
    """
    us = state[US]
    own = state[piece_type] & us
    if piece_type == PAWN:
        return _pawn_names(state, own, us, white)
    names: list[str] = []
    extend = names.extend
    runs = _NAMES
    attack = ATTACKS[piece_type]
    occupied = us | state[THEM]
    while own:
        low = own & -own
        own ^= low
        f = low.bit_length() - 1
        key = (attack(f, occupied) & ~us) << 6 | f
        run = runs.get(key)
        if run is None:
            run = piece_names(key)
        extend(run)
    return names


def _pawn_names(state: State, own: int, us: int, white: bool) -> list[str]:
    """UCI names of the pawn moves `_pawn_moves` makes, in its order, without move tuples."""
    them = state[THEM]
    occupied = us | them
    names = pawn_push_names(push_key(own, occupied, white))
    ep = state[EP] & ~occupied
    prey = them | ep
    if white:
        capturers = own & ((prey & ~chess.BB_FILE_H) >> 7 | (prey & ~chess.BB_FILE_A) >> 9)
    else:
        capturers = own & ((prey & ~chess.BB_FILE_A) << 7 | (prey & ~chess.BB_FILE_H) << 9)
    if not capturers:
        return names
    kings = state[KING]
    attacks = PAWN_ATTACKS[white]
    while capturers:
        low = capturers & -capturers
        capturers ^= low
        f = low.bit_length() - 1
        targets = attacks[f] & them
        if targets:
            names += pawn_capture_names(capture_key(f, targets, kings))
        if ep and attacks[f] & ep:
            victim_step = -8 if white else 8
            for t in bits(attacks[f] & ep):
                if state[PAWN] & them & BB[t + victim_step]:
                    names.append(UCI[f][t])
    return names


def has_move(state: State, piece_type: int, white: bool) -> bool:
    """Whether any piece of the mover of `piece_type` has a micro-move (castling aside)."""
    us = state[US]
    own = state[piece_type] & us
    if not own:
        return False
    if piece_type == PAWN:
        return bool(moves(state, PAWN, white, False))
    attack = ATTACKS[piece_type]
    occupied = us | state[THEM]
    return any(attack(f, occupied) & ~us for f in bits(own))


def play(state: State, piece_type: int, f: int, t: int, promotion: int, white: bool) -> tuple[State, int, int]:
    """Apply one micro-move of the mover's `piece_type` piece on `f`.

    Returns (new state, captured piece type or 0, mask of the en-passant target it creates).

    The mover stays the mover: the result is the state for the rest of the same turn.
    """
    to_bb = BB[t]
    captured = 0
    if state[THEM] & to_bb:
        captured = next(victim for victim in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING) if state[victim] & to_bb)
    elif piece_type == PAWN and (t - f) % 8:
        captured = PAWN  # a diagonal step onto an empty square: en passant
    created = BB[(f + t) // 2] if piece_type == PAWN and (t - f == 16 or f - t == 16) else 0
    return advance(state, piece_type, f, t, promotion, white), captured, created


def advance(state: State, piece_type: int, f: int, t: int, promotion: int, white: bool) -> State:
    """The state after one micro-move: `play` without the facts about it (the tree's hot path)."""
    from_bb = BB[f]
    to_bb = BB[t]
    if not state[THEM] & to_bb and KNIGHT <= piece_type <= QUEEN:
        # A piece other than a pawn or the king moving to an empty square: most micro-moves.
        moved = from_bb | to_bb
        s = list(state)
        s[US] ^= moved
        s[piece_type] ^= moved
        if s[CASTLING]:
            s[CASTLING] &= RIGHTS_KEPT[f] & RIGHTS_KEPT[t]
        return tuple(s)
    s = list(state)
    if s[THEM] & to_bb:
        s[THEM] ^= to_bb
        for captured in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
            if s[captured] & to_bb:
                s[captured] ^= to_bb
                break
    elif piece_type == PAWN and (t - f) % 8:
        victim = BB[t - 8 if white else t + 8]
        s[THEM] ^= victim
        s[PAWN] ^= victim
    s[US] ^= from_bb | to_bb
    s[piece_type] ^= from_bb
    s[promotion or piece_type] |= to_bb
    if piece_type == KING and (t - f == 2 or f - t == 2):
        for _, _, kt, rf, rt, _ in CASTLES[white]:
            if kt == t:
                s[ROOK] ^= BB[rf] | BB[rt]
                s[US] ^= BB[rf] | BB[rt]
    s[CASTLING] &= RIGHTS_KEPT[f] & RIGHTS_KEPT[t]
    return tuple(s)
