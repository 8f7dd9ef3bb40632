"""How the one `Termination` (playsite.rules.ending) is named on the wire and in the archive.

Both names are explicit tables, never a `Termination`'s Python value. Neither is one to
one: the wire has the ecosystem's five names and the archive six, for seven reasons. A
forfeit after the disconnect grace travels, and is archived, as a resignation; live, both
kinds of draw are ``Draw``. Decoding gives the reason a name stands for first (``Resign``
-> RESIGN, ``Draw`` -> DRAW_AGREEMENT), so that encoding it again gives the same name.
"""

from __future__ import annotations

from typing import Literal

from playsite.rules.ending import Termination

from .outcome import ABORTED, DRAW, KING_CAPTURED, RESIGN, TIMEOUT, WireTermination

ArchiveTermination = Literal["king_captured", "timeout", "resign", "draw_agreement", "no_progress", "aborted"]
ARCHIVE_TERMINATIONS: tuple[ArchiveTermination, ...] = (
    "king_captured",
    "timeout",
    "resign",
    "draw_agreement",
    "no_progress",
    "aborted",
)

_WIRE: dict[Termination, WireTermination] = {
    Termination.KING_CAPTURED: KING_CAPTURED,
    Termination.RESIGN: RESIGN,
    Termination.DISCONNECT: RESIGN,  # the absent side resigned
    Termination.TIMEOUT: TIMEOUT,
    Termination.DRAW_AGREEMENT: DRAW,
    Termination.NO_PROGRESS: DRAW,
    Termination.ABORTED: ABORTED,
}
_FROM_WIRE: dict[WireTermination, Termination] = {
    KING_CAPTURED: Termination.KING_CAPTURED,
    RESIGN: Termination.RESIGN,
    TIMEOUT: Termination.TIMEOUT,
    DRAW: Termination.DRAW_AGREEMENT,
    ABORTED: Termination.ABORTED,
}
_ARCHIVE: dict[Termination, ArchiveTermination] = {
    Termination.KING_CAPTURED: "king_captured",
    Termination.RESIGN: "resign",
    Termination.DISCONNECT: "resign",  # archived as it travelled live
    Termination.TIMEOUT: "timeout",
    Termination.DRAW_AGREEMENT: "draw_agreement",
    Termination.NO_PROGRESS: "no_progress",
    Termination.ABORTED: "aborted",
}
_FROM_ARCHIVE: dict[ArchiveTermination, Termination] = {
    "king_captured": Termination.KING_CAPTURED,
    "resign": Termination.RESIGN,
    "timeout": Termination.TIMEOUT,
    "draw_agreement": Termination.DRAW_AGREEMENT,
    "no_progress": Termination.NO_PROGRESS,
    "aborted": Termination.ABORTED,
}


def to_wire(termination: Termination) -> WireTermination:
    """The `Over.termination` name clients see."""
    return _WIRE[termination]


def from_wire(name: WireTermination) -> Termination:
    """The reason a wire name stands for first (KeyError for a name that is not one)."""
    return _FROM_WIRE[name]


def to_archive(termination: Termination) -> ArchiveTermination:
    """The history record's and the results row's name (GET /games/{id}/history)."""
    return _ARCHIVE[termination]


def from_archive(name: ArchiveTermination) -> Termination:
    """The reason an archived name stands for first (KeyError for a name that is not one)."""
    return _FROM_ARCHIVE[name]
