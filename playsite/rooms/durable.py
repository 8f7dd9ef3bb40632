"""A room's durable state as a JSON-ready dict, and back.

This is what the store keeps per version and what a room resumes from after a restart,
or rolls back to when an intermediate write is given up. It holds the dice secret, so it
is never served as is: public reads go through the wire codecs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playsite.dice import ClientSeeds, Fairness
from playsite.rules import format_dfen, parse_dfen
from playsite.wire import HistoryTurn, PublicFace, decode_time_control, encode_time_control

if TYPE_CHECKING:
    from playsite.rooms.room import Room, RoomSetup

FORMAT = 1


def dump_setup(setup: RoomSetup) -> dict[str, Any]:
    return {
        "gameId": setup.game_id,
        "timeControl": encode_time_control(setup.time_control),
        "seats": {seat: _dump_seat(setup.seat(seat)) for seat in ("White", "Black")},
        "rated": setup.rated,
        "origin": setup.origin,
        "durability": setup.durability,
        "purpose": setup.purpose,
        "participants": list(setup.participants),
        "awaitJoins": setup.await_joins,
        "joinWindowS": setup.join_window_s,
        "seedWindowS": setup.seed_window_s,
        "start": format_dfen(setup.start),
        "createdAt": setup.created_at,
    }


def load_setup(data: dict[str, Any]) -> RoomSetup:
    from playsite.rooms.room import RoomSetup

    seats = {seat: _load_seat(data["seats"][seat]) for seat in ("White", "Black")}
    return RoomSetup(
        game_id=data["gameId"],
        time_control=decode_time_control(data["timeControl"]),
        white=seats["White"],
        black=seats["Black"],
        rated=data["rated"],
        origin=data["origin"],
        durability=data["durability"],
        purpose=data["purpose"],
        participants=tuple(data["participants"]),
        await_joins=data["awaitJoins"],
        join_window_s=data["joinWindowS"],
        seed_window_s=data["seedWindowS"],
        start=parse_dfen(data["start"]),
        created_at=data["createdAt"],
    )


def _dump_seat(seat) -> dict[str, Any]:
    return {
        "tokenHash": seat.token_hash.hex(),
        "face": {"kind": seat.face.kind, "name": seat.face.name},
        "principal": seat.principal,
        "alwaysPresent": seat.always_present,
    }


def _load_seat(data: dict[str, Any]):
    from playsite.rooms.room import SeatSetup

    return SeatSetup(
        token_hash=bytes.fromhex(data["tokenHash"]),
        face=PublicFace(kind=data["face"]["kind"], name=data["face"]["name"]),
        principal=data["principal"],
        always_present=data["alwaysPresent"],
    )


def dump_room(room: Room) -> dict[str, Any]:
    """Everything needed to rebuild `room` at its current version."""
    seeds = room.fairness.client_seeds
    return {
        "format": FORMAT,
        "setup": dump_setup(room.setup),
        "version": room.version,
        "phase": room.phase.value,
        "position": format_dfen(room.position),
        "rolled": list(room.rolled),
        "ply": room.ply,
        "seed": room.fairness.seed.hex(),
        "clientSeeds": {"white": seeds.white, "black": seeds.black, "frozen": seeds.frozen},
        "principals": {seat: state.principal for seat, state in room.seats.items()},
        "history": [
            {"seat": t.seat, "dice": list(t.dice), "moves": list(t.moves), "fenAfter": t.fen_after}
            for t in room.history
        ],
        "played": sorted(room.played),
        "clock": None
        if room.clock is None
        else {"remainingMs": dict(room.clock.remaining_ms), "running": room.clock.running},
        "drawOfferFrom": room.draw_offer_from,
        "drawBlocked": sorted(room.draw_blocked),
        "ending": None
        if room.ending is None
        else {"termination": room.ending.termination.value, "winner": room.ending.winner, "at": room.ending.at},
    }


def restore_room(room: Room, data: dict[str, Any], now: float) -> None:
    """Put `room` back into the state `data` describes; running clocks restart at `now`."""
    from playsite.rooms.room import Ending, Phase, Termination

    seeds = data["clientSeeds"]
    room.fairness = Fairness(
        seed=bytes.fromhex(data["seed"]),
        client_seeds=ClientSeeds(white=seeds["white"], black=seeds["black"], frozen=seeds["frozen"]),
    )
    room.version = data["version"]
    room.phase = Phase(data["phase"])
    room.position = parse_dfen(data["position"])
    room.rolled = tuple(data["rolled"])
    room.ply = data["ply"]
    for seat, principal in data["principals"].items():
        room.seats[seat].principal = principal
    room.history = [
        HistoryTurn(seat=t["seat"], dice=tuple(t["dice"]), moves=tuple(t["moves"]), fen_after=t["fenAfter"])
        for t in data["history"]
    ]
    room.played = set(data["played"])
    if room.clock is not None and data["clock"] is not None:
        room.clock.remaining_ms = dict(data["clock"]["remainingMs"])
        room.clock.running = room.clock.started_at = None
        if data["clock"]["running"] is not None:
            room.clock.start(data["clock"]["running"], now)
            room.clock.remaining_ms = dict(data["clock"]["remainingMs"])  # PerMove: keep what was left
    room.draw_offer_from = data["drawOfferFrom"]
    room.draw_blocked = set(data["drawBlocked"])
    ending = data["ending"]
    room.ending = None if ending is None else Ending(Termination(ending["termination"]), ending["winner"], ending["at"])
    room.reset_derived_state()
