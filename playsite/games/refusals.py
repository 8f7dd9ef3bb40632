"""Refusals about games that several route families give, in the domain's words: each family
that answers them maps their codes to statuses with `GAME_STATUSES`."""

from __future__ import annotations

from collections.abc import Mapping

from playsite.principals import canonical_uuid
from playsite.refusals import Refused

GAME_STATUSES: Mapping[str, int] = {"game_not_found": 404}


def game_not_found(message: str = "no such game") -> Refused:
    return Refused("game_not_found", message)


def canonical_game_id(raw: str) -> str:
    """The game id `raw` names, as the service writes ids (lowercase); refused `game_not_found`
    for anything that is not one."""
    game_id = canonical_uuid(raw)
    if game_id is None:
        raise game_not_found()
    return game_id
