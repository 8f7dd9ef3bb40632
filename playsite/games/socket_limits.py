"""How many game sockets are open, per client address and, for spectators, per game.

Limits (settings): `PLAY_SOCKETS_PER_ADDRESS` for every socket of one address, seats
included; `PLAY_SPECTATORS_PER_ADDRESS` and `PLAY_SPECTATORS_PER_GAME` for spectators.
Fan-out costs the room one queue write per subscriber and event, so a crowd on one game
slows every game's turns. Process-local, like admission: the one serving process holds
every socket. A socket over a limit is refused `too_many_sockets` or `too_many_spectators`
(`SOCKET_LIMIT_STATUSES`: 429, with Retry-After RETRY_AFTER_S).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Mapping

from playsite.refusals import Refused

RETRY_AFTER_S = 30
SOCKET_LIMIT_STATUSES: Mapping[str, int] = {"too_many_sockets": 429, "too_many_spectators": 429}


class SocketLimits:
    def __init__(self, *, per_address: int, spectators_per_game: int, spectators_per_address: int):
        self.per_address = per_address
        self.spectators_per_game = spectators_per_game
        self.spectators_per_address = spectators_per_address
        self.by_address: Counter[str] = Counter()
        self.spectators_by_game: Counter[str] = Counter()
        self.spectators_by_address: Counter[str] = Counter()

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
