"""Small shapes shared by state, events and history: seats, dice, moves, clocks, faces."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, Literal, TypeVar

import attrs
import orjson

from . import _read
from .errors import WireError


class Seat(enum.StrEnum):
    """A seat of a game, the one seat word of playsite. A `str` whose value is its wire name,
    so it is written into JSON, the store and the dice procedure exactly as that name, and
    compares equal to it. (The dice procedure and the stand-alone verifier spell the seats
    out themselves: they define bytes and import nothing.)"""

    WHITE = "White"
    BLACK = "Black"

    def other(self) -> Seat:
        """The opposing seat."""
        return Seat.BLACK if self is Seat.WHITE else Seat.WHITE


WHITE = Seat.WHITE
BLACK = Seat.BLACK
SEATS: tuple[Seat, Seat] = (WHITE, BLACK)

DICE_PER_ROLL = 3
MAX_TURN_MOVES = 8
"""Most micro-moves one turn may list. A real turn has at most three (one per die); the
bound exists so that a hostile frame cannot make the server walk a long list."""

MAX_TREE_DEPTH = MAX_TURN_MOVES
UCI_DESCRIPTION = "a UCI move (like e2e4, or e7e8q for a promotion)"

FaceKind = Literal["Bot", "Human"]
FACE_KINDS: tuple[FaceKind, FaceKind] = ("Bot", "Human")

MoveTree = dict[str, "MoveTree"]
"""Prefix tree of legal turns: each key is a UCI micro-move, its value the continuations;
``{}`` under a key is a complete turn, an empty tree at the top a forced pass. Subtrees may
be shared objects (a DAG): encoding expands them."""
LegalMoves = MoveTree | orjson.Fragment
"""A tree as events and states carry it: the tree, or its compact JSON already encoded (the
room encodes a roll's tree once and inserts the same bytes into every text that shows it)."""


Checked = TypeVar("Checked")
"""The type of the attrs field a validator checks: a validator takes `attrs.Attribute[Checked]`
and a `Checked` value, so one validator serves fields of any type."""


def check_seat(instance: object, attribute: attrs.Attribute[Checked], value: Checked) -> None:
    read_seat(value, f"{type(instance).__name__}.{attribute.name}")


def read_seat(value: object, where: str) -> Seat:
    return Seat(_read.one_of(value, where, SEATS))


def read_die(value: object, where: str) -> int:
    return _read.integer(value, where, 1, 6)


def read_dice(value: object, where: str) -> tuple[int, ...]:
    return _read.array(
        value, where, read_die, min_items=DICE_PER_ROLL, max_items=DICE_PER_ROLL, item_kind="dice"
    )


def read_uci(value: object, where: str) -> str:
    return _read.matching(value, where, _read.UCI_MOVE, UCI_DESCRIPTION)


def read_moves(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise WireError(
                    f"{where} must be an array of strings; {where}[{index}] is {_read.json_kind(item)}"
                )
    return _read.array(
        value, where, read_uci, max_items=MAX_TURN_MOVES, item_kind="move strings"
    )


def read_timestamp(value: object, where: str) -> str:
    return _read.matching(
        value, where, _read.TIMESTAMP, "an RFC 3339 timestamp (like 2025-01-31T12:00:00Z)"
    )


def read_digest(value: object, where: str) -> str:
    return _read.matching(value, where, _read.HEX_DIGEST, "64 lowercase hex digits")


def _non_negative_ms(value: object) -> int:
    """Remaining time is never negative on the wire: a flagged side shows 0."""
    if type(value) is not int:
        raise TypeError(f"clock milliseconds must be int, got {type(value).__name__}")
    return value if value > 0 else 0


@attrs.frozen
class Clocks:
    """Remaining milliseconds per side as of the carrying event (negative values clamp to 0)."""

    white_ms: int = attrs.field(converter=_non_negative_ms)
    black_ms: int = attrs.field(converter=_non_negative_ms)


def encode_clocks(clocks: Clocks | None) -> dict[str, int] | None:
    if clocks is None:
        return None
    return {"white": clocks.white_ms, "black": clocks.black_ms}


def decode_clocks(obj: object, where: str = "clocks") -> Clocks | None:
    """`null` (an Unlimited game) or ``{"white": ms, "black": ms}``."""
    if obj is None:
        return None
    body = _read.fields(obj, where, ("white", "black"))
    return Clocks(
        _read.integer(body["white"], f"{where}.white"),
        _read.integer(body["black"], f"{where}.black"),
    )


@attrs.frozen
class ClientSeedsView:
    """The two revealed client seeds; '' for a seat that contributed none."""

    white: str
    black: str


def encode_client_seeds(seeds: ClientSeedsView | None) -> dict[str, str] | None:
    if seeds is None:
        return None
    return {"white": seeds.white, "black": seeds.black}


def decode_client_seeds(obj: object, where: str = "clientSeeds") -> ClientSeedsView:
    body = _read.fields(obj, where, ("white", "black"))
    return ClientSeedsView(
        _read.string(body["white"], f"{where}.white"), _read.string(body["black"], f"{where}.black")
    )


@attrs.frozen
class PublicFace:
    """What spectators may know of a seat's occupant: never a raw id.

    `name` is the team-qualified bot name for a bot, None for an anonymous human.
    """

    kind: FaceKind = attrs.field(validator=attrs.validators.in_(FACE_KINDS))
    name: str | None = None


@attrs.frozen
class Players:
    white: PublicFace
    black: PublicFace


def encode_face(face: PublicFace) -> dict[str, Any]:
    return {"kind": face.kind, "name": face.name}


def decode_face(obj: object, where: str) -> PublicFace:
    body = _read.fields(obj, where, ("kind", "name"))
    return PublicFace(
        _read.one_of(body["kind"], f"{where}.kind", FACE_KINDS),  # type: ignore[arg-type]
        _read.optional(body["name"], _read.string, f"{where}.name"),
    )


def encode_players(players: Players) -> dict[str, Any]:
    return {"white": encode_face(players.white), "black": encode_face(players.black)}


def decode_players(obj: object, where: str = "players") -> Players:
    body = _read.fields(obj, where, ("white", "black"))
    return Players(decode_face(body["white"], f"{where}.white"), decode_face(body["black"], f"{where}.black"))


def decode_move_tree(obj: object, where: str = "legalMoves", depth: int = 0) -> MoveTree:
    """A move tree read back into plain dicts; keys must be UCI and depth at most 8."""
    if not isinstance(obj, dict):
        raise WireError(f"{where} must be an object (a move tree), got {_read.json_kind(obj)}")
    if obj and depth >= MAX_TREE_DEPTH:
        raise WireError(f"{where} is deeper than {MAX_TREE_DEPTH} moves")
    tree: MoveTree = {}
    for move, subtree in obj.items():
        if not _read.UCI_MOVE.fullmatch(move):
            raise WireError(f"{where} has key {_read.show(move)}, which is not {UCI_DESCRIPTION}")
        tree[move] = decode_move_tree(subtree, f"{where}.{move}", depth + 1)
    return tree


def decode_optional_move_tree(obj: object, where: str = "legalMoves") -> MoveTree | None:
    """A move tree, or None for `null` (not inlined: fetch ``GET /games/{id}/moves``)."""
    return None if obj is None else decode_move_tree(obj, where)


def as_tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    """attrs converter: lists from callers become tuples, so values stay hashable and equal."""
    return items if isinstance(items, tuple) else tuple(items)
