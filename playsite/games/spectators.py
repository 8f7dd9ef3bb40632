"""How many spectator sockets are open, per game and per client address, under the limits
`PLAY_SPECTATORS_PER_GAME` and `PLAY_SPECTATORS_PER_ADDRESS`.

Fan-out costs the room one queue write per subscriber and event, so a crowd on one game
slows every game's turns; seats are never counted or refused. Process-local, like
admission: the one serving process holds every socket.
"""

from __future__ import annotations

import contextlib
from collections import Counter

from playsite.http.errors import Refusal

RETRY_AFTER_S = 30


class SpectatorLimits:
    def __init__(self, per_game: int, per_address: int):
        self.per_game = per_game
        self.per_address = per_address
        self.by_game: Counter[str] = Counter()
        self.by_address: Counter[str] = Counter()

    @contextlib.contextmanager
    def watching(self, game_id: str, address: str):
        """Hold one spectator place for the block; 429 `too_many_spectators` when none is free."""
        if self.by_game[game_id] >= self.per_game:
            raise too_many(f"this game has its {self.per_game} spectators; try again later")
        if self.by_address[address] >= self.per_address:
            raise too_many(f"this address already watches with {self.per_address} sockets")
        self.by_game[game_id] += 1
        self.by_address[address] += 1
        try:
            yield
        finally:
            for counter, key in ((self.by_game, game_id), (self.by_address, address)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


def too_many(message: str) -> Refusal:
    return Refusal(429, "too_many_spectators", message, {"Retry-After": str(RETRY_AFTER_S)})
