"""The rooms' values: what a game is set up with, how it ended, and its durable state.

Everything here is a plain value (no task, no I/O), so the room, its durable codec
(`durable`) and its store writes (`writes`) all import it and none imports another.
Seats are the wire's `Seat` (a `str` enum, `WHITE`, `BLACK`, `SEATS`): one word for a seat
from the room to the client. How a game ends is the rules' `Termination` (the rules decide
some endings, and import nothing); `playsite.wire.termination` names it for clients and
for the archive. Wall-clock times come from the room's injected `WallClock`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from datetime import datetime, timezone

import attrs

from playsite.dice import Fairness
from playsite.principals import Principal
from playsite.rules import START_POSITION, Position, Termination
from playsite.wire.instant import decode_instant, encode_instant
from playsite.wire import (
    BLACK,
    WHITE,
    Abort,
    Draw,
    HistoryTurn,
    Over,
    Players,
    PublicFace,
    Seat,
    TimeControl,
    Win,
    to_wire,
)

DISCONNECT_GRACE_S = 30
"""rules.md / service.md: a seat of an active game may stay away this long."""
RECONNECT_WINDOW_S = 10
"""After a restart, how long a seat whose player was here is told as reconnecting (its page or
bot is on its way back to the new process) rather than as gone; its grace runs all the same."""
FRIEND_JOIN_WINDOW_S = 600
"""How long a friend game waits for both seats to connect before it is aborted."""
REQUIRED = "required"
BEST_EFFORT = "best_effort"
TECHNICAL_ABORT_REASON = "technical abort: the game could not be saved"


def utc_now() -> str:
    """The system clock, as the archive writes times (ISO-8601 UTC, milliseconds): the
    default `WallClock`, and the only wall-clock read in rooms/."""
    return encode_instant(datetime.now(timezone.utc))


def seconds_between(earlier: str, later: str) -> float:
    """`later - earlier` in seconds, for two times as `utc_now` writes them."""
    return (decode_instant(later) - decode_instant(earlier)).total_seconds()


WallClock = Callable[[], str]
"""The wall clock a room stamps its creation and its ending with (`utc_now`; tests give
their own). Timers never use it: they run on trio's clock."""


def seat_to_move(position: Position) -> Seat:
    """The seat whose turn it is in `position`."""
    return WHITE if position.turn else BLACK


class RoomPhase(enum.Enum):
    AWAITING_JOINS = "awaiting_joins"  # friend game: both seats must connect first
    SEEDING = "seeding"  # commit published, waiting (briefly) for client seeds
    PLAYING = "playing"  # dice rolled for the active seat, waiting for its turn
    DRAW_ANSWER = "draw_answer"  # a draw offer waits for the active seat's answer
    ENDED = "ended"


@attrs.frozen
class Ending:
    termination: Termination
    winner: Seat | None
    at: str | None = None
    """When the game ended, by the room's wall clock (None until the room stamps it)."""
    technical: bool = False
    """An abort the server decided for reasons of its own (a write it could not make, a
    rematch that never began), not the players' play: such a game has no rematch. An abort
    because a seat resigned, timed out or left before both had played a turn is not technical."""
    abort: Abort | None = None
    """Why the players' game was aborted and by which seat (every abort that is not technical)."""

    @property
    def over(self) -> Over:
        """How the game ended, as clients are told."""
        if self.termination is Termination.ABORTED:
            return Over(result=None, termination=to_wire(self.termination))
        result = Win(self.winner) if self.winner else Draw()
        return Over(result=result, termination=to_wire(self.termination))


@attrs.frozen
class SeatSetup:
    token_hash: bytes
    face: PublicFace
    principal: str | None = None
    """Who sits here, once known ('guest:<uuid>', 'user:<uuid>', 'bot:<id>')."""
    always_present: bool = False
    """API seats (bots) play without a connection: no join wait, no disconnect grace."""


@attrs.frozen
class RoomSetup:
    game_id: str
    time_control: TimeControl
    white: SeatSetup
    black: SeatSetup
    rated: bool = False
    origin: str = "friend"
    await_joins: bool = True
    join_window_s: float = FRIEND_JOIN_WINDOW_S
    idle_forfeit_s: float | None = None
    """Unlimited games only, when the server enables it: a seat to move that has not played its
    roll within this many seconds loses on time (as a flag fall would)."""
    first_move_s: float | None = None
    """Clocked games, when the server enables it: a person's seat (not an API seat) that has not
    played a turn yet and does not play its roll within this many seconds aborts the game (no
    result, no rating), so an opponent who never moves holds nobody for a whole clock."""
    claim_grace_s: float | None = None
    """When set, a person's seat never taken must be taken within this many seconds of the
    creation (`created_at`), or counts as a dropped connection (the showcase's claim grace).
    The deadline is absolute: a restart neither extends nor restarts it."""
    seed_window_s: float = 2.0
    start: Position = START_POSITION
    durability: str = BEST_EFFORT
    """REQUIRED fails closed on a failed write; BEST_EFFORT logs it and plays on."""
    purpose: str = "general"
    participants: tuple[str, ...] = ()
    """Who counts against admission capacity (bots); kept so a restart can rebuild occupancy."""
    created_at: str | None = None
    """When the game was created, by the room's wall clock (the room stamps it when built)."""
    predecessor: str | None = None
    """A rematch successor: the finished game it continues (set only on successors, which
    start behind the startup gate: both seats connected at once, by `join_deadline_at`)."""
    join_deadline_at: str | None = None
    """A successor's absolute first-join deadline (ISO-8601 UTC, the wall clock). Durable:
    the window is never granted again, not by a reconnect and not by a restart."""

    @property
    def successor(self) -> bool:
        return self.predecessor is not None

    def seat(self, seat: Seat) -> SeatSetup:
        return self.white if seat == WHITE else self.black

    @property
    def players(self) -> Players:
        return Players(white=self.white.face, black=self.black.face)


@attrs.frozen
class ClockState:
    remaining_ms: dict[Seat, int]
    running: Seat | None
    """The seat whose clock ran at this version (it restarts from `remaining_ms` on resume)."""


@attrs.frozen
class RoomState:
    """Everything durable about a room at one version: what the store keeps, what a room
    resumes from after a restart and rolls back to when a write is given up."""

    setup: RoomSetup
    version: int
    phase: RoomPhase
    position: Position
    rolled: tuple[int, ...]
    ply: int
    fairness: Fairness
    """The server seed (secret until the end) and the client seeds."""
    principals: dict[Seat, str | None]
    """Seat -> who sits there, once known."""
    history: tuple[HistoryTurn, ...]
    played: frozenset[Seat]
    """Seats that have played a turn."""
    clock: ClockState | None
    draw_offer_from: Seat | None
    draw_blocked: frozenset[Seat]
    ending: Ending | None
    joined: frozenset[Seat] = frozenset()
    """Seats that have connected at least once (a successor's connection history)."""
    activated: bool = True
    """Whether the game began (left `awaiting_joins`); False only for a game still waiting, or
    a successor that ended at its startup gate."""

    @property
    def game_id(self) -> str:
        return self.setup.game_id

    @property
    def rated(self) -> bool:
        return effective_rated(self.setup.rated, self.principals, ended=self.phase is RoomPhase.ENDED)

    @property
    def ended(self) -> bool:
        return self.phase is RoomPhase.ENDED


def effective_rated(requested: bool, principals: Mapping[Seat, str | None], *, ended: bool) -> bool:
    """Whether a game asked to be rated still is: only accounts and bots are rated, so a
    guest taking a seat makes the game casual at once, and at the end both seats must be
    known accounts or bots (a seat never taken leaves it casual too). A game against oneself
    (one account or bot in both seats) is casual from the moment the second seat is taken:
    the rating periods never rate it, so nothing may promise that they will."""
    if not requested:
        return False
    known = [p for p in principals.values() if p is not None]
    if not all(_is_rated(p) for p in known):
        return False
    if len(known) == 2 and known[0] == known[1]:
        return False
    return len(known) == len(principals) if ended else True


def _is_rated(principal: str) -> bool:
    parsed = Principal.parse(principal)
    return parsed is not None and parsed.is_rated
