"""Game events: what the room tells every subscriber, as one single-key JSON object each.

The room encodes an event once (`encode_event`) and hands the same text to every socket and
ndjson stream; the text is compact and holds no newline, so it is one ndjson line as is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import attrs

from . import _read
from .common import (
    ClientSeedsView,
    Clocks,
    LegalMoves,
    Seat,
    as_tuple,
    check_seat,
    decode_client_seeds,
    decode_clocks,
    decode_optional_move_tree,
    encode_client_seeds,
    encode_clocks,
    read_dice,
    read_digest,
    read_moves,
    read_seat,
)
from .errors import WireError
from .outcome import Over, decode_over, encode_over
from .state import PublicGameState, decode_public_game_state, encode_public_game_state
from .text import compact_json


@attrs.frozen
class HistoryTurn:
    """One completed turn as a Snapshot replays it; `moves` is empty for a forced pass.
    `draw_offer` and `draw_declined` (playsite extensions, as `TurnPlayed.draw_offer`): the turn
    offered a draw, and the opponent declined it (an accepted offer ends the game)."""

    seat: Seat = attrs.field(validator=check_seat)
    dice: tuple[int, ...] = attrs.field(converter=as_tuple)
    moves: tuple[str, ...] = attrs.field(converter=as_tuple)
    fen_after: str
    draw_offer: bool = False
    draw_declined: bool = False


@attrs.frozen
class Snapshot:
    """The whole state at version `v`, sent first on every connection, with every turn so far."""

    v: int
    state: PublicGameState
    history: tuple[HistoryTurn, ...] = attrs.field(converter=as_tuple)


@attrs.frozen
class DiceRolled:
    """The server rolled for `seat`. `legal_moves` is ``{}`` for a forced pass and None when
    the tree is too large to inline (fetch ``GET /games/{id}/moves``)."""

    v: int
    seat: Seat = attrs.field(validator=check_seat)
    dice: tuple[int, ...] = attrs.field(converter=as_tuple)
    dfen: str
    clocks: Clocks | None
    legal_moves: LegalMoves | None


@attrs.frozen
class TurnPlayed:
    """`seat` played `moves`. `draw_offer` (playsite extension) marks a turn that offers a draw;
    the opponent answers with AnswerDraw before its dice are rolled."""

    v: int
    seat: Seat = attrs.field(validator=check_seat)
    moves: tuple[str, ...] = attrs.field(converter=as_tuple)
    fen_after: str
    draw_offer: bool = False


@attrs.frozen
class DrawDeclined:
    """Playsite extension: `seat` declined the draw offered with the previous turn."""

    v: int
    seat: Seat = attrs.field(validator=check_seat)


@attrs.frozen
class GameEnded:
    """The game is over; the dice seed and client seeds are revealed with it."""

    v: int
    over: Over
    seed: str
    client_seeds: ClientSeedsView


@attrs.frozen
class Rejected:
    """The room refused a command from `seat`, for the reason given (sent to that seat)."""

    v: int
    seat: Seat = attrs.field(validator=check_seat)
    reason: str


Event = Union[Snapshot, DiceRolled, TurnPlayed, DrawDeclined, GameEnded, Rejected]


def history_turn_json(turn: HistoryTurn) -> dict[str, Any]:
    """A history turn's JSON (Snapshot, and the room's durable record): the draw flags only when set."""
    body: dict[str, Any] = {"seat": turn.seat, "dice": list(turn.dice), "moves": list(turn.moves), "fenAfter": turn.fen_after}
    if turn.draw_offer:
        body["drawOffer"] = True
    if turn.draw_declined:
        body["drawDeclined"] = True
    return body


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object of `event` (for embedding; transports want `encode_event`)."""
    if isinstance(event, DiceRolled):
        return {
            "DiceRolled": {
                "v": event.v,
                "seat": event.seat,
                "dice": list(event.dice),
                "dfen": event.dfen,
                "clocks": encode_clocks(event.clocks),
                "legalMoves": event.legal_moves,
            }
        }
    if isinstance(event, TurnPlayed):
        body: dict[str, Any] = {
            "v": event.v,
            "seat": event.seat,
            "moves": list(event.moves),
            "fenAfter": event.fen_after,
        }
        if event.draw_offer:
            body["drawOffer"] = True
        return {"TurnPlayed": body}
    if isinstance(event, Snapshot):
        return {
            "Snapshot": {
                "v": event.v,
                "state": encode_public_game_state(event.state),
                "history": [history_turn_json(turn) for turn in event.history],
            }
        }
    if isinstance(event, GameEnded):
        return {
            "GameEnded": {
                "v": event.v,
                "over": encode_over(event.over),
                "seed": event.seed,
                "clientSeeds": encode_client_seeds(event.client_seeds),
            }
        }
    if isinstance(event, Rejected):
        return {"Rejected": {"v": event.v, "seat": event.seat, "reason": event.reason}}
    if isinstance(event, DrawDeclined):
        return {"DrawDeclined": {"v": event.v, "seat": event.seat}}
    raise TypeError(f"not an event: {event!r}")


def encode_event(event: Event) -> str:
    """`event` as one compact line of JSON text, ready for every subscriber."""
    return compact_json(event_to_json(event))


# Decoding (clients, tools and tests; the server only encodes events).


def _decode_history_turn(obj: object, where: str) -> HistoryTurn:
    body = _read.fields(obj, where, ("seat", "dice", "moves", "fenAfter"), ("drawOffer", "drawDeclined"))
    return HistoryTurn(
        read_seat(body["seat"], f"{where}.seat"),
        read_dice(body["dice"], f"{where}.dice"),
        read_moves(body["moves"], f"{where}.moves"),
        _read.string(body["fenAfter"], f"{where}.fenAfter"),
        _read.boolean(body.get("drawOffer", False), f"{where}.drawOffer"),
        _read.boolean(body.get("drawDeclined", False), f"{where}.drawDeclined"),
    )


def _decode_snapshot(body: dict[str, Any], at: str) -> Snapshot:
    body = _read.fields(body, at, ("v", "state", "history"))
    return Snapshot(
        _read.integer(body["v"], f"{at}.v"),
        decode_public_game_state(body["state"], f"{at}.state"),
        _read.array(body["history"], f"{at}.history", _decode_history_turn, item_kind="turns"),
    )


def _decode_dice_rolled(body: dict[str, Any], at: str) -> DiceRolled:
    body = _read.fields(body, at, ("v", "seat", "dice", "dfen", "clocks", "legalMoves"))
    return DiceRolled(
        _read.integer(body["v"], f"{at}.v"),
        read_seat(body["seat"], f"{at}.seat"),
        read_dice(body["dice"], f"{at}.dice"),
        _read.string(body["dfen"], f"{at}.dfen"),
        decode_clocks(body["clocks"], f"{at}.clocks"),
        decode_optional_move_tree(body["legalMoves"], f"{at}.legalMoves"),
    )


def _decode_turn_played(body: dict[str, Any], at: str) -> TurnPlayed:
    body = _read.fields(body, at, ("v", "seat", "moves", "fenAfter"), ("drawOffer",))
    draw_offer = _read.boolean(body.get("drawOffer", False), f"{at}.drawOffer")
    return TurnPlayed(
        _read.integer(body["v"], f"{at}.v"),
        read_seat(body["seat"], f"{at}.seat"),
        read_moves(body["moves"], f"{at}.moves"),
        _read.string(body["fenAfter"], f"{at}.fenAfter"),
        draw_offer,
    )


def _decode_draw_declined(body: dict[str, Any], at: str) -> DrawDeclined:
    body = _read.fields(body, at, ("v", "seat"))
    return DrawDeclined(_read.integer(body["v"], f"{at}.v"), read_seat(body["seat"], f"{at}.seat"))


def _decode_game_ended(body: dict[str, Any], at: str) -> GameEnded:
    body = _read.fields(body, at, ("v", "over", "seed", "clientSeeds"))
    return GameEnded(
        _read.integer(body["v"], f"{at}.v"),
        decode_over(body["over"], f"{at}.over"),
        read_digest(body["seed"], f"{at}.seed"),
        decode_client_seeds(body["clientSeeds"], f"{at}.clientSeeds"),
    )


def _decode_rejected(body: dict[str, Any], at: str) -> Rejected:
    body = _read.fields(body, at, ("v", "seat", "reason"))
    return Rejected(
        _read.integer(body["v"], f"{at}.v"),
        read_seat(body["seat"], f"{at}.seat"),
        _read.string(body["reason"], f"{at}.reason"),
    )


_EVENT_DECODERS: dict[str, Callable[[Any, str], Event]] = {
    "Snapshot": _decode_snapshot,
    "DiceRolled": _decode_dice_rolled,
    "TurnPlayed": _decode_turn_played,
    "DrawDeclined": _decode_draw_declined,
    "GameEnded": _decode_game_ended,
    "Rejected": _decode_rejected,
}
EVENT_NAMES = tuple(_EVENT_DECODERS)


def event_from_json(obj: object) -> Event:
    """The event a parsed JSON object holds."""
    name, body = _read.tagged(obj, "event", "event", EVENT_NAMES)
    return _EVENT_DECODERS[name](body, name)


def decode_event(text: str | bytes) -> Event:
    """The event in one frame or ndjson line; WireError if it is not one."""
    return event_from_json(_read.parse_json(text, "event"))


@attrs.frozen
class ErrorFrame:
    """Playsite extension: the server could not accept a frame; the connection stays open."""

    reason: str


def encode_error(reason: str) -> str:
    """The protocol error frame ``{"Error": {"reason": ...}}``, sent instead of hanging up."""
    return compact_json({"Error": {"reason": reason}})


def decode_frame(text: str | bytes) -> Event | ErrorFrame:
    """Anything the server sends on a game socket: an event or an error frame."""
    obj = _read.parse_json(text, "frame")
    if isinstance(obj, dict) and len(obj) == 1 and "Error" in obj:
        body = _read.fields(obj["Error"], "Error", ("reason",))
        return ErrorFrame(_read.string(body["reason"], "Error.reason"))
    if isinstance(obj, dict) and len(obj) == 1 and next(iter(obj)) not in EVENT_NAMES:
        raise WireError(
            f"unknown frame {_read.show(next(iter(obj)))}; expected one of: {', '.join(EVENT_NAMES)}, Error"
        )
    return event_from_json(obj)
