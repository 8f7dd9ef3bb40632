"""House bots at work: their accounts, their seats in games, their challenges.

- **Accounts**: `house/random` and `house/greedy` are registered bots (stored like any other,
  so they are rated and listed), open to humans, with a capacity of HOUSE_CAPACITY games.
- **Seats**: a registry creation hook seats a player task in every game with a house bot
  (and in the ones resumed at boot). It attaches to the room as its seat's subscriber, and
  whenever the room's published state says it is this seat's turn with dice pending, it
  submits a whole turn (`PlayerCommand(SubmitTurn)`), exactly as a bot's HTTP move would.
  A draw offered to it is declined. The task ends with the game.
- **Challenges**: a task per house bot reads its account events, as a bot's event stream
  would, and accepts each `ChallengeReceived` at once; at capacity it declines, so nobody
  waits five minutes for an answer that cannot come.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable
from typing import Protocol

import trio

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.house.strategy import STRATEGIES
from playsite.lobby.service import Lobby
from playsite.refusals import Refused
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Attach, Detach, PlayerCommand
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.rules import parse_dfen
from playsite.wire import AnswerDraw, Command, Seat, SubmitTurn

log = logging.getLogger("playsite.house")

HOUSE_CAPACITY = 8
HOUSE_BOTS = {
    "random": "Plays a uniformly random legal turn. The gentlest opponent there is.",
    "greedy": "Looks one turn ahead and grabs the most material; takes the king whenever it can.",
}
ANSWER_TIMEOUT_S = 10


class ChallengeEvents(Protocol):
    """What the house bots read of their accounts' event streams (the bot events)."""

    def open(self, bot_id: str) -> QueueSubscriber: ...

    def close(self, bot_id: str, subscriber: QueueSubscriber) -> None: ...


class HouseBots:
    def __init__(
        self, bots: BotDirectory, registry: Registry, lobby: Lobby, events: ChallengeEvents, *, seed: int | None = None
    ) -> None:
        self.bots = bots
        self.registry = registry
        self.lobby = lobby
        self.events = events
        self.rng = random.Random(seed)
        self.accounts: dict[str, BotAccount] = {}
        self.think: Callable[[str | None], float] | None = None
        """None, or game id -> seconds to wait before each turn in that game (`playsite demo`
        paces the games its league plays; every other game is answered at once)."""

    async def run(self, *, task_status: trio.TaskStatus[HouseBots] = trio.TASK_STATUS_IGNORED) -> None:
        """Create (or find) the house accounts, seat them in resumed games, then answer
        challenges until cancelled."""
        for name, description in HOUSE_BOTS.items():
            account = await self.bots.ensure_house(name, capacity=HOUSE_CAPACITY, description=description)
            self.accounts[account.principal] = account
        self.registry.creation_hooks.append(self.seat)
        for room in list(self.registry.live.values()):
            self.seat(room)
        async with trio.open_nursery() as nursery:
            for account in self.accounts.values():
                # Opened here, not in the task: a challenge made once `run` has started must
                # find the stream open (an event is offered only to the streams open then).
                nursery.start_soon(self._answer_challenges, account, self.events.open(account.id))
            task_status.started(self)

    # ----- seats ----------------------------------------------------------------------------

    def seat(self, room: Room) -> None:
        """Creation hook: a player task for every house seat of `room`."""
        for seat, principal in room.principals.items():
            account = self.accounts.get(principal or "")
            if account is not None and not room.ended:
                room.spawn(self._play, room, seat, account.name)

    async def _play(self, room: Room, seat: Seat, strategy_name: str) -> None:
        choose = STRATEGIES[strategy_name]
        subscriber = QueueSubscriber(seat)
        attach = Attach(subscriber)
        if not await room.send(attach) or not await attach.reply.wait():
            return
        acted_at = -1
        try:
            async for _ in subscriber.events:
                if room.ended:
                    return
                view = room.published
                state = view.state
                if view.turn.awaits_draw_answer_from(seat) and view.version > acted_at:
                    acted_at = view.version
                    await self._command(room, seat, AnswerDraw(accept=False))
                elif view.turn.awaits_turn_from(seat) and view.version > acted_at and view.packed is not None:
                    acted_at = view.version
                    if self.think is not None and (delay := self.think(room.game_id)):
                        await trio.sleep(delay)
                        if room.ended or room.published.version != view.version:
                            continue
                    position = parse_dfen(state.dfen)
                    moves = choose(position, view.packed.tree(position), self.rng)
                    await self._command(room, seat, SubmitTurn(moves))
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(ANSWER_TIMEOUT_S):
                await room.send(Detach(subscriber))

    async def _command(self, room: Room, seat: Seat, command: Command) -> None:
        intent = PlayerCommand(seat, command)
        if not await room.send(intent):
            return
        with trio.move_on_after(ANSWER_TIMEOUT_S):
            verdict = await intent.reply.wait()
            if not verdict.applied:
                log.warning("house bot move refused in game %s: %s", room.game_id, verdict.reason)

    # ----- challenges -------------------------------------------------------------------------

    async def _answer_challenges(self, account: BotAccount, stream: QueueSubscriber) -> None:
        try:
            async for text in stream.events:
                event = json.loads(text)
                received = event.get("ChallengeReceived")
                if received is not None:
                    await self._accept(account, received["id"])
        finally:
            self.events.close(account.id, stream)

    async def _accept(self, account: BotAccount, challenge_id: str) -> None:
        try:
            await self.lobby.accept_challenge(account, challenge_id)
        except Refused as refusal:
            if refusal.code == "capacity":
                try:
                    self.lobby.challenges.decline(account, challenge_id)
                except Refused:
                    pass
            else:
                log.info("house bot %s could not accept %s: %s", account.id, challenge_id, refusal.code)
        except Exception as error:  # a failed creation (a store outage): decline, keep serving
            log.warning("house bot %s: challenge %s failed: %s", account.id, challenge_id, type(error).__name__)
            try:
                self.lobby.challenges.decline(account, challenge_id)
            except Refused:
                pass
