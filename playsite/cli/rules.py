"""`playsite rules tree|play`: the rules engine by hand, for bot authors.

    playsite rules tree '<dfen with dice>'          legal-move tree as JSON
    playsite rules tree --count '<dfen with dice>'  number of complete turns
    playsite rules play '<dfen with dice>' e2e4 ... DFEN after the turn (and the game end)

Exit status: 0 done, 1 illegal turn, 2 unusable input (bad DFEN, no dice pending).
"""

from __future__ import annotations

import argparse
import json
import sys

from playsite.rules import (
    IllegalTurn,
    InvalidDfen,
    Position,
    count_turns,
    format_dfen,
    legal_tree,
    parse_dfen,
    play_turn,
)

EXIT_ILLEGAL_TURN = 1
EXIT_BAD_INPUT = 2


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="legal-move trees and turns of dice chess",
        description="Query the dice-chess rules engine (docs/rules.md).",
    )
    actions = parser.add_subparsers(dest="rules_action", required=True, metavar="ACTION")

    tree_parser = actions.add_parser(
        "tree",
        help="print the legal-move tree of a position with its roll",
        description="Print the prefix tree of legal turns as JSON: {uci: subtree}, {} under a "
        "key is a complete turn, {} at the top is a forced pass.",
    )
    tree_parser.add_argument("dfen", help="DFEN with the dice field, e.g. '... w KQkq - 0 1 PNB'")
    tree_parser.add_argument("--count", action="store_true", help="print only the number of complete turns")
    tree_parser.set_defaults(run=_run_tree)

    play_parser = actions.add_parser(
        "play",
        help="play a whole turn and print the DFEN after it",
        description="Validate a whole turn (UCI micro-moves; none for a forced pass) and print "
        "the DFEN after it, then the game end if the turn ended the game.",
    )
    play_parser.add_argument("dfen", help="DFEN with the dice field")
    play_parser.add_argument("moves", nargs="*", metavar="UCI", help="the turn's micro-moves in order")
    play_parser.set_defaults(run=_run_play)


def _rolled_position(text: str) -> Position | None:
    """The position, or None after printing why it cannot be used."""
    try:
        position = parse_dfen(text)
    except InvalidDfen as error:
        print(f"playsite rules: invalid DFEN: {error.reason}", file=sys.stderr)
        return None
    if not position.dice:
        print(
            "playsite rules: no dice pending: add the roll as a 7th DFEN field, e.g. 'PNB'",
            file=sys.stderr,
        )
        return None
    return position


def _run_tree(args: argparse.Namespace) -> int:
    position = _rolled_position(args.dfen)
    if position is None:
        return EXIT_BAD_INPUT
    tree = legal_tree(position)
    print(count_turns(tree) if args.count else json.dumps(tree, separators=(",", ":")))
    return 0


def _run_play(args: argparse.Namespace) -> int:
    position = _rolled_position(args.dfen)
    if position is None:
        return EXIT_BAD_INPUT
    try:
        outcome = play_turn(position, args.moves)
    except IllegalTurn as error:
        print(f"playsite rules: illegal turn: {error.reason}", file=sys.stderr)
        return EXIT_ILLEGAL_TURN
    print(format_dfen(outcome.after))
    if outcome.end is not None:
        if outcome.end.winner is None:
            result = "draw"
        else:
            result = f"{'white' if outcome.end.winner else 'black'} wins"
        print(f"game over: {outcome.end.termination}, {result}")
    return 0
