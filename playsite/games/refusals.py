"""Refusals about games that several route families give."""

from __future__ import annotations

from playsite.http.errors import Refusal


def game_not_found(message: str = "no such game") -> Refusal:
    return Refusal(404, "game_not_found", message)
