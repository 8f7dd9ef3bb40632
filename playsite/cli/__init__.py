"""The `playsite` command: one subcommand per module in this package.

Each module exposes `add_parser(subparsers)`, which registers its subcommand and sets
`run=<callable(args) -> int>` as the parser default. Importing is lazy so that
`playsite dice roll` does not pay for the web stack.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = ("demo", "serve", "migrate", "accounts", "rules", "dice", "verify")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playsite", description="Dice-chess game server.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"playsite.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    sys.exit(args.run(args) or 0)
