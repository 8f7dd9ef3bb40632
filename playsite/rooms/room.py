"""One live game: a single task owns its game and applies intents one at a time.

Nothing else mutates a room. Requests put an intent on the room's bounded channel and,
when they need an answer, wait on the intent's reply slot. Timers (clock flag, seed
window, join window, disconnect grace) are one trio deadline: the room waits for the next
intent until the earliest of them, so MockClock runs whole games in milliseconds.

The room is the async shell around its `Game` (`rooms/game.py`, synchronous: every
transition takes `now`): it runs the task, computes each roll's tree, writes each version
(persist), then broadcasts its events to the subscribers (fan-out), then answers the
requesters. Outside rooms/, a room is read through its published view (`published`,
`seats_of`, `principals`, `turn`), changed through intents (`send`), and hosts tasks that
must end with the game (`spawn`).

The room knows seats, principals and the Subscriber protocol; never a socket or request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any, TypeVarTuple, Unpack

import trio

from playsite.channels import put
from playsite.dice import Fairness
from playsite.rooms.counters import RoomCounters
from playsite.rooms.durable import dump_history_turn, dump_setup, dump_state, load_state
from playsite.rooms.fanout import Fanout, Subscriber
from playsite.rooms.game import Game
from playsite.rooms.intents import Abort, Attach, Detach, Intent, PlayerCommand, Rebind, Reply, Verdict
from playsite.rooms.model import (
    REQUIRED,
    TECHNICAL_ABORT_REASON,
    Ending,
    RoomPhase,
    RoomSetup,
    RoomState,
    WallClock,
    utc_now,
)
from playsite.rooms.persistence import DurabilityPolicy, RoomStore, attempt_write, read_back_durably, telemetry
from playsite.rooms.trees import Trees
from playsite.rooms.view import PublicView, Turn
from playsite.rooms.watchers import Watchers
from playsite.rooms.writes import game_ending, game_write
from playsite.rules import Termination
from playsite.store.base import GameWrite
from playsite.wire import HistoryTurn, PublicGameState, Seat
from playsite.wire.instant import decode_instant, encode_instant
from playsite.wire.text import compact_json

INTENT_QUEUE = 64

StoredSnapshot = dict[str, Any]
"""A durable snapshot (`durable.dump_state`): JSON, as the store keeps it."""
CreationCommit = Callable[[GameWrite], Awaitable[RoomSetup | None]]
"""The caller's own creation transaction; it may settle part of the setup as it commits (a
rematch successor's first-join deadline, stamped inside its transaction) and then returns the
setup as committed, which the room adopts before it starts."""
"""A creation's own transaction: writes the game's first version and commits, or raises."""
Args = TypeVarTuple("Args")


class Room:
    def __init__(
        self,
        setup: RoomSetup,
        fairness: Fairness,
        store: RoomStore | None = None,
        *,
        policy: DurabilityPolicy | None = None,
        wall_clock: WallClock = utc_now,
        counters: RoomCounters | None = None,
        trees: Trees | None = None,
    ) -> None:
        self.counters = counters if counters is not None else RoomCounters()
        """What this room adds to its registry's counts (metrics)."""
        self.game = Game(setup, fairness, wall_clock=wall_clock, counters=self.counters)
        """The game's working state and transitions (ahead of `published` while a version is written)."""
        self.setup = self.game.setup
        self.game_id = self.setup.game_id
        self.trees = trees if trees is not None else Trees()
        """Where the tree of each roll is computed (the registry hands every room the same pool)."""
        self.store = store
        """Where versions are written (None: nowhere, e.g. unit tests of the turn flow)."""
        self.policy = policy if policy is not None else DurabilityPolicy.for_store(store)
        """How hard a write is tried (the registry hands every room the same one)."""
        self.fanout = Fanout(self.counters.fanout)
        self.watchers = Watchers(self.fanout, self.spawn)
        """How many watch, told to the clients that asked for Presence."""
        self._commands_taken: list[float] = []
        """When each player command of the version being written was taken off the queue."""
        self.seated: dict[Subscriber, Seat] = {}
        self._intents_in, self._intents = trio.open_memory_channel[Intent](INTENT_QUEUE)
        self.finished = trio.Event()
        self.resumed = False
        self.restarted = False
        """Resumed after a server restart (not merely hosted late)."""
        self._nursery: trio.Nursery | None = None
        """The room's own nursery while its task runs: tasks `spawn`ed there end with the game."""
        self.persistence_stalled = False
        """True while a required-durability write has been failing past the stall grace."""
        self._pending_replies: list[tuple[Reply[Any], object]] = []
        self._presence_due: list[Seat] = []
        """Seats to tell as Presence once the version being written is published: a seat given a
        name, and both seats when the game begins (a page waiting for its opponent learns so)."""
        self._first_move_told: float | None = None
        """The first-move deadline the pages that asked for Presence were last told of."""
        self._setup_record: dict[str, Any] | None = None
        self._history_records: list[dict[str, Any]] = []
        """`durable.dump_history_turn` of each turn of the history so far (see `_dump`)."""
        self._last_recorded: HistoryTurn | None = None
        """The turn the last of `_history_records` was made from."""
        self._durable: StoredSnapshot | None = None
        """The last committed durable state: what an exhausted write rolls back to."""
        self._attempted: StoredSnapshot | None = None
        """The durable state of the write last attempted (adopted if it turns out to stand)."""
        self.completed = False
        """The ending is committed (terminal transaction done): completion may proceed."""
        self._publish_view()

    @classmethod
    def resume(
        cls,
        data: StoredSnapshot,
        store: RoomStore | None,
        *,
        policy: DurabilityPolicy | None = None,
        wall_clock: WallClock = utc_now,
        restarted: bool = True,
        counters: RoomCounters | None = None,
        trees: Trees | None = None,
    ) -> Room:
        """Rebuild a room from its last committed version, clocks restarted from now.

        `restarted=False`: the server did not restart; the room is hosted late in the same
        process (a successor whose registration failed), so its startup gate runs on."""
        state = load_state(data)
        room = cls(
            state.setup, state.fairness, store, policy=policy, wall_clock=wall_clock, counters=counters, trees=trees
        )
        room._restore(state, trio.current_time())
        room._durable = data
        room.resumed = True
        room.restarted = restarted
        return room

    @classmethod
    def ended_view(cls, data: StoredSnapshot) -> PublicView:
        """The public view of an ended game from its final durable snapshot (no task runs)."""
        return cls.resume(data, None).published

    async def write_creation(self, commit: CreationCommit | None = None) -> str | None:
        """Write the creation snapshot once; None when it committed, else why it did not.

        A best-effort room starts anyway, from this snapshot as its last durable state.
        `commit(write)`, when given, is the caller's own creation transaction: it runs once,
        and what it raises propagates (nothing is started from an unknown outcome)."""
        state = self.state()
        data = self._attempted = self._dump(state)
        if commit is not None:
            committed = await commit(game_write(state, data))
            if committed is not None and committed != self.setup:
                self.game.setup = self.setup = committed
                self._setup_record = None
                data = self._attempted = self._dump(self.state())  # what the commit wrote
                self._publish_view()  # the public reads the committed setup (a rematch's join deadline)
            self._durable = data
            return None
        store = self.store
        assert store is not None, "a room without a store writes nothing"
        error = await attempt_write(lambda: store.save_game(game_write(state, data)), self.policy.timeout_s)
        if error is None or not self.required:
            self._durable = data
        return error

    async def creation_stands(self) -> bool:
        """After a creation write whose COMMIT answer was lost: read back until the store knows
        (see `_stands`); True when the creation snapshot is stored (it is then durable)."""
        store = self.store
        assert store is not None, "only a write to a store can be in doubt"
        stored = await read_back_durably(
            lambda: store.read_back(self.game_id),
            game_id=self.game_id,
            version=self.version,
            timeout_s=self.policy.timeout_s,
            on_stall=lambda: None,  # nobody is connected to a room not started
        )
        found = "nothing" if stored is None else f"{stored[0]} at version {stored[1]}"
        stands = stored == ("active", self.version)
        telemetry(self.game_id, self.version, "adopted" if stands else "absent", f"stored={found!r}")
        if stands:
            self._durable = self._attempted
        return stands

    async def end_if_stored(self) -> None:
        """A creation its creator was refused: if it turns out to be stored after all, end it
        now (technical abort, terminal write retried until it commits); it never starts."""
        if await self.creation_stands():
            self.game.end(Ending(Termination.ABORTED, None, technical=True), trio.current_time())
            await self._persist()

    def _dump(self, state: RoomState) -> StoredSnapshot:
        """`dump_state(state)`, from the records of the setup and of past turns made before
        (shared by every snapshot, never changed: a snapshot is handed over for good). The
        last turn can change once after it was recorded (a declined draw offer marks it): its
        record is then made anew, never changed in place."""
        if self._setup_record is None:
            self._setup_record = dump_setup(self.setup)
        records = self._history_records
        if records and state.history[len(records) - 1] is not self._last_recorded:
            records[-1] = dump_history_turn(state.history[len(records) - 1])
        records.extend(dump_history_turn(turn) for turn in state.history[len(records):])
        self._last_recorded = state.history[-1] if state.history else None
        return dump_state(state, setup=self._setup_record, history=list(records))

    def state(self) -> RoomState:
        """Everything durable about the room now (what `durable` and `writes` work from)."""
        return self.game.state()

    def _restore(self, state: RoomState, now: float) -> None:
        """Put the room back into `state`; a clock that was running restarts at `now`."""
        self.game.restore(state, now)
        self._history_records = []
        self._last_recorded = None
        self._publish_view()

    @property
    def required(self) -> bool:
        return self.setup.durability == REQUIRED

    # ----- the public surface -------------------------------------------------------------

    async def send(self, intent: Intent) -> bool:
        """Queue an intent (waiting if the room's queue is full); False once the room has
        finished. With room in the queue there is no schedule point: a sender mostly waits
        for its verdict next, and trio's `send` would first yield to the loop for nothing (a
        trip round it per command: playsite/channels.py). A cancelled sender is cancelled
        before it queues anything."""
        try:
            await put(self._intents_in, intent)
            return True
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False

    def send_nowait(self, intent: Intent) -> bool:
        """Queue an intent at once, from any task: False once the room has finished; raises
        trio.WouldBlock when the queue is full (the caller then waits through `send`)."""
        try:
            self._intents_in.send_nowait(intent)
            return True
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False

    def spawn(self, run: Callable[[Unpack[Args]], Awaitable[object]], *args: Unpack[Args]) -> bool:
        """Run `run(*args)` in the room's lifetime: it is cancelled when the game's task ends.
        False (and nothing runs) when the room's task is not running."""
        if self._nursery is None:
            return False
        self._nursery.start_soon(run, *args)
        return True

    @property
    def ended(self) -> bool:
        return self.game.ended

    @property
    def ending(self) -> Ending | None:
        return self.game.ending

    @property
    def ended_as_published(self) -> bool:
        """Whether the last committed version is the game's end, as every read of the game
        says it (`ended` is the working state's, ahead while that end is being written)."""
        return self.published.turn.phase is RoomPhase.ENDED

    @property
    def version(self) -> int:
        """The version of the working state (the published one is `published.version`)."""
        return self.game.version

    def queued_intents(self) -> int:
        """Intents waiting for the room's task (metrics)."""
        return self._intents_in.statistics().current_buffer_used

    @property
    def principals(self) -> Mapping[Seat, str | None]:
        """Who sits where, as last committed."""
        return self.published.principals

    def seats_of(self, principal: str) -> tuple[Seat, ...]:
        """The seats `principal` holds, as last committed (both, in a game against itself)."""
        return self.published.seats_of(principal)

    @property
    def turn(self) -> Turn:
        """Whose turn it is and what the room waits for, as last committed."""
        return self.published.turn

    @property
    def awaiting_joins(self) -> bool:
        """A friend game whose seats are not both taken yet, as last committed: nobody plays,
        so nobody is counted away."""
        return self.published.turn.phase is RoomPhase.AWAITING_JOINS

    def public_state(self) -> PublicGameState:
        """The public state of the last committed version, its clocks as they stand now."""
        return self.published.state_at(trio.current_time())

    def state_text(self) -> str:
        return self.published.state_text(trio.current_time())

    def snapshot_text(self, *, spectator: bool = False) -> str:
        return self.published.snapshot_text(trio.current_time(), spectator=spectator)

    def _publish_view(self) -> None:
        """The working state is committed: from now on, it is what the public reads."""
        self.published = self.game.view(trio.current_time())

    # ----- the task -----------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Apply intents until the game ends and its terminal write commits. The room's own
        nursery lives as long: tasks `spawn`ed there end with the game."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            try:
                await self._play(task_status)
            finally:
                self._nursery = None
                nursery.cancel_scope.cancel()

    async def _play(self, task_status: trio.TaskStatus[None]) -> None:
        now = trio.current_time()
        if self.resumed:
            self.game.resume(now, restarted=self.restarted)
        else:
            self.game.start(now)
        task_status.started()
        try:
            await self._commit(publish=True)  # starting (or resuming) may change what the public sees
            while not self.ended:
                intent = None
                with trio.move_on_at(self.game.next_deadline()):
                    intent = await self._intents.receive()
                if intent is not None:
                    self._apply(intent)
                else:
                    self.game.on_deadline(trio.current_time())
                await self._commit()
        finally:
            self._refuse_queued()
            self._intents.close()
            self.fanout.close_all()
            # A finished room is kept a while (the registry's last FINISHED_ROOMS_KEPT) for late
            # readers; its sockets' queues are of no use to them, and no Detach will come.
            self.seated.clear()
            self.finished.set()

    # ----- publish after commit -----------------------------------------------------------

    def _later(self, reply: Reply[Any], value: object) -> None:
        """Answer once what the intent changed is committed (verdicts follow the broadcast)."""
        self._pending_replies.append((reply, value))

    async def _commit(self, *, publish: bool = False) -> None:
        """Finish a roll, persist the new state, then broadcast its events, then answer the
        requesters. The view is published anew for a new version (or when `publish` says so)."""
        await self._settle_roll()
        changed = self.game.changed
        if changed:
            if not await self._persist() and not await self._stands():
                self._roll_back_and_abort()
                await self._persist()  # terminal: retried until it commits
        events = self.game.take_events()
        replies, self._pending_replies = self._pending_replies, []
        if changed or events or publish:
            # A version nobody changed (a socket come or gone) keeps its view, and with it the
            # Snapshot already encoded for the next socket (its clocks are read as it is sent).
            self._publish_view()
        self.completed = self.ended
        now = trio.current_time()
        for lagging in self.fanout.broadcast(events):
            self._seat_left(lagging, now)
        for reply, value in replies:
            reply.set(value)
        due, self._presence_due = self._presence_due, []
        for seat in dict.fromkeys(due):
            self._tell_presence(seat, now)
        self._tell_first_move(now)
        taken, self._commands_taken = self._commands_taken, []
        for started in taken:
            self.counters.verdict_s.observe(now - started)

    async def _settle_roll(self) -> None:
        """Roll the dice due and compute their tree (maybe in a worker process); a roll
        without legal moves passes at once, for free, and the other seat rolls."""
        while self.game.roll_due is not None:
            position = self.game.roll_dice()
            self.game.settle_roll(await self.trees.compute(position))

    async def _persist(self) -> bool:
        store = self.store
        if store is None:
            return True
        state = self.state()
        data = self._dump(state)
        self._attempted = data
        write = game_write(state, data)
        if self.ended:
            ending = game_ending(state)

            async def write_once() -> None:
                await store.finish_game(write, ending)
        else:
            async def write_once() -> None:
                await store.save_game(write)

        async def attempt() -> None:
            started = trio.current_time()
            try:
                await write_once()
            except BaseException:
                self.counters.write_failures += 1
                raise
            finally:
                self.counters.write_s.observe(trio.current_time() - started)
        started = trio.current_time()
        committed = await self.policy.write(
            attempt,
            required=self.required,
            terminal=self.ended,
            game_id=self.game_id,
            version=self.version,
            on_stall=self._stalled,
        )
        self.game.credit(trio.current_time() - started)
        if committed:
            self._committed(data)
        return committed

    def _committed(self, data: StoredSnapshot | None) -> None:
        self._durable = data
        if self.persistence_stalled:
            self.persistence_stalled = False
            self.game.restart_graces(trio.current_time())

    async def _stands(self) -> bool:
        """An intermediate write was given up. If an attempt's COMMIT was sent and its answer
        lost, the write may stand: nothing is decided (no verdict, no broadcast, no abort) until
        the store has been read back, once no transaction of this game is in flight. True when
        this version is what the store holds: it is then committed, and played as such."""
        store = self.store
        if store is None or not store.in_doubt(self.game_id):
            return False
        started = trio.current_time()
        telemetry(self.game_id, self.version, "in_doubt", "reading back before deciding")
        stored = await read_back_durably(
            lambda: store.read_back(self.game_id),
            game_id=self.game_id,
            version=self.version,
            timeout_s=self.policy.timeout_s,
            on_stall=self._stalled,
        )
        self.game.credit(trio.current_time() - started)
        stands = stored == ("active", self.version)
        found = "nothing" if stored is None else f"{stored[0]} at version {stored[1]}"
        telemetry(self.game_id, self.version, "adopted" if stands else "absent", f"stored={found!r}")
        if stands:
            self._committed(self._attempted)
        return stands

    def _stalled(self) -> None:
        """The write has failed past the stall grace: drop the sockets (they reconnect to the
        durable state). The stall is the server's fault, so no disconnect grace runs for any
        seat while the room is halted; every absent seat gets a whole grace once it recovers."""
        self.persistence_stalled = True
        self.fanout.close_all()
        for subscriber in list(self.seated):
            self._seat_left(subscriber, trio.current_time())
        self.game.halt_graces()

    def _roll_back_and_abort(self) -> None:
        """An exhausted intermediate write: discard it, end as aborted from the last durable version."""
        assert self._durable is not None, "a required room is created durably"
        durable_version = self._durable["version"]
        for reply, value in self._pending_replies:
            reply.set(Verdict(False, durable_version, TECHNICAL_ABORT_REASON) if isinstance(value, Verdict) else value)
        self._pending_replies = []
        self.game.discard_events()
        self._restore(load_state(self._durable), trio.current_time())
        self.game.end(Ending(Termination.ABORTED, None, technical=True), trio.current_time())

    def _refuse_queued(self) -> None:
        while True:
            try:
                intent = self._intents.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            self._answer_finished(intent)

    def _answer_finished(self, intent: Intent) -> None:
        if isinstance(intent, PlayerCommand):
            intent.reply.set(Verdict(False, self.version, "game is over"))
        elif isinstance(intent, (Attach, Rebind, Abort)):
            intent.reply.set(False)

    # ----- intents ------------------------------------------------------------------------

    def _apply(self, intent: Intent) -> None:
        now = trio.current_time()
        if self.game.join_window_closed(now) and not isinstance(intent, Detach):
            # The join window closed at the same instant this intent arrived: the deadline
            # comes first, so a first join at or after it is late.
            self.game.on_deadline(now)
            if self.ended:
                self._answer_finished(intent)
                return
        match intent:
            case Attach(subscriber=subscriber):
                intent.reply.set(self._attach(subscriber, now))
            case Detach(subscriber=subscriber):
                self._detach(subscriber, now)
            case Rebind(seat=seat, principal=principal, name=name, claim=claim):
                named = self.game.names.get(seat)
                self._later(intent.reply, self.game.rebind(seat, principal, name, claim=claim))
                if self.game.names.get(seat) != named:
                    # A name to show (a player who sat down after the start): once it is
                    # published, the pages that asked for Presence hear of the seat and read it.
                    self._presence_due.append(seat)
            case PlayerCommand(seat=seat, command=command):
                self._commands_taken.append(now)
                self._later(intent.reply, self.game.command(seat, command, now))
            case Abort(reason=_):
                self.game.abort(now)
                self._later(intent.reply, True)
            case _:
                raise TypeError(f"unknown intent {intent!r}")

    def _attach(self, subscriber: Subscriber, now: float) -> bool:
        if not subscriber.offer(self.snapshot_text(spectator=not subscriber.trees)):
            return False
        self.fanout.add(subscriber)
        if subscriber.seat is not None:
            self.seated[subscriber] = subscriber.seat
            away = self._away(subscriber.seat)
            waiting = self.game.phase is RoomPhase.AWAITING_JOINS
            self.game.seat_joined(subscriber.seat, now)
            if waiting and self.game.phase is not RoomPhase.AWAITING_JOINS and not self.game.ended:
                self._presence_due.extend(self.game.seats)  # the game begins: both are here
            if away:
                self._tell_presence(subscriber.seat, now)
        if subscriber.presence:
            for seat in self.game.seats:
                if self._away(seat):
                    subscriber.offer(self._presence_text(seat, now))
            if (first_move := self._first_move_text(now)) is not None:
                subscriber.offer(first_move)
        self.watchers.attached(subscriber)
        return True

    # ----- presence: who is away, for the clients that asked ----------------------------------

    def _away(self, seat: Seat) -> bool:
        """The seat's player has no connection while the game is played (a bot never is away)."""
        state = self.game.seats[seat]
        return state.connections == 0 and state.grace_until is not None and not self.game.ended

    def _presence_text(self, seat: Seat, now: float) -> str:
        """`{"Presence": {seat, away, forfeitAt?, arrived?, reconnectingUntil?}}`: a playsite
        frame, sent only to subscribers that asked for it; `forfeitAt` is when the seat loses
        unless it comes back, `arrived: false` says its player was never here (a seat not taken
        yet), `reconnectingUntil` that the server restarted and until then the player, who was
        here, is on the way back rather than gone."""
        body: dict[str, object] = {"seat": str(seat), "away": self._away(seat)}
        state = self.game.seats[seat]
        if body["away"] and state.grace_until is not None:
            body["forfeitAt"] = self._instant_of(state.grace_until, now)
            if not state.joined:
                body["arrived"] = False
            if (reconnect_until := self.game.reconnecting_until(seat, now)) is not None:
                body["reconnectingUntil"] = self._instant_of(reconnect_until, now)
        return compact_json({"Presence": body})

    def _tell_presence(self, seat: Seat, now: float) -> None:
        text = None
        for subscriber in self.fanout.subscribers:
            if subscriber.presence and subscriber.seat != seat:
                text = text or self._presence_text(seat, now)
                subscriber.offer(text)

    def _first_move_text(self, now: float) -> str | None:
        """`{"FirstMove": {seat, abortAt}}`: a playsite frame, sent only to subscribers that
        asked for Presence, while the seat to move has not played a turn yet and the game is
        aborted at `abortAt` unless it does (`RoomSetup.first_move_s`)."""
        deadline = self.game.first_move_deadline()
        if deadline is None or self.game.ended:
            return None
        return compact_json({"FirstMove": {"seat": str(self.game.active_seat), "abortAt": self._instant_of(deadline, now)}})

    def _instant_of(self, deadline: float, now: float) -> str:
        """A deadline on trio's clock as the wall-clock instant the wire writes (never in the past)."""
        return encode_instant(decode_instant(self.game.wall_clock()) + timedelta(seconds=max(0.0, deadline - now)))

    def _tell_first_move(self, now: float) -> None:
        """A first-move deadline began (a person's first roll): tell the pages that asked."""
        deadline = self.game.first_move_deadline()
        if deadline == self._first_move_told:
            return
        self._first_move_told = deadline
        text = self._first_move_text(now)
        if text is None:
            return
        for subscriber in self.fanout.subscribers:
            if subscriber.presence:
                subscriber.offer(text)

    def _detach(self, subscriber: Subscriber, now: float) -> None:
        self.fanout.remove(subscriber)
        self.watchers.detached(subscriber)
        self._seat_left(subscriber, now)

    def _seat_left(self, subscriber: Subscriber, now: float) -> None:
        seat = self.seated.pop(subscriber, None)
        if seat is not None:
            self.game.seat_left(seat, now)
            if self._away(seat):
                self._tell_presence(seat, now)
