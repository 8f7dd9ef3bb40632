"""Commands from a seated client: WebSocket text frames (and, later, bot HTTP bodies).

Every malformed frame gets a WireError whose `reason` the transport sends back in an Error
frame (`encode_error`) instead of dropping the connection.
"""

from __future__ import annotations

import json
from typing import Any, Union

import attrs

from . import _read
from .common import as_tuple, read_moves

MAX_COMMAND_BYTES = 4096
"""Largest command frame accepted, in UTF-8 bytes (4 KiB, the spec's body limit)."""


@attrs.frozen
class SubmitTurn:
    """A whole turn, as UCI micro-moves in order; `offer_draw` (playsite extension) sends a
    draw offer along with it."""

    moves: tuple[str, ...] = attrs.field(converter=as_tuple)
    offer_draw: bool = False


@attrs.frozen
class SubmitSeed:
    """The seat's client seed. Passed through as given: the dice layer decides whether it is
    accepted, late, duplicate or malformed (then it is ignored, never an error)."""

    seed: str


@attrs.frozen
class Resign:
    pass


@attrs.frozen
class AnswerDraw:
    """Playsite extension: the answer to a draw offered with the opponent's last turn."""

    accept: bool


Command = Union[SubmitTurn, SubmitSeed, Resign, AnswerDraw]
COMMAND_NAMES = ("SubmitTurn", "SubmitSeed", "Resign", "AnswerDraw")


def command_to_json(command: Command) -> dict[str, Any]:
    if isinstance(command, SubmitTurn):
        body: dict[str, Any] = {"moves": list(command.moves)}
        if command.offer_draw:
            body["offerDraw"] = True
        return {"SubmitTurn": body}
    if isinstance(command, SubmitSeed):
        return {"SubmitSeed": {"seed": command.seed}}
    if isinstance(command, Resign):
        return {"Resign": {}}
    if isinstance(command, AnswerDraw):
        return {"AnswerDraw": {"accept": command.accept}}
    raise TypeError(f"not a command: {command!r}")


def encode_command(command: Command) -> str:
    """`command` as a compact text frame (for clients and tests)."""
    return json.dumps(command_to_json(command), separators=(",", ":"), ensure_ascii=False)


def command_from_json(obj: object) -> Command:
    """The command a parsed JSON value holds (HTTP routes that parsed the body already)."""
    name, body = _read.tagged(obj, "command", "command", COMMAND_NAMES)
    if name == "SubmitTurn":
        body = _read.fields(body, name, ("moves",), ("offerDraw",))
        moves = read_moves(body["moves"], "SubmitTurn.moves")
        offer = _read.boolean(body.get("offerDraw", False), "SubmitTurn.offerDraw")
        return SubmitTurn(moves, offer)
    if name == "SubmitSeed":
        body = _read.fields(body, name, ("seed",))
        return SubmitSeed(_read.string(body["seed"], "SubmitSeed.seed"))
    if name == "Resign":
        _read.fields(body, name)
        return Resign()
    body = _read.fields(body, name, ("accept",))
    return AnswerDraw(_read.boolean(body["accept"], "AnswerDraw.accept"))


def decode_command(text: str | bytes) -> Command:
    """The command in one client frame, or WireError with a reason fit to send back."""
    return command_from_json(_read.parse_json(text, "command", max_bytes=MAX_COMMAND_BYTES))

