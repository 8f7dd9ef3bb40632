#!/usr/bin/env python3
"""Stand-alone verifier for the dice of a finished playsite game (dice procedure v1).

Usage:  python3 verify_dice.py <history.json | https://host/games/<id>/history | ->

The input is a finished game's record in the shape of ``GET /games/{id}/history``:

    {"fairness": {"commit": hex, "seed": hex, "clientSeeds": {"white": s, "black": s}},
     "turns": [{"turnNumber": n, "activeColor": "White", "dice": [d, d, d], ...}, ...]}

The verifier checks that ``commit`` is the SHA-256 of the revealed ``seed``, then re-derives
every turn's dice: the turns, sorted by ``turnNumber``, were rolled at ply 0, 1, 2, ...
(forced passes included), and their dice must match in the order rolled. A game that ended on
a roll its seat never played records it as ``"unplayedRoll": {"activeColor", "dice"}``, rolled
at the ply after the last turn: it is checked the same way.

Exit status: 0 when everything matches (one summary line), 1 at the first mismatch (which
turn, expected versus recorded), 2 when the input cannot be read or is not a finished game's
record (no revealed seed).

This file is deliberately self-contained and uses only the Python standard library, so
anyone can download this one file and check a game without trusting (or installing) the
server's code. It re-implements the procedure described in docs/dice.md on purpose; the
project's tests prove that it agrees with the server's implementation on every published
vector (specs/dice/vectors-v1.json).
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    # Run as a script (also through the tools/verify_dice.py symlink), Python puts this
    # file's real directory first on sys.path; inside the playsite package a sibling module
    # could then shadow a standard-library one, so drop it before importing anything else.
    _here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _here]

import argparse
import dataclasses
import hashlib
import hmac
import json
import re
import struct
import urllib.error
import urllib.request
from collections.abc import Callable
from http.client import HTTPException
from typing import Any, NoReturn

PROCEDURE_VERSION = 1
SEED_BYTES = 32
REJECT_FROM = 252  # bytes 252..255 are skipped so that every face is equally likely
MAX_RECORD_BYTES = 64 * 1024 * 1024
FETCH_TIMEOUT_SECONDS = 30

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_UNREADABLE = 2


# --- The procedure (docs/dice.md, version 1) -------------------------------------------


def commitment(seed: bytes) -> str:
    """Lowercase hex SHA-256 of the seed."""
    return hashlib.sha256(seed).hexdigest()


def roll(seed: bytes, white_seed: str, black_seed: str, ply: int) -> tuple[int, int, int]:
    """The three dice rolled at `ply` with the given server seed and client seeds."""
    white = white_seed.encode("utf-8")
    black = black_seed.encode("utf-8")
    message = (
        struct.pack(">I", len(white))
        + white
        + struct.pack(">I", len(black))
        + black
        + struct.pack(">q", ply)
    )
    dice: list[int] = []
    block = 0
    while True:
        digest = hmac.new(seed, message + struct.pack(">i", block), hashlib.sha256).digest()
        for byte in digest:
            if byte < REJECT_FROM:
                dice.append(byte % 6 + 1)
                if len(dice) == 3:
                    return (dice[0], dice[1], dice[2])
        block += 1


# --- Reading a record ------------------------------------------------------------------


class UnreadableRecord(Exception):
    """The input cannot be read, is not JSON, or is not a finished game's record."""


def load_record(source: str) -> Any:
    """The decoded JSON from a file path, an http(s) URL, or '-' for standard input."""
    if source.startswith(("http://", "https://")):
        raw = _fetch(source)
    elif source == "-":
        raw = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        try:
            with open(source, "rb") as handle:
                raw = handle.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise UnreadableRecord(f"cannot read {source}: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise UnreadableRecord(f"{source} is larger than {MAX_RECORD_BYTES} bytes")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise UnreadableRecord(f"{source} is not valid JSON: {exc}") from None


def _fetch(url: str) -> bytes:
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "playsite-verify-dice/1"}
    )
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_SECONDS) as response:
            return response.read(MAX_RECORD_BYTES + 1)
    except urllib.error.HTTPError as exc:
        status = f"HTTP {exc.code} {exc.reason}".rstrip()  # some servers send no reason phrase
        raise UnreadableRecord(f"cannot fetch {url}: {status}{_server_says(exc)}") from None
    except urllib.error.URLError as exc:
        raise UnreadableRecord(f"cannot fetch {url}: {exc.reason}") from None
    except (OSError, HTTPException, ValueError) as exc:
        raise UnreadableRecord(f"cannot fetch {url}: {exc}") from None


def _server_says(exc: urllib.error.HTTPError) -> str:
    """The server's own explanation from an error body ({"error": {"message": ...}}), if any."""
    try:
        body = json.loads(exc.read(4096))
        message = body["error"]["message"]
    except (OSError, ValueError, TypeError, KeyError):
        return ""
    return f": {message}" if isinstance(message, str) and message else ""


# --- Verifying a record ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one record."""

    ok: bool
    message: str  # one line: the summary, or the first mismatch
    turns_checked: int  # turns whose dice matched

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_MISMATCH


def verify_record(record: Any, report: Callable[[str], None] | None = None) -> Verdict:
    """Check a finished game's record; raises `UnreadableRecord` if it is not one.

    `report`, when given, is called with one line per turn checked.
    """
    if not isinstance(record, dict):
        _unreadable("the record is not a JSON object")
    fairness = record.get("fairness")
    if not isinstance(fairness, dict):
        _unreadable("the record has no 'fairness' object")
    commit = fairness.get("commit")
    if not isinstance(commit, str):
        _unreadable("the record has no commitment ('fairness.commit')")
    seed_hex = fairness.get("seed")
    if seed_hex is None:
        _unreadable(
            "the record has no revealed seed ('fairness.seed' is missing or null); "
            "seeds are revealed only once a game has ended"
        )
    if not isinstance(seed_hex, str):
        _unreadable("'fairness.seed' is not a string")
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        _unreadable(f"'fairness.seed' is not hexadecimal: {seed_hex!r:.80}")
    white, black = _client_seeds(fairness.get("clientSeeds"))
    turns = _turns_in_roll_order(record.get("turns"))

    game = record.get("gameId")
    where = f"game {game}: " if isinstance(game, str) and game else ""

    if len(seed) != SEED_BYTES:
        return Verdict(
            False,
            f"MISMATCH: {where}the revealed seed is {len(seed)} bytes; "
            f"procedure v{PROCEDURE_VERSION} seeds are {SEED_BYTES} bytes",
            0,
        )
    expected_commit = commitment(seed)
    if commit.lower() != expected_commit:
        return Verdict(
            False,
            f"MISMATCH: {where}the commitment is not SHA-256 of the revealed seed: "
            f"expected {expected_commit}, recorded {commit}",
            0,
        )

    for ply, turn in enumerate(turns):
        expected = list(roll(seed, white, black, ply))
        recorded = turn.get("dice")
        seat = turn.get("activeColor", "?")
        label = f"turn {turn['turnNumber']} (ply {ply}, {seat})"
        if (mismatch := _dice_mismatch(f"{where}{label}", expected, recorded, ply)) is not None:
            return mismatch
        if report is not None:
            passed = " (forced pass)" if turn.get("moves") == [] else ""
            report(f"ok  {label}: {_show(recorded)}{passed}")

    unplayed = record.get("unplayedRoll")
    if unplayed is not None:
        if not isinstance(unplayed, dict) or not isinstance(unplayed.get("dice"), list):
            _unreadable("'unplayedRoll' is not an object with a 'dice' list")
        ply = len(turns)
        expected = list(roll(seed, white, black, ply))
        recorded = unplayed["dice"]
        label = f"the unplayed last roll (ply {ply}, {unplayed.get('activeColor', '?')})"
        if (mismatch := _dice_mismatch(f"{where}{label}", expected, recorded, ply)) is not None:
            return mismatch
        if report is not None:
            report(f"ok  {label}: {_show(recorded)}")

    rolls = f"{len(turns)} turns" + (" and the unplayed last roll" if unplayed is not None else "")
    return Verdict(
        True,
        f"OK: {where}commitment matches the revealed seed; client seeds: White {_seed_words(white)}, "
        f"Black {_seed_words(black)}; {rolls} checked, all dice match (dice procedure v{PROCEDURE_VERSION})",
        len(turns),
    )


def _dice_mismatch(what: str, expected: list[int], recorded: Any, ply: int) -> Verdict | None:
    """The MISMATCH verdict for a roll (`what`: the game and which roll) unless `recorded` is
    exactly the integers `expected`, in order."""
    if recorded == expected and all(type(d) is int for d in recorded):
        return None
    return Verdict(False, f"MISMATCH: {what}: expected dice {_show(expected)}, recorded {_show(recorded)}", ply)


def _client_seeds(value: Any) -> tuple[str, str]:
    if value is None:
        _unreadable("the record has no revealed client seeds ('fairness.clientSeeds' is null)")
    if not isinstance(value, dict):
        _unreadable("'fairness.clientSeeds' is not an object")
    seeds = []
    for key in ("white", "black"):
        seed = value.get(key)
        if not isinstance(seed, str):
            _unreadable(f"'fairness.clientSeeds.{key}' is missing or not a string")
        try:
            seed.encode("utf-8")
        except UnicodeEncodeError:
            _unreadable(f"'fairness.clientSeeds.{key}' is not valid Unicode text")
        seeds.append(seed)
    return seeds[0], seeds[1]


def _seed_words(seed: str) -> str:
    """A client seed as the OK line quotes it, so a player sees their own seed went into the
    dice: `none` for a seat that sent none, a long one cut at 40 characters."""
    if not seed:
        return "none"
    return json.dumps(seed if len(seed) <= 40 else seed[:40] + "...", ensure_ascii=False)


def _turns_in_roll_order(turns: Any) -> list[dict[str, Any]]:
    if not isinstance(turns, list):
        _unreadable("the record has no 'turns' list")
    for index, turn in enumerate(turns):
        if not isinstance(turn, dict):
            _unreadable(f"turns[{index}] is not an object")
        number = turn.get("turnNumber")
        if type(number) is not int:
            _unreadable(f"turns[{index}] has no integer 'turnNumber'")
        if not isinstance(turn.get("dice"), list):
            _unreadable(f"turns[{index}] (turnNumber {number}) has no 'dice' list")
    ordered = sorted(turns, key=lambda turn: turn["turnNumber"])
    for earlier, later in zip(ordered, ordered[1:]):
        if earlier["turnNumber"] == later["turnNumber"]:
            _unreadable(f"turnNumber {later['turnNumber']} appears more than once")
    return ordered


def _unreadable(message: str) -> NoReturn:
    raise UnreadableRecord(message)


def _show(dice: Any) -> str:
    if isinstance(dice, list) and dice:
        return " ".join(str(d) for d in dice)
    return json.dumps(dice)


# --- Command line ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The verifier's arguments; shared with the `playsite verify` subcommand."""
    parser.add_argument(
        "source",
        metavar="FILE|URL",
        help="a finished game's history JSON: a file, an http(s) URL or '-' for stdin",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="print one line per turn checked"
    )


def run(args: argparse.Namespace) -> int:
    """Verify `args.source`, print the outcome, and return the exit status."""
    try:
        record = load_record(args.source)
        verdict = verify_record(record, report=print if args.verbose else None)
    except UnreadableRecord as exc:
        print(f"error: {exc}{_record_address_hint(args.source)}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(verdict.message)
    return verdict.exit_code


def _record_address_hint(source: str) -> str:
    """For an address of a game's page or state (`/play/<id>`, `/replay/<id>`, `/games/<id>`),
    where its record is; else nothing."""
    match = re.match(r"^(https?://[^/]+)/(?:play|replay|games)/([0-9a-fA-F-]{36})/?(?:[?#].*)?$", source)
    if match is None:
        return ""
    return f"\n(that is the game's page or state; its record is {match[1]}/games/{match[2]}/history, once the game has ended)"


def main(argv: list[str] | None = None) -> int:
    """Entry point; `argv` excludes the program name. Returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="verify_dice.py",
        description="Verify the dice of a finished playsite game (dice procedure "
        f"v{PROCEDURE_VERSION}). Exit 0: all match; 1: mismatch; 2: unreadable input.",
    )
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else EXIT_UNREADABLE
    try:
        return run(args)
    except BrokenPipeError:
        # The reader went away (`verify_dice.py -v ... | head`): the outcome was not
        # delivered, so do not claim success; and keep Python from printing a traceback
        # when it flushes stdout at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(main())
