"""Waking a catalog bot before a visitor commits to a game (POST /lobby/bots/{team}/{name}/wake).

The answer says whether the bot is there to play now, by the same signs the rest of playsite
goes by, cheapest first:

1. a bot at its declared capacity is *busy* and never contacted (`alive` false);
2. a house bot plays in this process: alive while the house runs;
3. a bot holding its account stream hears a game start at once: alive;
4. a bot with a webhook is sent the unsigned verification echo (`Webhooks.probe`, the showcase's
   readiness check); a serverless bot starts on it. Alive if it echoes within `PROBE_TIMEOUT_S`;
5. anything else (no stream, no webhook, webhook push off): not alive.

The echo costs the bot a request, so one per bot per `PROBE_KEPT_S` at most: concurrent wakes
of a bot wait for the one probe in flight, and later ones within that time reuse its answer,
however many addresses ask. The route limits each address as well (`wake_routes.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Container
from typing import Protocol

import attrs
import trio

from playsite.bots.directory import BotDirectory
from playsite.bots.events import BotEvents
from playsite.lobby.catalog import at_capacity, in_catalog
from playsite.refusals import Refused
from playsite.rooms.admission import Admission
from playsite.webhooks.registrations import VERIFICATION_ECHO_TIMEOUT_S, Webhooks

log = logging.getLogger("playsite.lobby")

PROBE_TIMEOUT_S = VERIFICATION_ECHO_TIMEOUT_S + 2.0
"""The echo's own 5 s, plus resolving the webhook's host."""
PROBE_KEPT_S = 15.0
"""A probe's answer serves every wake of that bot for this long."""


@attrs.frozen
class Wake:
    alive: bool
    busy: bool


class HousePlayers(Protocol):
    @property
    def accounts(self) -> Container[str]:
        """The principals of the house bots playing in this process."""


class Wakes:
    """One per process: the probes in flight and the recent answers, per bot."""

    def __init__(
        self, bots: BotDirectory, admission: Admission, events: BotEvents, webhooks: Webhooks,
        house: HousePlayers | None = None,
    ):
        self.bots = bots
        self.admission = admission
        self.events = events
        self.webhooks = webhooks
        self.house = house
        """The running house bots (`HouseBots`: principal -> account in `.accounts`), or None."""
        self.probes = 0
        """Probes sent, for tests and logs."""
        self._answers: dict[str, tuple[float, bool]] = {}
        self._in_flight: dict[str, trio.Event] = {}

    async def wake(self, bot_id: str) -> Wake:
        """Raises Refused `not_in_catalog` (404) for a bot outside the catalog."""
        bot = self.bots.get(bot_id)
        if bot is None or not in_catalog(bot):
            raise Refused("not_in_catalog", f"no bot {bot_id!r} in the catalog")
        if at_capacity(bot, self.admission):
            return Wake(alive=False, busy=True)
        if self.house is not None and bot.principal in self.house.accounts:
            return Wake(alive=True, busy=False)
        if self.events.online(bot.id):
            return Wake(alive=True, busy=False)
        return Wake(alive=await self._probe(bot.id), busy=False)

    async def _probe(self, bot_id: str) -> bool:
        while True:
            answered = self._answers.get(bot_id)
            if answered is not None and trio.current_time() - answered[0] < PROBE_KEPT_S:
                return answered[1]
            in_flight = self._in_flight.get(bot_id)
            if in_flight is None:
                break
            await in_flight.wait()  # its answer is read at the top; a cancelled probe left none
        done = self._in_flight[bot_id] = trio.Event()
        try:
            alive = await self._echo(bot_id)
            self._forget_old()
            self._answers[bot_id] = (trio.current_time(), alive)
        finally:
            del self._in_flight[bot_id]
            done.set()
        return alive

    async def _echo(self, bot_id: str) -> bool:
        if not self.webhooks.enabled:
            return False
        with trio.move_on_after(PROBE_TIMEOUT_S):
            try:
                if await self.webhooks.current(bot_id) is None:
                    return False
                self.probes += 1
                return await self.webhooks.probe(bot_id)
            except Exception as error:  # a probe that fails in any way is a bot that is not there
                log.info("wake: probe of %s failed: %s", bot_id, type(error).__name__)
        return False

    def _forget_old(self) -> None:
        now = trio.current_time()
        for bot_id in [b for b, (at, _) in self._answers.items() if now - at >= PROBE_KEPT_S]:
            del self._answers[bot_id]
