"""`playsite dice roll|commit`: compute the dice procedure by hand, e.g. to check a vector."""

from __future__ import annotations

import argparse

from playsite.dice import PLY_MAX, SEED_BYTES, commitment, roll


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dice",
        help="compute dice rolls and commitments",
        description="Compute the dice procedure (docs/dice.md) for given inputs.",
    )
    actions = parser.add_subparsers(dest="dice_action", required=True, metavar="ACTION")

    roll_parser = actions.add_parser(
        "roll", help="print the three dice rolled at one ply", description="Print the "
        "three dice (space separated) rolled at PLY with the given server and client seeds."
    )
    _add_seed_argument(roll_parser)
    roll_parser.add_argument("--white", default="", metavar="S", help="White's client seed")
    roll_parser.add_argument("--black", default="", metavar="S", help="Black's client seed")
    roll_parser.add_argument(
        "--ply", required=True, type=_ply, metavar="N", help="0 for a game's first roll"
    )
    roll_parser.set_defaults(run=_run_roll)

    commit_parser = actions.add_parser(
        "commit", help="print the commitment to a seed",
        description="Print the commitment (lowercase hex SHA-256) to a server seed.",
    )
    _add_seed_argument(commit_parser)
    commit_parser.set_defaults(run=_run_commit)


def _add_seed_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed", required=True, type=_seed, metavar="HEX",
        help=f"the server seed, {SEED_BYTES} bytes as {2 * SEED_BYTES} hex digits",
    )


def _seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not hexadecimal: {text!r}") from None
    if len(seed) != SEED_BYTES:
        raise argparse.ArgumentTypeError(
            f"must be {SEED_BYTES} bytes ({2 * SEED_BYTES} hex digits), got {len(seed)} bytes"
        )
    return seed


def _ply(text: str) -> int:
    try:
        ply = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= ply <= PLY_MAX:
        raise argparse.ArgumentTypeError(f"must be in 0..{PLY_MAX}, got {ply}")
    return ply


def _run_roll(args: argparse.Namespace) -> int:
    print(*roll(args.seed, args.white, args.black, args.ply))
    return 0


def _run_commit(args: argparse.Namespace) -> int:
    print(commitment(args.seed))
    return 0
