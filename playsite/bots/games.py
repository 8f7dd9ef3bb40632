"""Creating games that involve bots (challenges, seeks, catalog play, ladder).

Every path goes through admission with purpose `general`. Bot seats play over the API
(no connection needed, no disconnect grace); a human seat gets a seat token like a friend
game. The game begins at once, so a person's seat must be taken within the disconnect grace
of the creation (the claim grace), or that person counts as gone: a seek's creator whose
page died before the seek was taken loses, or the game is aborted, 30 s later, never after a
whole clock. Both bots hear `GameStart` on their account streams.
"""

from __future__ import annotations

import uuid

import attrs

from playsite.bots.directory import BotAccount
from playsite.bots.events import BotEvents
from playsite.games.creation import human_seat
from playsite.rooms.admission import Purpose
from playsite.rooms.model import DISCONNECT_GRACE_S, RoomSetup, SeatSetup
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.tokens import new_token
from playsite.wire import BLACK, WHITE, TimeControl


@attrs.frozen
class Human:
    """A person taking a seat: `principal` is 'guest:<uuid>' or 'user:<uuid>'."""

    principal: str


Participant = BotAccount | Human


@attrs.frozen
class BotGame:
    room: Room
    human_tokens: dict[str, str]
    """Seat -> token, for human seats only (shown once to that person)."""


async def create_game_with_bots(
    registry: Registry,
    events: BotEvents,
    *,
    white: Participant,
    black: Participant,
    time_control: TimeControl,
    rated: bool,
    origin: str,
    seed_window_s: float,
    durability: str,
) -> BotGame:
    """Admit and start a game; raises AdmissionRefused when a bot is at capacity."""
    seats: dict[str, SeatSetup] = {}
    human_tokens: dict[str, str] = {}
    for seat, who in ((WHITE, white), (BLACK, black)):
        if isinstance(who, BotAccount):
            # A bot plays through its bearer token, never a seat token: this one is never shown.
            seats[seat] = SeatSetup(token_hash=new_token()[1], face=who.face, principal=who.principal, always_present=True)
        else:
            human_tokens[seat], seats[seat] = human_seat(who.principal)
    bots = [who for who in (white, black) if isinstance(who, BotAccount)]
    setup = RoomSetup(
        game_id=str(uuid.uuid4()),
        time_control=time_control,
        white=seats[WHITE],
        black=seats[BLACK],
        rated=rated,
        origin=origin,
        await_joins=False,
        claim_grace_s=DISCONNECT_GRACE_S if human_tokens else None,
        seed_window_s=seed_window_s,
        durability=durability,
        purpose=Purpose.GENERAL.value,
        participants=tuple(bot.principal for bot in bots),
    )
    room = await registry.create(setup, Purpose.GENERAL, setup.participants)
    for bot in bots:
        events.publish(bot.id, {"GameStart": {"gameId": room.game_id}})
    return BotGame(room=room, human_tokens=human_tokens)


@attrs.frozen
class BotGames:
    """How every lobby and ladder game starts: the registry, the account streams that hear
    `GameStart`, and the room settings of this deployment."""

    registry: Registry
    events: BotEvents
    seed_window_s: float
    durability: str

    async def start(
        self, *, white: Participant, black: Participant, time_control: TimeControl, rated: bool, origin: str
    ) -> BotGame:
        return await create_game_with_bots(
            self.registry,
            self.events,
            white=white,
            black=black,
            time_control=time_control,
            rated=rated,
            origin=origin,
            seed_window_s=self.seed_window_s,
            durability=self.durability,
        )
