"""The human-facing bot catalog: registered bots that opened themselves to people.

`available` is advisory (read once per fetch): below the bot's declared capacity right now.
Admission at `POST /lobby/play-bot` stays the real gate.
"""

from __future__ import annotations

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.ratings.book import RatingBook
from playsite.rooms.admission import Admission
from playsite.rooms.registry import Registry

CATALOG_ORIGIN = "lobby"
"""Games a guest starts from the catalog (the store knows this origin as 'lobby')."""


def in_catalog(account: BotAccount) -> bool:
    return account.registered and account.open_to_humans


def catalog(directory: BotDirectory) -> list[BotAccount]:
    return sorted((a for a in directory.registered() if in_catalog(a)), key=lambda a: a.id)


def at_capacity(account: BotAccount, admission: Admission) -> bool:
    """The bot plays as many games as it declared it can, right now."""
    return sum(admission.occupancy(account.principal).values()) >= account.max_concurrent_games


def catalog_card(account: BotAccount, admission: Admission, book: RatingBook) -> dict[str, object]:
    rating = book.rating_of(account.id)
    card: dict[str, object] = {
        "team": account.team,
        "name": account.name,
        "rating": rating.rating,
        "rd": rating.rd,
        "provisional": rating.provisional,
    }
    if account.description:
        card["description"] = account.description
    card["available"] = not at_capacity(account, admission)
    return card


def has_unfinished_lobby_game(registry: Registry, principal: str) -> bool:
    """Whether `principal` sits in a catalog game that has not ended (one at a time, for now)."""
    return any(
        room.setup.origin == CATALOG_ORIGIN and not room.ended and room.seats_of(principal)
        for room in registry.live.values()
    )
