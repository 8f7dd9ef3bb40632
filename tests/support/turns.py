"""Random legal turns through a turn tree (`{uci: subtree}`, `{}` at a complete turn)."""

from __future__ import annotations

import random
from collections.abc import Collection

from playsite.house.strategy import random_turn as any_turn


def random_turn(tree: dict, rng: random.Random, avoid: Collection[str] = ()) -> list[str]:
    """A random complete turn: one random micro-move per level, down to a leaf ([] for an empty tree).

    `avoid`: squares no micro-move of the turn may land on (the enemy king's, to keep a random
    game going); a turn that lands on one is returned only when every turn does."""
    if avoid:
        sparing = _turn_avoiding(tree, rng, frozenset(avoid))
        if sparing is not None:
            return sparing
    return any_turn(tree, rng)


def _turn_avoiding(tree: dict, rng: random.Random, avoid: frozenset[str]) -> list[str] | None:
    moves = sorted(tree)
    rng.shuffle(moves)
    for move in moves:
        if move[2:4] in avoid:
            continue
        rest = tree[move]
        if not rest:
            return [move]
        tail = _turn_avoiding(rest, rng, avoid)
        if tail is not None:
            return [move, *tail]
    return None


def king_square(dfen: str, seat: str) -> str:
    """Where `seat`'s king ("White" or "Black") stands, read from the board field of a DFEN."""
    king = "K" if seat == "White" else "k"
    for rank_index, rank in enumerate(dfen.split()[0].split("/")):
        file = 0
        for char in rank:
            if char.isdigit():
                file += int(char)
                continue
            if char == king:
                return "abcdefgh"[file] + str(8 - rank_index)
            file += 1
    raise AssertionError(f"no {king} in {dfen}")


def king_sparing_turn(tree: dict, dfen: str, seat: str, rng: random.Random) -> list[str]:
    """A random turn for `seat` that does not capture the enemy king when another turn exists."""
    return random_turn(tree, rng, avoid={king_square(dfen, "Black" if seat == "White" else "White")})


def placement(dfen: str) -> dict[str, str]:
    """Square name ("e2") -> piece letter, from the board field of a DFEN."""
    pieces = {}
    for index, row in enumerate(dfen.split()[0].split("/")):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                pieces[f"{'abcdefgh'[file]}{8 - index}"] = char
                file += 1
    return pieces
