"""A room's durable state as a JSON-ready dict, and back.

This is what the store keeps per version and what a room resumes from after a restart,
or rolls back to when an intermediate write is given up. It holds the dice secret, so it
is never served as is: public reads go through the wire codecs.
"""

from __future__ import annotations

from typing import Any

from playsite.dice import ClientSeeds, Fairness
from playsite.rooms.model import ClockState, Ending, RoomPhase, RoomSetup, RoomState, SeatSetup
from playsite.rules import Termination, format_dfen, parse_dfen
from playsite.wire import (
    BLACK,
    SEATS,
    WHITE,
    HistoryTurn,
    PublicFace,
    Seat,
    decode_abort,
    decode_time_control,
    encode_abort,
    encode_time_control,
)
from playsite.wire.events import history_turn_json

FORMAT = 1

TERMINATION_NAMES = {
    Termination.KING_CAPTURED: "king_captured",
    Termination.RESIGN: "resign",
    Termination.TIMEOUT: "timeout",
    Termination.DISCONNECT: "disconnect",
    Termination.DRAW_AGREEMENT: "draw_agreement",
    Termination.NO_PROGRESS: "no_progress",
    Termination.ABORTED: "aborted",
}
"""A termination's name in the snapshot: one per reason (a resumed room must know a
forfeit from a resignation), stable across releases since snapshots outlive them."""
_TERMINATIONS_BY_NAME = {name: termination for termination, name in TERMINATION_NAMES.items()}


def dump_setup(setup: RoomSetup) -> dict[str, Any]:
    return {
        "gameId": setup.game_id,
        "timeControl": encode_time_control(setup.time_control),
        "seats": {seat: _dump_seat(setup.seat(seat)) for seat in SEATS},
        "rated": setup.rated,
        "origin": setup.origin,
        "durability": setup.durability,
        "purpose": setup.purpose,
        "participants": list(setup.participants),
        "awaitJoins": setup.await_joins,
        "joinWindowS": setup.join_window_s,
        "claimGraceS": setup.claim_grace_s,
        "idleForfeitS": setup.idle_forfeit_s,
        "firstMoveS": setup.first_move_s,
        "seedWindowS": setup.seed_window_s,
        "start": format_dfen(setup.start),
        "createdAt": setup.created_at,
        "predecessor": setup.predecessor,
        "joinDeadlineAt": setup.join_deadline_at,
    }


def load_setup(data: dict[str, Any]) -> RoomSetup:
    seats = {seat: _load_seat(data["seats"][seat]) for seat in SEATS}
    return RoomSetup(
        game_id=data["gameId"],
        time_control=decode_time_control(data["timeControl"]),
        white=seats[WHITE],
        black=seats[BLACK],
        rated=data["rated"],
        origin=data["origin"],
        durability=data["durability"],
        purpose=data["purpose"],
        participants=tuple(data["participants"]),
        await_joins=data["awaitJoins"],
        join_window_s=data["joinWindowS"],
        claim_grace_s=data.get("claimGraceS"),  # absent from snapshots written before it existed
        idle_forfeit_s=data.get("idleForfeitS"),
        first_move_s=data.get("firstMoveS"),  # absent from snapshots written before it existed
        seed_window_s=data["seedWindowS"],
        start=parse_dfen(data["start"]),
        created_at=data["createdAt"],
        predecessor=data.get("predecessor"),  # absent from snapshots written before rematch existed
        join_deadline_at=data.get("joinDeadlineAt"),
    )


def _dump_seat(seat: SeatSetup) -> dict[str, Any]:
    return {
        "tokenHash": seat.token_hash.hex(),
        "face": {"kind": seat.face.kind, "name": seat.face.name},
        "principal": seat.principal,
        "alwaysPresent": seat.always_present,
    }


def _load_face(data: dict[str, Any]) -> PublicFace:
    """A bot's face written before public names took the ecosystem's form (`team/name`) is
    read as `team name`, so a game resumed across that change shows one form."""
    name = data["name"]
    if data["kind"] == "Bot" and isinstance(name, str) and "/" in name:
        name = name.replace("/", " ", 1)
    return PublicFace(kind=data["kind"], name=name)


def _load_seat(data: dict[str, Any]) -> SeatSetup:
    return SeatSetup(
        token_hash=bytes.fromhex(data["tokenHash"]),
        face=_load_face(data["face"]),
        principal=data["principal"],
        always_present=data["alwaysPresent"],
    )


def dump_history_turn(turn: HistoryTurn) -> dict[str, Any]:
    return history_turn_json(turn)


def dump_state(
    state: RoomState, *, setup: dict[str, Any] | None = None, history: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything needed to rebuild a room at `state.version`.

    `setup` and `history`, when given, are `dump_setup(state.setup)` and the
    `dump_history_turn` of each turn, made earlier: a room writes its state at every
    version, and rebuilding every past turn's record each time made a game's writes
    quadratic, and kept the garbage collector busy with copies."""
    seeds = state.fairness.client_seeds
    return {
        "format": FORMAT,
        "setup": setup if setup is not None else dump_setup(state.setup),
        "version": state.version,
        "phase": state.phase.value,
        "position": format_dfen(state.position),
        "rolled": list(state.rolled),
        "ply": state.ply,
        "seed": state.fairness.seed.hex(),
        "clientSeeds": {"white": seeds.white, "black": seeds.black, "frozen": seeds.frozen},
        "principals": dict(state.principals),
        "history": history if history is not None else [dump_history_turn(t) for t in state.history],
        "played": sorted(state.played),
        "clock": None
        if state.clock is None
        else {"remainingMs": dict(state.clock.remaining_ms), "running": state.clock.running},
        "drawOfferFrom": state.draw_offer_from,
        "drawBlocked": sorted(state.draw_blocked),
        "ending": None
        if state.ending is None
        else {
            "termination": TERMINATION_NAMES[state.ending.termination],
            "winner": state.ending.winner,
            "at": state.ending.at,
            "technical": state.ending.technical,
            "abort": None if state.ending.abort is None else encode_abort(state.ending.abort),
        },
        "joined": sorted(state.joined),
        "activated": state.activated,
    }


def _load_ending(ending: dict[str, Any]) -> Ending:
    return Ending(
        _TERMINATIONS_BY_NAME[ending["termination"]],
        _seat(ending["winner"]),
        ending["at"],
        # Absent from snapshots written before the two kinds of abort were told apart; their
        # rematch windows closed long ago, so reading them as players' aborts changes nothing.
        technical=ending.get("technical", False),
        # Absent from snapshots written before why an abort happened was kept.
        abort=None if ending.get("abort") is None else decode_abort(ending["abort"], "ending.abort"),
    )


def load_state(data: dict[str, Any]) -> RoomState:
    """The state a `dump_state` dict describes."""
    seeds = data["clientSeeds"]
    ending = data["ending"]
    clock = data["clock"]
    return RoomState(
        setup=load_setup(data["setup"]),
        version=data["version"],
        phase=RoomPhase(data["phase"]),
        position=parse_dfen(data["position"]),
        rolled=tuple(data["rolled"]),
        ply=data["ply"],
        fairness=Fairness(
            seed=bytes.fromhex(data["seed"]),
            client_seeds=ClientSeeds(white=seeds["white"], black=seeds["black"], frozen=seeds["frozen"]),
        ),
        principals={Seat(seat): principal for seat, principal in data["principals"].items()},
        history=tuple(
            HistoryTurn(
                seat=Seat(t["seat"]), dice=tuple(t["dice"]), moves=tuple(t["moves"]), fen_after=t["fenAfter"],
                draw_offer=t.get("drawOffer", False), draw_declined=t.get("drawDeclined", False),
            )
            for t in data["history"]
        ),
        played=frozenset(map(Seat, data["played"])),
        clock=None if clock is None else _load_clock(clock),
        draw_offer_from=_seat(data["drawOfferFrom"]),
        draw_blocked=frozenset(map(Seat, data["drawBlocked"])),
        ending=None if ending is None else _load_ending(ending),
        # Both absent from snapshots written before successor games existed: a game past its
        # join wait had begun; a friend game still waiting keeps no connection history.
        joined=frozenset(map(Seat, data.get("joined", ()))),
        activated=data.get("activated", data["phase"] != RoomPhase.AWAITING_JOINS.value),
    )


def _load_clock(data: dict[str, Any]) -> ClockState:
    remaining = {Seat(seat): ms for seat, ms in data["remainingMs"].items()}
    return ClockState(remaining_ms=remaining, running=_seat(data["running"]))


def _seat(name: str | None) -> Seat | None:
    return None if name is None else Seat(name)
