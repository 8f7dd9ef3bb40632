"""Where a game stands for a page that names it (`/play/<id>`, `/replay/<id>`): being played
(or over for less than `GAME_PAGE_AFTER_END_S`, or over and not archived yet), finished and
archived, unknown to this server, or not known for sure (the archive did not answer: the page
is served and finds out itself)."""

from __future__ import annotations

from typing import Literal

import trio

from playsite.principals import canonical_uuid
from playsite.refusals import READ_TIMEOUT_S
from playsite.rooms.registry import Registry
from playsite.store import Store
from playsite.store.database import DatabaseUnavailable

Standing = Literal["live", "finished", "unknown", "unsure"]

GAME_PAGE_AFTER_END_S = 300.0
"""How long a game's own page is still served after its end (its result, the rematch, the rating
change, for a player who reloads): then its replay, which shows the finished game whole (play-through
s74: a page opened half an hour after the end said "Watching" and offered a rematch long over)."""


async def game_standing(registry: Registry, store: Store, game_id: str) -> Standing:
    canonical = canonical_uuid(game_id)
    if canonical is None:
        return "unknown"
    over_for = registry.finished_for(canonical)
    if canonical in registry.live or (over_for is not None and over_for < GAME_PAGE_AFTER_END_S):
        return "live"
    with trio.move_on_after(READ_TIMEOUT_S):
        try:
            record = await store.read_archive(canonical)
        except DatabaseUnavailable:
            return "unsure"
        if record is not None:
            return "finished"
        return "unknown" if over_for is None else "live"  # over, its record not written yet
    return "unsure"
