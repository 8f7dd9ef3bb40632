"""Refusals about games that several route families give."""

from __future__ import annotations

from playsite.http.errors import Refusal
from playsite.principals import canonical_uuid


def game_not_found(message: str = "no such game") -> Refusal:
    return Refusal(404, "game_not_found", message)


def canonical_game_id(raw: str) -> str:
    """The game id `raw` names, as the service writes ids (lowercase); 404 `game_not_found`
    for anything that is not one."""
    game_id = canonical_uuid(raw)
    if game_id is None:
        raise game_not_found()
    return game_id
