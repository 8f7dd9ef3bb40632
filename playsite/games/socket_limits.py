"""How many game sockets are open, per client address and, for spectators, per game; and
how fast one socket's frames are taken.

Limits (settings): `PLAY_SOCKETS_PER_ADDRESS` for every socket of one address, seats
included; `PLAY_SPECTATORS_PER_ADDRESS` and `PLAY_SPECTATORS_PER_GAME` for spectators.
Fan-out costs the room one queue write per subscriber and event, so a crowd on one game
slows every game's turns. Process-local, like admission: the one serving process holds
every socket. A socket over a limit is refused `too_many_sockets` or `too_many_spectators`
(`SOCKET_LIMIT_STATUSES`: 429, with Retry-After RETRY_AFTER_S).

Frames are paced, never refused (`FramePace`): a socket may send `PLAY_SOCKET_FRAME_BURST`
frames at once and `PLAY_SOCKET_FRAMES_PER_SECOND` after that; a frame beyond waits until
the socket has earned it, and meanwhile nothing more is read from the connection, so a
client sending faster is slowed by its own TCP window. A refused turn is an event of the
room (versioned, stored, sent to every subscriber), so without a pace one seat sending
refused turns as fast as it could would keep its room, the store and every spectator busy.
Play itself never comes near the pace: a seat sends one turn per roll.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Mapping

import trio

from playsite.refusals import Refused

RETRY_AFTER_S = 30
SOCKET_LIMIT_STATUSES: Mapping[str, int] = {"too_many_sockets": 429, "too_many_spectators": 429}


class SocketLimits:
    def __init__(
        self,
        *,
        per_address: int,
        spectators_per_game: int,
        spectators_per_address: int,
        frames_per_second: float,
        frame_burst: int,
    ):
        self.per_address = per_address
        self.spectators_per_game = spectators_per_game
        self.spectators_per_address = spectators_per_address
        self.frames_per_second = frames_per_second
        self.frame_burst = frame_burst
        self.by_address: Counter[str] = Counter()
        self.spectators_by_game: Counter[str] = Counter()
        self.spectators_by_address: Counter[str] = Counter()
        self.frames_paced = 0
        """Frames of every socket that had to wait for their pace (GET /metrics)."""

    def pace(self) -> FramePace:
        """A new socket's pace."""
        return FramePace(self)

    @contextlib.contextmanager
    def holding(self, game_id: str, address: str, *, spectator: bool) -> Iterator[None]:
        """Hold one socket place for the block; refused when this address, or this game's
        spectators, are at their limit."""
        if self.by_address[address] >= self.per_address:
            raise too_many("too_many_sockets", f"this address already holds {self.per_address} game sockets")
        if spectator and self.spectators_by_game[game_id] >= self.spectators_per_game:
            raise too_many("too_many_spectators", f"this game has its {self.spectators_per_game} spectators; try again later")
        if spectator and self.spectators_by_address[address] >= self.spectators_per_address:
            raise too_many(
                "too_many_spectators", f"this address already watches with {self.spectators_per_address} sockets"
            )
        held = [(self.by_address, address)]
        if spectator:
            held += [(self.spectators_by_game, game_id), (self.spectators_by_address, address)]
        for counter, key in held:
            counter[key] += 1
        try:
            yield
        finally:
            for counter, key in held:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


def too_many(code: str, message: str) -> Refused:
    return Refused(code, message)


class FramePace:
    """One socket's token bucket: `frame_burst` frames at once, `frames_per_second` after."""

    __slots__ = ("limits", "tokens", "at")

    def __init__(self, limits: SocketLimits) -> None:
        self.limits = limits
        self.tokens = float(limits.frame_burst)
        self.at = trio.current_time()
        """When `tokens` was last brought up to date."""

    def take_now(self) -> bool:
        """Spend a frame's token if the socket has one; False (nothing spent) when it must wait."""
        now = trio.current_time()
        limits = self.limits
        self.tokens = min(float(limits.frame_burst), self.tokens + (now - self.at) * limits.frames_per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def take(self) -> None:
        """Spend a frame's token, first waiting until the socket has earned one."""
        if self.take_now():
            return
        self.limits.frames_paced += 1
        while True:
            await trio.sleep((1 - self.tokens) / self.limits.frames_per_second)
            if self.take_now():
                return
