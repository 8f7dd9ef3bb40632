"""Where a game stands for a page that names it (`/play/<id>`, `/replay/<id>`): being played
(or just over and still in memory), finished and archived, unknown to this server, or not
known for sure (the archive did not answer: the page is served and finds out itself)."""

from __future__ import annotations

from typing import Literal

import trio

from playsite.principals import canonical_uuid
from playsite.refusals import READ_TIMEOUT_S
from playsite.rooms.registry import Registry
from playsite.store import Store
from playsite.store.database import DatabaseUnavailable

Standing = Literal["live", "finished", "unknown", "unsure"]


async def game_standing(registry: Registry, store: Store, game_id: str) -> Standing:
    canonical = canonical_uuid(game_id)
    if canonical is None:
        return "unknown"
    if registry.get(canonical) is not None:
        return "live"
    with trio.move_on_after(READ_TIMEOUT_S):
        try:
            record = await store.read_archive(canonical)
        except DatabaseUnavailable:
            return "unsure"
        return "unknown" if record is None else "finished"
    return "unsure"
