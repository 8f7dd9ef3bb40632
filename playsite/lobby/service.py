"""The lobby: pending challenges, open seeks and catalog play, and the games they start.

Process-local, like admission (service.md rule 11). Every game starts through
`create_game_with_bots`, so it passes admission with purpose `general`; a refusal at
capacity leaves the offer (challenge or seek) exactly as it was.
"""

from __future__ import annotations

import secrets

import trio

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.bots.games import BotGame, BotGames, Human, Participant
from playsite.lobby.catalog import CATALOG_ORIGIN, has_unfinished_lobby_game, in_catalog
from playsite.lobby.challenges import Challenge, ChallengeBook
from playsite.lobby.people_seeks import PeopleSeekBoard
from playsite.lobby.seeks import SeekBoard
from playsite.periodic import run_every
from playsite.principals import Kind, id_of, kind_of
from playsite.refusals import Refused
from playsite.rooms.admission import AdmissionRefused
from playsite.rooms.registry import CreationFailed
from playsite.rooms.room import Room
from playsite.wire import SEATS, WHITE, TimeControl, Unlimited

SWEEP_INTERVAL_S = 1.0
"""How promptly a lapsed challenge is announced to its challenger."""

CHALLENGE_ORIGIN, SEEK_ORIGIN = "challenge", "seek"


class Lobby:
    def __init__(self, games: BotGames, bots: BotDirectory):
        self.games = games
        self.bots = bots
        self.events = games.events
        self.challenges = ChallengeBook(games.events)
        self.seeks = SeekBoard()
        self.people_seeks = PeopleSeekBoard()
        """People's open seeks (lobby/people_seeks.py); their games start through `start_game`."""
        self._seating_guests: set[str] = set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Housekeeping: announce lapsed challenges and drop abandoned seeks, every second."""
        await run_every(SWEEP_INTERVAL_S, self.sweep, name="lobby housekeeping", first_after_period=True, task_status=task_status)

    def seated(self, room: Room) -> None:
        """A creation hook: a person seated in a new game has their open seeks withdrawn, so
        nobody starts a second game with them while they play this one (in another tab)."""
        for seat in SEATS:
            principal = room.setup.seat(seat).principal
            if principal is not None and kind_of(principal) in (Kind.GUEST, Kind.USER):
                self.people_seeks.withdraw_all_of(principal)

    async def sweep(self) -> None:
        self.challenges.expire()
        self.seeks.expire()
        self.people_seeks.expire()

    # ----- challenges ---------------------------------------------------------------------

    async def accept_challenge(self, target: BotAccount, challenge_id: str) -> BotGame:
        challenge = self.challenges.claim(target, challenge_id)
        if self.bots.get(challenge.challenger.id) is not challenge.challenger:
            self.challenges.drop(challenge, "cancelled")
            raise Refused("challenge_not_found", "the challenger no longer exists")
        return await self._start_or_release(challenge)

    async def _start_or_release(self, challenge: Challenge) -> BotGame:
        try:
            game = await self.start_game(
                white=challenge.challenger,
                black=challenge.target,
                time_control=challenge.time_control,
                origin=CHALLENGE_ORIGIN,
            )
        except BaseException:
            self.challenges.release(challenge)
            raise
        self.challenges.settle(challenge)
        return game

    # ----- seeks ----------------------------------------------------------------------------

    async def accept_seek(self, seek_id: str, accepter: Participant) -> tuple[BotGame, str]:
        """Start the seek's game with a random colour; returns it and the accepter's seat."""
        seek = self.seeks.claim(seek_id, accepter.principal)
        try:
            if self.bots.get(seek.creator.id) is not seek.creator:
                raise Refused("seek_not_found", "the seek's creator no longer exists")
            accepter_seat = secrets.choice(SEATS)
            white, black = (accepter, seek.creator) if accepter_seat == WHITE else (seek.creator, accepter)
            game = await self.start_game(white=white, black=black, time_control=seek.time_control, origin=SEEK_ORIGIN)
        except BaseException:
            self.seeks.release(seek)
            raise
        self.seeks.matched(seek, game.room.game_id)
        return game, accepter_seat

    # ----- catalog --------------------------------------------------------------------------

    async def play_catalog_bot(
        self, guest: Human, bot_id: str, time_control: TimeControl, preferred: str | None, *, rated: bool = False
    ) -> tuple[BotGame, str]:
        """A guest (or an account: `rated` only then) against an open-to-humans bot; returns the
        game and the guest's seat."""
        if isinstance(time_control, Unlimited):
            raise Refused("invalid_request", "a catalog game needs a clock: Unlimited is not offered")
        registry = self.games.registry
        if guest.principal in self._seating_guests or has_unfinished_lobby_game(registry, guest.principal):
            raise Refused("guest_busy", "finish your current catalog game before starting another")
        bot = self.bots.get(bot_id)
        if bot is None or not in_catalog(bot):
            raise Refused("not_in_catalog", f"no bot {bot_id!r} in the catalog")
        seat = preferred or secrets.choice(SEATS)
        white, black = (guest, bot) if seat == WHITE else (bot, guest)
        self._seating_guests.add(guest.principal)
        try:
            game = await self.start_game(
                white=white, black=black, time_control=time_control, origin=CATALOG_ORIGIN, rated=rated
            )
        finally:
            self._seating_guests.discard(guest.principal)
        return game, seat

    # ----- the one way games start here -----------------------------------------------------

    async def start_game(
        self, *, white: Participant, black: Participant, time_control: TimeControl, origin: str, rated: bool = False
    ) -> BotGame:
        """Admit and start a game (unrated unless said); refused `capacity` (a player at its
        concurrent-game limit) or `temporarily_unavailable` (the game could not be stored)."""
        try:
            return await self.games.start(white=white, black=black, time_control=time_control, rated=rated, origin=origin)
        except AdmissionRefused as refused:
            who = id_of(refused.participant, Kind.BOT) or refused.participant
            raise Refused(
                "capacity", f"{who} is at its concurrent-game limit; the offer stands, retry after a game ends"
            ) from None
        except CreationFailed:
            raise Refused("temporarily_unavailable", "the game could not be stored; try again") from None
