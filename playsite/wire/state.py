"""The public game state: ``GET /games/{id}`` and the `state` of a Snapshot."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from . import _read
from .common import (
    Checked,
    ClientSeedsView,
    Clocks,
    LegalMoves,
    Players,
    Seat,
    check_seat,
    decode_client_seeds,
    decode_clocks,
    decode_optional_move_tree,
    decode_players,
    encode_client_seeds,
    encode_clocks,
    encode_players,
    read_digest,
    read_seat,
    read_timestamp,
)
from .errors import WireError
from .outcome import Active, Status, decode_status, encode_status
from .time_control import TimeControl, decode_time_control, encode_time_control

StartupPhase = Literal["awaiting_joins", "active", "aborted"]
AWAITING_JOINS: StartupPhase = "awaiting_joins"
STARTUP_PHASES: tuple[StartupPhase, ...] = (AWAITING_JOINS, "active", "aborted")


def _deadline_only_while_awaiting(
    instance: RematchStartup, attribute: attrs.Attribute[Checked], value: Checked
) -> None:
    if (instance.phase == AWAITING_JOINS) != (value is not None):
        raise WireError(
            "RematchStartup.join_deadline_at must be set for awaiting_joins and only then"
        )


@attrs.frozen
class RematchStartup:
    """Startup marker of a rematch successor game (service.md, "Successor game startup marker").

    `join_deadline_at` (RFC 3339, UTC) is present exactly while the phase is awaiting_joins.
    """

    phase: StartupPhase = attrs.field(validator=attrs.validators.in_(STARTUP_PHASES))
    join_deadline_at: str | None = attrs.field(default=None, validator=_deadline_only_while_awaiting)


def encode_rematch_startup(marker: RematchStartup) -> dict[str, Any]:
    if marker.join_deadline_at is None:
        return {"phase": marker.phase}
    return {"phase": marker.phase, "joinDeadlineAt": marker.join_deadline_at}


def decode_rematch_startup(obj: object, where: str = "rematchStartup") -> RematchStartup:
    body = _read.fields(obj, where, ("phase",), ("joinDeadlineAt",))
    phase = _read.one_of(body["phase"], f"{where}.phase", STARTUP_PHASES)
    if phase == AWAITING_JOINS:
        if "joinDeadlineAt" not in body:
            raise WireError(f"{where} is missing field \"joinDeadlineAt\" (required for awaiting_joins)")
        return RematchStartup(phase, read_timestamp(body["joinDeadlineAt"], f"{where}.joinDeadlineAt"))
    if "joinDeadlineAt" in body:
        raise WireError(f"{where}.joinDeadlineAt is only allowed for awaiting_joins, not {phase}")
    return RematchStartup(phase)  # type: ignore[arg-type]


def _sealed_while_active(instance: PublicGameState, attribute: attrs.Attribute[Checked], value: Checked) -> None:
    # The dice secret must never leave the server while the game can still be played.
    if value is not None and isinstance(instance.status, Active):
        raise WireError(f"PublicGameState.{attribute.name} must be None while the game is active")


@attrs.frozen
class PublicGameState:
    """Everything anyone may see of a game at one version.

    `seed` and `client_seeds` stay None until the game has ended (enforced). `legal_moves`
    is the tree while dice are pending, or None when not inlined or when nothing is pending.
    `players` None omits the key; `rematch_startup` is set only for rematch successors.
    """

    version: int
    dfen: str
    active_seat: Seat = attrs.field(validator=check_seat)
    dice_pending: bool
    status: Status
    time_control: TimeControl
    clocks: Clocks | None
    commit: str
    seed: str | None = attrs.field(validator=_sealed_while_active)
    client_seeds: ClientSeedsView | None = attrs.field(validator=_sealed_while_active)
    legal_moves: LegalMoves | None
    players: Players | None
    rematch_startup: RematchStartup | None = None
    rated: bool | None = None
    """Whether the game counts for ratings, as known now (None omits the key)."""


def encode_public_game_state(state: PublicGameState) -> dict[str, Any]:
    """The JSON object of `state` (the tree is inserted as is, not copied)."""
    obj: dict[str, Any] = {
        "version": state.version,
        "dfen": state.dfen,
        "activeSeat": state.active_seat,
        "dicePending": state.dice_pending,
        "status": encode_status(state.status),
        "timeControl": encode_time_control(state.time_control),
        "clocks": encode_clocks(state.clocks),
        "commit": state.commit,
        "seed": state.seed,
        "clientSeeds": encode_client_seeds(state.client_seeds),
        "legalMoves": state.legal_moves,
    }
    if state.players is not None:
        obj["players"] = encode_players(state.players)
    if state.rematch_startup is not None:
        obj["rematchStartup"] = encode_rematch_startup(state.rematch_startup)
    if state.rated is not None:
        obj["rated"] = state.rated
    return obj


_STATE_REQUIRED = (
    "version",
    "dfen",
    "activeSeat",
    "dicePending",
    "status",
    "timeControl",
    "clocks",
    "commit",
    "seed",
    "clientSeeds",
    "legalMoves",
)
_STATE_OPTIONAL = ("players", "rematchStartup", "rated")


def decode_public_game_state(obj: object, where: str = "state") -> PublicGameState:
    body = _read.fields(obj, where, _STATE_REQUIRED, _STATE_OPTIONAL)
    status = decode_status(body["status"], f"{where}.status")
    seed = _read.optional(body["seed"], read_digest, f"{where}.seed")
    client_seeds = _read.optional(body["clientSeeds"], decode_client_seeds, f"{where}.clientSeeds")
    if isinstance(status, Active) and (seed is not None or client_seeds is not None):
        raise WireError(f"{where}: seed and clientSeeds must be null while the game is active")
    players = decode_players(body["players"], f"{where}.players") if "players" in body else None
    marker = (
        decode_rematch_startup(body["rematchStartup"], f"{where}.rematchStartup")
        if "rematchStartup" in body
        else None
    )
    return PublicGameState(
        version=_read.integer(body["version"], f"{where}.version"),
        dfen=_read.string(body["dfen"], f"{where}.dfen"),
        active_seat=read_seat(body["activeSeat"], f"{where}.activeSeat"),
        dice_pending=_read.boolean(body["dicePending"], f"{where}.dicePending"),
        status=status,
        time_control=decode_time_control(body["timeControl"], f"{where}.timeControl"),
        clocks=decode_clocks(body["clocks"], f"{where}.clocks"),
        commit=read_digest(body["commit"], f"{where}.commit"),
        seed=seed,
        client_seeds=client_seeds,
        legal_moves=decode_optional_move_tree(body["legalMoves"], f"{where}.legalMoves"),
        players=players,
        rematch_startup=marker,
        rated=_read.boolean(body["rated"], f"{where}.rated") if "rated" in body else None,
    )
