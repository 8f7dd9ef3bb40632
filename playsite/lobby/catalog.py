"""The human-facing bot catalog: registered bots that opened themselves to people.

`available` is advisory (read once per fetch): below the bot's declared capacity right now.
Admission at `POST /lobby/play-bot` stays the real gate.
"""

from __future__ import annotations

from playsite.bots.directory import BotAccount
from playsite.ratings.book import RatingBook

CATALOG_ORIGIN = "lobby"
"""Games a guest starts from the catalog (the store knows this origin as 'lobby')."""


def in_catalog(account: BotAccount) -> bool:
    return account.registered and account.open_to_humans


def catalog(directory) -> list[BotAccount]:
    return sorted((a for a in directory.registered() if in_catalog(a)), key=lambda a: a.id)


def at_capacity(account: BotAccount, admission) -> bool:
    """The bot plays as many games as it declared it can, right now."""
    return sum(admission.occupancy(account.principal).values()) >= account.max_concurrent_games


def catalog_card(account: BotAccount, admission, book: RatingBook) -> dict:
    rating = book.rating_of(account.id)
    card = {
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


def has_unfinished_lobby_game(registry, principal: str) -> bool:
    """Whether `principal` sits in a catalog game that has not ended (one at a time, for now)."""
    return any(
        room.setup.origin == CATALOG_ORIGIN and not room.ended and any(s.principal == principal for s in room.seats.values())
        for room in registry.live.values()
    )
