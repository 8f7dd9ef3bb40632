"""The demo's league: the house bots and the featured bot play rated games among themselves in
the background, so the ranking, the bots' profiles and their records fill on their own.

- One league game at a time, between two of the league's bots in turn (every pair, each
  colour), Fischer 180 + 2 as on the ladder, rated, created as the ladder creates its games
  (origin `ladder`). A short rest between games.
- A gentle pace: in league games every bot waits `think_s` before each turn (the house bots
  through `HouseBots.think`, the featured bot through its own `think`), so a game lasts a few
  minutes and the CPU it takes is spread thin; people's games are never slowed down.

- A bot someone registers and puts on the ladder (`POST /bot/ladder/join`) joins the league
  while its program holds its account stream: after each of the league's own games it plays
  one of the league's bots in turn, rated, so a bot author sees a rating on the demo
  (the demo runs no ladder scheduler of its own). One that is not connected is passed over:
  a game against a bot that never moves would hold the league for a whole clock.

A league game left unfinished by a restart is resumed by the server like any other; the
league waits for it before starting the next one.
"""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Iterator

import attrs
import trio

from playsite.principals import Principal
from playsite.ratings.ladder import LADDER_CONTROL, LADDER_ORIGIN
from playsite.rooms.admission import AdmissionRefused
from playsite.services import Services

log = logging.getLogger("playsite.demo")

LEAGUE_BOTS = ("house/random", "house/greedy", "demo/featured")


@attrs.define
class League:
    services: Services
    think_s: float = 1.0
    rest_s: float = 5.0
    games: set[str] = attrs.field(factory=set)
    played: int = 0

    def think(self, game_id: str | None) -> float:
        """Seconds a bot waits before a turn: `think_s` in league games, nothing elsewhere."""
        return self.think_s if game_id in self.games else 0.0

    async def run(self) -> None:
        """Play league games one after the other until cancelled."""
        await self.finish_resumed()
        order = list(itertools.permutations(LEAGUE_BOTS, 2))
        start = random.randrange(len(order))  # a restart does not begin with the same pair again
        pairs = itertools.cycle(order[start:] + order[:start])
        opponents = itertools.cycle(LEAGUE_BOTS)
        while True:
            for white, black in [next(pairs), *self.guest_pairs(opponents)]:
                await self.play_or_skip(white, black)

    def guest_pairs(self, opponents: Iterator[str]) -> list[tuple[str, str]]:
        """One game for each bot on the ladder that is connected now, against the next league
        bot in turn, its colour drawn."""
        pairs = []
        for account in self.services.bots.registered():
            if account.id in LEAGUE_BOTS or not account.on_ladder or not self.services.bot_events.online(account.id):
                continue
            pair = (account.id, next(opponents))
            pairs.append(pair if random.random() < 0.5 else (pair[1], pair[0]))
        return pairs

    async def play_or_skip(self, white: str, black: str) -> None:
        try:
            await self.play(white, black)
        except AdmissionRefused as refused:  # a bot is busy (its capacity is taken by people): the next pair
            log.info("demo league: %s and %s cannot play now: %s", white, black, refused)
        except Exception as error:  # a failed game never stops the demo
            log.info("demo league: a game between %s and %s failed: %s", white, black, type(error).__name__)
        await trio.sleep(self.rest_s)

    def adopt_resumed(self) -> list:
        """The league games a previous run left unfinished (resumed at boot): paced from now on."""
        principals = {str(Principal.bot(bot)) for bot in LEAGUE_BOTS}
        resumed = []
        for room in list(self.services.registry.live.values()):
            seats = set(room.principals.values())
            if room.setup.origin == LADDER_ORIGIN and seats <= principals and not room.ended:
                self.games.add(room.game_id)
                resumed.append(room)
        return resumed

    async def finish_resumed(self) -> None:
        """Wait for the league games a previous run left unfinished."""
        for room in self.adopt_resumed():
            await room.finished.wait()
            self.games.discard(room.game_id)

    async def play(self, white_id: str, black_id: str) -> None:
        bots = self.services.bots
        white, black = bots.get(white_id), bots.get(black_id)
        if white is None or black is None or not (white.registered and black.registered):
            return
        game = await self.services.bot_games.start(
            white=white, black=black, time_control=LADDER_CONTROL, rated=True, origin=LADDER_ORIGIN
        )
        room = game.room
        self.games.add(room.game_id)
        try:
            await room.finished.wait()
        finally:
            self.games.discard(room.game_id)
        self.played += 1
