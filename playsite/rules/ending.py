"""How a game of dice chess ends: the one `Termination` vocabulary of playsite.

It lives with the rules because the rules decide two of these endings themselves (a
captured king, no progress) and the rules import nothing from the rest of playsite, while
every other layer (the wire codecs, the rooms, the store's records) may import the rules.
The room adds the endings that players and clocks cause.

A `Termination` is never sent or stored by its Python value: its names on the wire
(`Over.termination`), in the archive and in the durable snapshot are explicit tables in
`playsite.wire.termination` and `playsite.rooms.durable`. `str()` gives the reason's own
snake_case name, for text meant for people (logs, the rules CLI).
"""

from __future__ import annotations

import enum


class Termination(enum.Enum):
    KING_CAPTURED = "king_captured"
    """Decided by the rules: the mover captured the opponent's king."""
    NO_PROGRESS = "no_progress"
    """Decided by the rules: a draw after NO_PROGRESS_LIMIT half-moves without progress."""
    RESIGN = "resign"
    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"
    """A forfeit: the seat stayed away past the disconnect grace."""
    DRAW_AGREEMENT = "draw_agreement"
    ABORTED = "aborted"
    """No result: the game ended before it was decided (or could not be saved)."""

    def __str__(self) -> str:
        return self.value
