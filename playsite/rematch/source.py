"""The source of a rematch: what a finished game says about who may rematch, with what.

Pure: everything here is read from the game's durable state (`RoomState`), which is kept
after the room is gone, so a rematch authenticates and inherits its settings the same way
whether the source's room is still in memory or long evicted.
"""

from __future__ import annotations

import attrs

from playsite.principals import Kind, Principal, kind_of
from playsite.rooms.model import RoomState
from playsite.store.base import ResultRow
from playsite.wire import SEATS, Seat, TimeControl, decode_time_control
from playsite.wire.instant import decode_instant

REMATCHABLE_ORIGINS = ("friend", "seek", "rematch")
"""Ordinary games of the `/play` product: friend games, games two people met in through a
lobby seek, and the rematches they lead to (showcase, ladder and bot games are not)."""


@attrs.frozen
class SourceSeat:
    principal: str | None
    token_hash: bytes
    """The digest of the source seat's capability: a guest's rematch credential."""

    @property
    def guest(self) -> bool:
        return kind_of(self.principal) is Kind.GUEST


@attrs.frozen
class Source:
    game_id: str
    ended: bool
    """The game's ending is committed (an ongoing or still-saving game is not a source yet)."""
    ended_at: float | None
    """The authoritative end (seconds since the epoch), when ended."""
    seats: dict[Seat, SourceSeat]
    time_control: TimeControl
    rated: bool
    """The actual rated/casual setting the game ended with (a rematch copies it)."""
    why_not: str | None
    """Why this game can never have a rematch, or None when it is eligible (once ended)."""
    technical_abort: bool = False

    @property
    def eligible(self) -> bool:
        return self.why_not is None

    @property
    def end(self) -> float:
        """`ended_at` of an ended source (asking it of one that has not ended is a bug)."""
        assert self.ended_at is not None, f"game {self.game_id} has not ended"
        return self.ended_at

    def seat_held_by(self, principal: str) -> Seat | None:
        """The seat `principal` held at the end of the game, if any."""
        return next((seat for seat in SEATS if self.seats[seat].principal == principal), None)


def source_of(state: RoomState, *, ended: bool) -> Source:
    """The source `state` describes; `ended` says its ending is committed."""
    principals = [state.principals[seat] for seat in SEATS]
    ending = state.ending
    technical_abort = ending is not None and ending.technical
    return Source(
        game_id=state.game_id,
        ended=ended,
        # A snapshot from before endings were stamped: its window is long gone.
        ended_at=(_epoch(ending.at) if ending.at else 0.0) if ended and ending is not None else None,
        seats={
            seat: SourceSeat(principal=state.principals[seat], token_hash=state.setup.seat(seat).token_hash)
            for seat in SEATS
        },
        time_control=state.setup.time_control,
        rated=state.rated,
        why_not=_why_not(state, principals, technical_abort),
        technical_abort=technical_abort,
    )


def source_of_result(result: ResultRow) -> Source:
    """The source a finished game's results row describes, once retention has dropped its
    games row (the snapshot, the seats' token digests): its rematch window closed long ago,
    so it is read for what it led to. Account seats still answer to their session; a guest's
    seat capability went with the digests, so no token matches it any more. The results row
    does not tell a technical abort from the players' own: either reads as a window that
    closed (`expired`), as it did long ago."""
    principals = [result.white_principal, result.black_principal]
    why_not = None
    if result.origin not in REMATCHABLE_ORIGINS:
        why_not = f"a {result.origin} game has no rematch"
    elif not all(_human(p) for p in principals):
        why_not = "only people rematch"
    elif principals[0] == principals[1]:
        why_not = "both seats were played by the same person"
    return Source(
        game_id=result.game_id,
        ended=True,
        ended_at=result.finished_at.timestamp(),
        seats={seat: SourceSeat(principal=p, token_hash=b"") for seat, p in zip(SEATS, principals, strict=True)},
        time_control=decode_time_control(result.time_control),
        rated=result.rated,
        why_not=why_not,
    )


def _why_not(state: RoomState, principals: list[str | None], technical_abort: bool) -> str | None:
    if state.setup.origin not in REMATCHABLE_ORIGINS:
        return f"a {state.setup.origin} game has no rematch"
    if any(state.setup.seat(seat).always_present for seat in SEATS):
        return "a game with a bot has no rematch"
    if any(p is None for p in principals):
        return "a seat was never taken"
    if not all(_human(p) for p in principals):
        return "only people rematch"
    if principals[0] == principals[1]:
        return "both seats were played by the same person"
    if technical_abort:
        return "the server aborted the game (a technical abort)"
    return None


def _human(written: str | None) -> bool:
    principal = Principal.parse(written)
    return principal is not None and principal.is_human


def _epoch(stamp: str) -> float:
    return decode_instant(stamp).timestamp()
