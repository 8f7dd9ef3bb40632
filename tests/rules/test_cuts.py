"""pieces.CUT: a piece's part after one of the mover's pieces lands on one of its targets is
its part `&` the cut, exactly what its attacks from scratch give (every type, every target)."""

from __future__ import annotations

import random

from playsite.rules.leaves import PAIR
from playsite.rules.movegen import ATTACKS, BB, BISHOP, KING, KNIGHT, QUEEN, ROOK, bits
from playsite.rules.pieces import CUT, CUT_HIGH


def test_a_part_cut_at_an_arrival_is_the_part_recomputed_with_it():
    rng = random.Random(11)
    checked = 0
    for _ in range(400):
        squares = rng.sample(range(64), rng.randint(2, 30))
        us = sum(BB[s] for s in squares[: len(squares) // 2])
        occupied = sum(BB[s] for s in squares)
        square = rng.choice(range(64))
        for piece_type in (KNIGHT, BISHOP, ROOK, QUEEN, KING):
            attack = ATTACKS[piece_type]
            part = (attack(square, occupied) & ~us) << 6 | square
            for to in bits(part >> 6):
                after_us = us | BB[to]
                recomputed = (attack(square, occupied | BB[to]) & ~after_us) << 6 | square
                assert part & CUT[square][to] == recomputed, (piece_type, square, to)
                assert (part << PAIR) & CUT_HIGH[square][to] == recomputed << PAIR
                checked += 1
    assert checked > 5000
