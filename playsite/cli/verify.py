"""`playsite verify <file|url>`: check a finished game's dice (delegates to playsite.verifier)."""

from __future__ import annotations

import argparse

from playsite import verifier


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="verify the dice of a finished game",
        description="Verify a finished game's dice against its revealed seed (the same check "
        "as the stand-alone tools/verify_dice.py). Exit 0: all match; 1: mismatch; "
        "2: unreadable input or no revealed seed.",
    )
    verifier.add_arguments(parser)
    parser.set_defaults(run=verifier.run)
