"""Refusals about games that several route families give, in the domain's words: each family
that answers them maps their codes to statuses with `GAME_STATUSES`."""

from __future__ import annotations

import re
from collections.abc import Mapping

from playsite.refusals import Refused

CANONICAL_GAME_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""Game ids are lowercase 8-4-4-4-12 UUIDs. Python's UUID parser also takes braces, `urn:uuid:`
and misplaced hyphens, which PostgreSQL refuses: an id is checked by this, never parsed."""
GAME_STATUSES: Mapping[str, int] = {"game_not_found": 404}


def game_not_found(message: str = "no such game") -> Refused:
    return Refused("game_not_found", message)


def canonical_game_id(raw: str) -> str:
    """The game id `raw` names, as the service writes ids (lowercase); refused `game_not_found`
    for anything that is not one."""
    game_id = raw.lower()
    if not CANONICAL_GAME_ID.fullmatch(game_id):
        raise game_not_found()
    return game_id
