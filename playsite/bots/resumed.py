"""Games resumed at boot whose bot cannot come back.

An anonymous bot lives in memory only (directory.py): a restart forgets it and its token. A
game it was playing is resumed from the store like any other, yet nobody could ever play its
seat again: the game would end on that seat's clock or its idle forfeit, a loss the bot never
played and a win its opponent never earned. Such a game is aborted at boot instead, as a
technical abort ("the server could not go on": no result, no rating), before the port opens.
"""

from __future__ import annotations

import logging

from playsite import principals
from playsite.bots.directory import ANON_TEAM
from playsite.principals import Kind
from playsite.rooms.intents import Abort
from playsite.rooms.registry import Registry
from playsite.wire import SEATS

log = logging.getLogger("playsite.bots")


def held_by_anonymous_bot(principal: str | None) -> bool:
    bot_id = principals.id_of(principal, Kind.BOT)
    return bot_id is not None and bot_id.split("/", 1)[0] == ANON_TEAM


async def abort_games_of_forgotten_bots(registry: Registry) -> list[str]:
    """Technically abort every live game with an anonymous bot in a seat; their ids."""
    aborted = []
    for room in list(registry.live.values()):
        if any(held_by_anonymous_bot(room.setup.seat(seat).principal) for seat in SEATS):
            intent = Abort("an anonymous bot does not survive a restart")
            if await room.send(intent):
                await intent.reply.wait()
            aborted.append(room.game_id)
    if aborted:
        log.info("aborted %d resumed game(s) of anonymous bots, which a restart forgets: %s",
                 len(aborted), ", ".join(aborted))
    return aborted
