"""One live game: a single task owns its state and applies intents one at a time.

Nothing else mutates a room. Requests put an intent on the room's bounded channel and,
when they need an answer, wait on the intent's reply slot. Timers (clock flag, seed
window, join window, disconnect grace) are one trio deadline: the room waits for the next
intent until the earliest of them, so MockClock runs whole games in milliseconds.

The room knows seats, principals and the Subscriber protocol; never a socket or request.
"""

from __future__ import annotations

import math

import attrs
import trio

from playsite.dice import Fairness, SeedVerdict
from playsite.rooms.clock import GameClock
from playsite.rooms.counters import RoomCounters
from playsite.rooms.durable import dump_history_turn, dump_setup, dump_state, load_state
from playsite.rooms.fanout import Fanout, Subscriber
from playsite.rooms.intents import Abort, Attach, Detach, PlayerCommand, Rebind, Verdict
from playsite.rooms.model import (
    DISCONNECT_GRACE_S,
    REQUIRED,
    TECHNICAL_ABORT_REASON,
    ClockState,
    Ending,
    RoomPhase,
    RoomSetup,
    RoomState,
    SeatSetup,
    WallClock,
    effective_rated,
    seat_to_move,
    seconds_between,
    utc_now,
)
from playsite.rooms.persistence import DurabilityPolicy, attempt_write, read_back_durably, telemetry
from playsite.rooms.writes import game_write, game_ending
from playsite.rooms.trees import PackedTree, Trees, pack
from playsite.rooms.view import PublicView
from playsite.rules import (
    IllegalTurn,
    Position,
    Termination,
    format_dfen,
    play_turn,
)
from playsite.wire import (
    BLACK,
    SEATS,
    WHITE,
    AnswerDraw,
    ClientSeedsView,
    DiceRolled,
    DrawDeclined,
    GameEnded,
    HistoryTurn,
    Players,
    PublicGameState,
    Rejected,
    RematchStartup,
    Resign,
    Seat,
    SubmitSeed,
    SubmitTurn,
    TurnPlayed,
    encode_event,
)
from playsite.wire import Active as ActiveStatus
from playsite.wire import Ended as EndedStatus

INTENT_QUEUE = 64


@attrs.define
class SeatState:
    setup: SeatSetup
    principal: str | None
    connections: int = 0
    joined: bool = False
    grace_until: float | None = None


class Room:
    def __init__(
        self,
        setup: RoomSetup,
        fairness: Fairness,
        store=None,
        *,
        policy: DurabilityPolicy | None = None,
        wall_clock: WallClock = utc_now,
        counters: RoomCounters | None = None,
        trees: Trees | None = None,
    ) -> None:
        self.wall_clock = wall_clock
        self.trees = trees if trees is not None else Trees()
        """Where the tree of each roll is computed (the registry hands every room the same pool)."""
        self.counters = counters if counters is not None else RoomCounters()
        """What this room adds to its registry's counts (metrics)."""
        """Stamps the creation and the ending; injected so tests can control it."""
        if setup.created_at is None:
            setup = attrs.evolve(setup, created_at=wall_clock())
        self.setup = setup
        self.store = store
        """Where versions are written (None: nowhere, e.g. unit tests of the turn flow)."""
        self.policy = policy if policy is not None else DurabilityPolicy.for_store(store)
        """How hard a write is tried (the registry hands every room the same one)."""
        self.game_id = setup.game_id
        self.fairness = fairness
        self.seats = {seat: SeatState(setup.seat(seat), setup.seat(seat).principal) for seat in SEATS}
        self.names: dict[Seat, str] = {}
        """Public names of account seats, learnt when their owner takes the seat. Not durable:
        after a restart a name shows again when its owner reconnects."""
        self.position = setup.start
        self.rolled: tuple[int, ...] = ()
        self.packed: PackedTree | None = None
        """The tree of the pending roll (None when no dice are pending)."""
        self._dfen_of: tuple[Position, str] | None = None
        """The last position formatted, and its DFEN: a turn's events, state and snapshot all
        show the same one."""
        self._roll_due: float | None = None
        """When the active seat was given a roll whose dice and tree are still to be made
        (`_settle_roll`, before the version commits)."""
        self.ply = 0
        self.version = 0
        self.history: list[HistoryTurn] = []
        self.played: set[Seat] = set()
        self.clock = GameClock.for_control(setup.time_control)
        self.phase = RoomPhase.AWAITING_JOINS
        self.activated = False
        """Whether the game began (a successor that never did shows `rematchStartup: aborted`)."""
        self.ending: Ending | None = None
        self.draw_offer_from: Seat | None = None
        self.draw_blocked: set[Seat] = set()
        self.idle_since: float | None = None
        """When the seat to move got its turn (the idle forfeit of Unlimited games counts from it)."""
        self.seed_deadline: float | None = None
        self.join_deadline: float | None = None
        self.fanout = Fanout(self.counters.fanout)
        self._commands_taken: list[float] = []
        """When each player command of the version being written was taken off the queue."""
        self.seated: dict[Subscriber, Seat] = {}
        self._intents_in, self._intents = trio.open_memory_channel(INTENT_QUEUE)
        self.finished = trio.Event()
        self.resumed = False
        self.restarted = False
        """Resumed after a server restart (not merely hosted late)."""
        self.nursery: trio.Nursery | None = None
        """The room's own nursery (set by the registry) for tasks that must end with the game."""
        self.persistence_stalled = False
        """True while a required-durability write has been failing past the stall grace."""
        self._pending_events: list[tuple[str, str]] = []
        """(text for seats, text for spectators) of each event of the version being written."""
        self._pending_replies: list[tuple] = []
        self._dirty = False
        self._refused: Seat | None = None
        """The seat whose refused command the pending version is (a Rejected and nothing else)."""
        self._setup_record: dict | None = None
        self._history_records: list[dict] = []
        """`durable.dump_history_turn` of each turn of `history` so far (see `_dump`)."""
        self._durable: dict | None = None
        """The last committed durable state: what an exhausted write rolls back to."""
        self._attempted: dict | None = None
        """The durable state of the write last attempted (adopted if it turns out to stand)."""
        self.completed = False
        """The ending is committed (terminal transaction done): completion may proceed."""
        self._publish_view()

    @classmethod
    def resume(
        cls,
        data: dict,
        store,
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
    def ended_view(cls, data: dict) -> PublicView:
        """The public view of an ended game from its final durable snapshot (no task runs)."""
        return cls.resume(data, None).published

    async def write_creation(self, commit=None) -> str | None:
        """Write the creation snapshot once; None when it committed, else why it did not.

        A best-effort room starts anyway, from this snapshot as its last durable state.
        `commit(write)`, when given, is the caller's own creation transaction: it runs once,
        and what it raises propagates (nothing is started from an unknown outcome)."""
        state = self.state()
        data = self._attempted = self._dump(state)
        if commit is not None:
            await commit(game_write(state, data))
            self._durable = data
            return None
        error = await attempt_write(lambda: self.store.save_game(game_write(state, data)), self.policy.timeout_s)
        if error is None or not self.required:
            self._durable = data
        return error

    async def creation_stands(self) -> bool:
        """After a creation write whose COMMIT answer was lost: read back until the store knows
        (see `_stands`); True when the creation snapshot is stored (it is then durable)."""
        stored = await read_back_durably(
            lambda: self.store.read_back(self.game_id),
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
            self._end(Ending(Termination.ABORTED, None), trio.current_time())
            await self._persist()

    def _dump(self, state: RoomState) -> dict:
        """`dump_state(state)`, from the records of the setup and of past turns made before
        (shared by every snapshot, never changed: a snapshot is handed over for good)."""
        if self._setup_record is None:
            self._setup_record = dump_setup(self.setup)
        records = self._history_records
        records.extend(dump_history_turn(turn) for turn in state.history[len(records):])
        return dump_state(state, setup=self._setup_record, history=list(records))

    def state(self) -> RoomState:
        """Everything durable about the room now (what `durable` and `records` work from)."""
        clock = None
        if self.clock is not None:
            clock = ClockState(remaining_ms=dict(self.clock.remaining_ms), running=self.clock.running)
        return RoomState(
            setup=self.setup,
            version=self.version,
            phase=self.phase,
            position=self.position,
            rolled=self.rolled,
            ply=self.ply,
            fairness=self.fairness,
            principals={seat: state.principal for seat, state in self.seats.items()},
            history=tuple(self.history),
            played=frozenset(self.played),
            clock=clock,
            draw_offer_from=self.draw_offer_from,
            draw_blocked=frozenset(self.draw_blocked),
            ending=self.ending,
            joined=frozenset(seat for seat, state in self.seats.items() if state.joined),
            activated=self.activated,
        )

    def _restore(self, state: RoomState, now: float) -> None:
        """Put the room back into `state`; a clock that was running restarts at `now`."""
        self.fairness = state.fairness
        self.version = state.version
        self.phase = state.phase
        self.position = state.position
        self.rolled = state.rolled
        self.ply = state.ply
        for seat, principal in state.principals.items():
            self.seats[seat].principal = principal
            self.seats[seat].joined = seat in state.joined
        self.activated = state.activated
        self.history = list(state.history)
        self._history_records = []
        self.played = set(state.played)
        if self.clock is not None and state.clock is not None:
            self.clock.remaining_ms = dict(state.clock.remaining_ms)
            self.clock.running = self.clock.started_at = None
            if state.clock.running is not None:
                self.clock.start(state.clock.running, now)
                self.clock.remaining_ms = dict(state.clock.remaining_ms)  # PerMove: keep what was left
        self.draw_offer_from = state.draw_offer_from
        self.draw_blocked = set(state.draw_blocked)
        self.ending = state.ending
        self.reset_derived_state()

    @property
    def tree(self) -> dict | None:
        """The tree of the pending roll, unpacked (a new copy at each read)."""
        return None if self.packed is None else self.packed.unpack()

    @property
    def required(self) -> bool:
        return self.setup.durability == REQUIRED

    def reset_derived_state(self) -> None:
        """Recompute what follows from the durable fields (after a restore)."""
        self.packed = None
        self._roll_due = None
        if self.phase is RoomPhase.PLAYING and self.position.dice:
            self.packed = pack(self.position)
        self._publish_view()

    # ----- the public surface -------------------------------------------------------------

    async def send(self, intent) -> bool:
        """Queue an intent (waiting if the room is busy); False once the room has finished."""
        try:
            await self._intents_in.send(intent)
            return True
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False

    @property
    def ended(self) -> bool:
        return self.phase is RoomPhase.ENDED

    def queued_intents(self) -> int:
        """Intents waiting for the room's task (metrics)."""
        return self._intents_in.statistics().current_buffer_used

    @property
    def active_seat(self) -> Seat:
        return seat_to_move(self.position)

    @property
    def players(self) -> Players:
        if not self.names:
            return self.setup.players
        white, black = (
            attrs.evolve(self.setup.seat(seat).face, name=self.names[seat]) if seat in self.names
            else self.setup.seat(seat).face
            for seat in (WHITE, BLACK)
        )
        return Players(white=white, black=black)

    @property
    def rated(self) -> bool:
        """Rated as the public is told now (`model.effective_rated`)."""
        return effective_rated(
            self.setup.rated, {seat: state.principal for seat, state in self.seats.items()}, ended=self.ended
        )

    def public_state(self) -> PublicGameState:
        """The public state of the last committed version."""
        return self.published.state

    def state_text(self) -> str:
        return self.published.state_text()

    def snapshot_text(self, *, spectator: bool = False) -> str:
        return self.published.snapshot_text(spectator=spectator)

    def _working_state(self) -> PublicGameState:
        ended = self.ending is not None
        inline_tree = self.packed.inline() if self.packed is not None else None
        return PublicGameState(
            version=self.version,
            dfen=self._dfen(self.position),
            active_seat=self.active_seat,
            dice_pending=self.phase is RoomPhase.PLAYING,
            status=EndedStatus(self.ending.over) if ended else ActiveStatus(),
            time_control=self.setup.time_control,
            clocks=self.clock.read(trio.current_time()) if self.clock else None,
            commit=self.fairness.commit,
            seed=self.fairness.seed.hex() if ended else None,
            client_seeds=self._client_seeds_view() if ended else None,
            legal_moves=inline_tree if self.phase is RoomPhase.PLAYING else None,
            players=self.players,
            rated=self.rated,
            rematch_startup=self._startup_marker(),
        )

    def _startup_marker(self) -> RematchStartup | None:
        if not self.setup.successor:
            return None
        if self.phase is RoomPhase.AWAITING_JOINS:
            return RematchStartup("awaiting_joins", self.setup.join_deadline_at)
        return RematchStartup("active" if self.activated else "aborted")

    def _publish_view(self) -> None:
        """The working state is committed: from now on, it is what the public reads."""
        tree = self.packed if self.phase is RoomPhase.PLAYING else None
        self.published = PublicView(state=self._working_state(), history=tuple(self.history), packed=tree)

    # ----- the task -----------------------------------------------------------------------

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Apply intents until the game ends and its terminal write commits."""
        now = trio.current_time()
        if self.resumed:
            self._after_resume(now)
        elif self.setup.await_joins and not self._ready_to_begin():
            self.join_deadline = now + self._join_window()
        else:
            self._begin(now)
        task_status.started()
        try:
            await self._commit()
            while not self.ended:
                intent = None
                with trio.move_on_at(self._next_deadline()):
                    intent = await self._intents.receive()
                if intent is not None:
                    self._apply(intent)
                else:
                    self._on_deadline(trio.current_time())
                await self._commit()
        finally:
            self._refuse_queued()
            self._intents.close()
            self.fanout.close_all()
            self.finished.set()

    def _after_resume(self, now: float) -> None:
        """Deadlines restart: seats must reconnect within the grace, windows run again."""
        if self.phase is RoomPhase.AWAITING_JOINS and self.setup.successor and not self.restarted:
            self.join_deadline = now + self._join_window()
        elif self.phase is RoomPhase.AWAITING_JOINS and self.setup.successor:
            # A committed successor that had not begun when the server stopped: a technical
            # abort of this same game (no result, no rating, nobody forfeited), never a new window.
            self._end(Ending(Termination.ABORTED, None), now)
        elif self.phase is RoomPhase.AWAITING_JOINS and not self.setup.await_joins:
            # Stored before it began (a game that begins at once, e.g. the showcase's): it
            # begins now, its claim grace counted from its absolute deadline.
            self._begin(now)
            return
        elif self.phase is RoomPhase.AWAITING_JOINS:
            self.join_deadline = now + self.setup.join_window_s
        elif self.phase is RoomPhase.SEEDING:
            self.seed_deadline = now + self.setup.seed_window_s
        if self.phase in (RoomPhase.SEEDING, RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
            self.idle_since = now  # no turn is lost to a restart: the idle window starts again
            for seat in self.seats.values():
                if seat.setup.always_present:
                    continue
                if self.setup.claim_grace_s is not None and not seat.joined:
                    seat.grace_until = now + self._claim_grace_left()  # never taken: the claim deadline holds
                else:
                    seat.grace_until = now + DISCONNECT_GRACE_S

    # ----- publish after commit -----------------------------------------------------------

    def _later(self, reply, value) -> None:
        """Answer once what the intent changed is committed (verdicts follow the broadcast)."""
        self._pending_replies.append((reply, value))

    async def _commit(self) -> None:
        """Finish a roll, persist the new state, then broadcast its events, then answer the requesters."""
        await self._settle_roll()
        if self._pending_events or self._dirty:
            if not await self._persist() and not await self._stands():
                self._roll_back_and_abort()
                await self._persist()  # terminal: retried until it commits
        events, self._pending_events = self._pending_events, []
        replies, self._pending_replies = self._pending_replies, []
        self._dirty = False
        self._refused = None
        self._publish_view()
        self.completed = self.ended
        now = trio.current_time()
        for text, watched in events:
            for lagging in self.fanout.broadcast(text, watched):
                self._seat_left(lagging, now)
        for reply, value in replies:
            reply.set(value)
        taken, self._commands_taken = self._commands_taken, []
        for started in taken:
            self.counters.verdict_s.observe(now - started)

    async def _persist(self) -> bool:
        if self.store is None:
            return True
        state = self.state()
        data = self._dump(state)
        self._attempted = data
        write = game_write(state, data)
        if self.ended:
            ending = game_ending(state)
            write_once = lambda: self.store.finish_game(write, ending)  # noqa: E731
        else:
            write_once = lambda: self.store.save_game(write)  # noqa: E731

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
        self._credit(trio.current_time() - started)
        if committed:
            self._committed(data)
        return committed

    def _credit(self, stall: float) -> None:
        if self.clock is not None and stall > 0 and (self._refused is None or self._refused != self.clock.running):
            # The mover does not pay for the server's writes, except for the write of its own
            # refused command: sending refused moves must not stop the mover's clock.
            self.clock.credit(stall)

    def _committed(self, data: dict) -> None:
        self._durable = data
        if self.persistence_stalled:
            self.persistence_stalled = False
            self._restart_graces(trio.current_time())

    async def _stands(self) -> bool:
        """An intermediate write was given up. If an attempt's COMMIT was sent and its answer
        lost, the write may stand: nothing is decided (no verdict, no broadcast, no abort) until
        the store has been read back, once no transaction of this game is in flight. True when
        this version is what the store holds: it is then committed, and played as such."""
        if self.store is None or not self.store.in_doubt(self.game_id):
            return False
        started = trio.current_time()
        telemetry(self.game_id, self.version, "in_doubt", "reading back before deciding")
        stored = await read_back_durably(
            lambda: self.store.read_back(self.game_id),
            game_id=self.game_id,
            version=self.version,
            timeout_s=self.policy.timeout_s,
            on_stall=self._stalled,
        )
        self._credit(trio.current_time() - started)
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
        for seat in self.seats.values():
            seat.grace_until = None

    def _restart_graces(self, now: float) -> None:
        for seat in self.seats.values():
            if seat.connections == 0 and not seat.setup.always_present:
                if self.phase in (RoomPhase.SEEDING, RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
                    seat.grace_until = now + DISCONNECT_GRACE_S

    def _roll_back_and_abort(self) -> None:
        """An exhausted intermediate write: discard it, end as aborted from the last durable version."""
        assert self._durable is not None, "a required room is created durably"
        durable_version = self._durable["version"]
        for reply, value in self._pending_replies:
            reply.set(Verdict(False, durable_version, TECHNICAL_ABORT_REASON) if isinstance(value, Verdict) else value)
        self._pending_replies, self._pending_events = [], []
        self._refused = None
        self._restore(load_state(self._durable), trio.current_time())
        self._end(Ending(Termination.ABORTED, None), trio.current_time())

    def _refuse_queued(self) -> None:
        while True:
            try:
                intent = self._intents.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            self._answer_finished(intent)

    def _answer_finished(self, intent) -> None:
        if isinstance(intent, PlayerCommand):
            intent.reply.set(Verdict(False, self.version, "game is over"))
        elif isinstance(intent, (Attach, Rebind, Abort)):
            intent.reply.set(False)

    # ----- intents ------------------------------------------------------------------------

    def _apply(self, intent) -> None:
        now = trio.current_time()
        if self.join_deadline is not None and now >= self.join_deadline and not isinstance(intent, Detach):
            # The join window closed at the same instant this intent arrived: the deadline
            # comes first, so a first join at or after it is late.
            self._on_deadline(now)
            if self.ended:
                self._answer_finished(intent)
                return
        match intent:
            case Attach(subscriber=subscriber):
                intent.reply.set(self._attach(subscriber, now))
            case Detach(subscriber=subscriber):
                self._detach(subscriber, now)
            case Rebind(seat=seat, principal=principal, name=name):
                self._later(intent.reply, self._rebind(seat, principal, name))
            case PlayerCommand(seat=seat, command=command):
                self._commands_taken.append(now)
                self._later(intent.reply, self._command(seat, command, now))
            case Abort(reason=_):
                if not self.ended:
                    self._end(Ending(Termination.ABORTED, None), now)
                self._later(intent.reply, True)
            case _:
                raise TypeError(f"unknown intent {intent!r}")

    def _attach(self, subscriber: Subscriber, now: float) -> bool:
        if not subscriber.offer(self.snapshot_text(spectator=subscriber.seat is None)):
            return False
        self.fanout.add(subscriber)
        if subscriber.seat is not None:
            seat = self.seats[subscriber.seat]
            self.seated[subscriber] = subscriber.seat
            seat.connections += 1
            if not seat.joined and (self.setup.successor or self.setup.claim_grace_s is not None):
                self._dirty = True  # durable: a successor's connection history, a claimed seat taken
            seat.joined = True
            seat.grace_until = None
            if self.phase is RoomPhase.AWAITING_JOINS and self._ready_to_begin():
                self._begin(now)
        return True

    def _detach(self, subscriber: Subscriber, now: float) -> None:
        self.fanout.remove(subscriber)
        self._seat_left(subscriber, now)

    def _seat_left(self, subscriber: Subscriber, now: float) -> None:
        seat_name = self.seated.pop(subscriber, None)
        if seat_name is None:
            return
        seat = self.seats[seat_name]
        seat.connections -= 1
        if seat.connections == 0 and self.phase in (RoomPhase.SEEDING, RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
            if not seat.setup.always_present:
                seat.grace_until = now + DISCONNECT_GRACE_S

    def _rebind(self, seat_name: Seat, principal: str, name: str | None) -> bool:
        seat = self.seats[seat_name]
        if seat.principal is None and not self.ended:
            seat.principal = principal
            self._dirty = True
        if seat.principal != principal:
            return False
        if name is not None and self.names.get(seat_name) != name:
            self.names[seat_name] = name
            self._dirty = True  # a new version, so the name (and a game turned casual) is published
        return True

    def _command(self, seat: Seat, command, now: float) -> Verdict:
        """Apply one player command. A refused turn or draw answer in a game still going is
        told to everyone as a `Rejected` event with a version of its own: a version with no
        other change, committed like any other before it is published (as the ecosystem
        does, so a client that drops events at or below the last `v` it saw keeps it). The
        verdict then carries that version. Seeds are not moves: a refused seed is only
        ignored, and a command to a game that is over has nothing left to publish."""
        if self.ended:
            return self._reject("game is over")
        verdict = self._decide(seat, command, now)
        if not verdict.applied and not self.ended and isinstance(command, (SubmitTurn, AnswerDraw)):
            reason = verdict.reason or "refused"
            self._publish(lambda v: Rejected(v=v, seat=seat, reason=reason))
            self.counters.refused += 1
            self._refused = seat
            verdict = Verdict(False, self.version, reason)
        return verdict

    def _decide(self, seat: Seat, command, now: float) -> Verdict:
        match command:
            case SubmitSeed(seed=seed):
                return self._submit_seed(seat, seed, now)
            case Resign():
                self._end(self._decided(Termination.RESIGN, winner=seat.other()), now)
                return Verdict(True, self.version)
            case SubmitTurn(moves=moves, offer_draw=offer_draw):
                return self._submit_turn(seat, tuple(moves), offer_draw, now)
            case AnswerDraw(accept=accept):
                return self._answer_draw(seat, accept, now)
        return self._reject(f"unknown command {type(command).__name__}")

    def _reject(self, reason: str) -> Verdict:
        return Verdict(False, self.version, reason)

    def _submit_seed(self, seat: Seat, seed, now: float) -> Verdict:
        verdict = self.fairness.client_seeds.judge(seat, seed)
        if verdict is not SeedVerdict.ACCEPTED:
            return self._reject(f"seed ignored ({verdict.value})")
        self.fairness = self.fairness.submit_client_seed(seat, seed)
        self._dirty = True
        if self.phase is RoomPhase.SEEDING and self.fairness.client_seeds.white and self.fairness.client_seeds.black:
            self._roll(now)
        return Verdict(True, self.version)

    def _submit_turn(self, seat: Seat, moves: tuple[str, ...], offer_draw: bool, now: float) -> Verdict:
        if self.phase is RoomPhase.DRAW_ANSWER and seat == self.active_seat:
            return self._reject("a draw offer is waiting for your answer")
        if self.phase is not RoomPhase.PLAYING:
            return self._reject("not your turn: the dice are not rolled yet")  # the ecosystem's reason, then why
        if seat != self.active_seat:
            return self._reject("not your turn")
        if offer_draw and self.seats[seat.other()].setup.always_present:
            return self._reject("draw offers are not available against an API seat (it cannot answer them)")
        if offer_draw and seat in self.draw_blocked:
            return self._reject("you may not offer a draw again until your opponent has offered one")
        try:
            outcome = play_turn(self.position, moves, tree=self.packed.unpack() if self.packed else None)
        except IllegalTurn as illegal:
            return self._reject(f"illegal turn: {illegal.reason}")
        if self.clock is not None and self.clock.stop(now, completed_turn=True) <= 0:
            self._end(self._decided(Termination.TIMEOUT, winner=seat.other()), now)
            return self._reject("time ran out before the turn arrived")
        self.played.add(seat)
        self._record_turn(seat, outcome.moves, outcome.after, draw_offer=offer_draw)
        if outcome.end is not None:
            termination = outcome.end.termination  # the rules decide KING_CAPTURED or NO_PROGRESS
            winner = None if outcome.end.winner is None else (WHITE if outcome.end.winner else BLACK)
            self._end(self._decided(termination, winner=winner), now)
            return Verdict(True, self.version - 1)
        verdict = Verdict(True, self.version)
        self._start_turn(now)
        if offer_draw:
            self.draw_offer_from = seat
            self.draw_blocked.discard(seat.other())
            self.phase = RoomPhase.DRAW_ANSWER
        else:
            self._roll(now)
        return verdict

    def _answer_draw(self, seat: Seat, accept: bool, now: float) -> Verdict:
        if self.phase is not RoomPhase.DRAW_ANSWER or self.draw_offer_from != seat.other():
            return self._reject("there is no draw offer to answer")
        offerer, self.draw_offer_from = self.draw_offer_from, None
        if accept:
            self._end(self._decided(Termination.DRAW_AGREEMENT, winner=None), now)
            return Verdict(True, self.version)
        self.draw_blocked.add(offerer)
        self._publish(lambda v: DrawDeclined(v=v, seat=seat))
        verdict = Verdict(True, self.version)
        self._roll(now)
        return verdict

    # ----- turn flow ----------------------------------------------------------------------

    def _begin(self, now: float) -> None:
        """Both seats are here (or need not be): open the seed window, or roll at once when it
        is zero. With a claim grace, a person's seat not taken yet gets that long to connect."""
        self.join_deadline = None
        self.activated = True
        if self.setup.successor:
            self._dirty = True  # the activation is durable (its marker turns `active`)
        if self.setup.claim_grace_s is not None:
            for seat in self.seats.values():
                if not seat.joined and not seat.setup.always_present:
                    seat.grace_until = now + self._claim_grace_left()
        self.phase = RoomPhase.SEEDING
        self.seed_deadline = now + self.setup.seed_window_s
        if self.setup.seed_window_s <= 0:
            self._roll(now)

    def _claim_grace_left(self) -> float:
        """Seconds left before the absolute claim deadline (creation + claim grace), never below 0."""
        assert self.setup.claim_grace_s is not None and self.setup.created_at is not None
        return max(0.0, self.setup.claim_grace_s - seconds_between(self.setup.created_at, self.wall_clock()))

    def _start_turn(self, now: float) -> None:
        self.idle_since = now
        if self.clock is not None:
            self.clock.start(self.active_seat, now)

    def _roll(self, now: float) -> None:
        """Roll for the active seat: done by `_settle_roll` before the version commits, as
        the roll's tree may be computed in a worker process."""
        self._roll_due = now

    async def _settle_roll(self) -> None:
        """Roll the dice due and compute their tree; a roll without legal moves passes at
        once, for free, and the other seat rolls."""
        while self._roll_due is not None:
            now = self._roll_due
            if self.ply == 0:
                self.fairness = self.fairness.freeze_client_seeds()
                self.seed_deadline = None
                self._start_turn(now)
            dice = self.fairness.roll(self.ply)
            self.ply += 1
            self.rolled = tuple(dice)
            self.position = self.position.with_dice(dice)
            self.packed = await self.trees.compute(self.position)
            self.phase = RoomPhase.PLAYING
            seat = self.active_seat
            inline = self.packed.inline()
            clocks = self.clock.read(now) if self.clock else None
            self._publish(
                lambda v: DiceRolled(
                    v=v, seat=seat, dice=self.rolled, dfen=self._dfen(self.position), clocks=clocks, legal_moves=inline
                )
            )
            if self.packed.turns:
                self._roll_due = None
                return
            # Forced pass: no clock time is charged for it and no increment is earned.
            if self.clock is not None:
                self.clock.stop(now, completed_turn=False)
            outcome = play_turn(self.position, (), tree={})
            self._record_turn(seat, (), outcome.after, draw_offer=False)
            self._start_turn(now)

    def _dfen(self, position: Position) -> str:
        if self._dfen_of is None or self._dfen_of[0] is not position:
            self._dfen_of = (position, format_dfen(position))
        return self._dfen_of[1]

    def _record_turn(self, seat: Seat, moves: tuple[str, ...], after: Position, *, draw_offer: bool) -> None:
        fen_after = self._dfen(after)
        if moves:
            self.counters.turns += 1
        self.history.append(HistoryTurn(seat=seat, dice=self.rolled, moves=moves, fen_after=fen_after))
        self.position = after
        self.packed = None
        self._publish(lambda v: TurnPlayed(v=v, seat=seat, moves=moves, fen_after=fen_after, draw_offer=draw_offer))

    def _decided(self, termination: Termination, *, winner: Seat | None) -> Ending:
        """A result, unless both seats have not yet played a turn: then it is an abort."""
        if termination is not Termination.KING_CAPTURED and len(self.played) < 2:
            return Ending(Termination.ABORTED, None)
        return Ending(termination, winner)

    def _end(self, ending: Ending, now: float) -> None:
        if self.clock is not None and self.clock.running is not None:
            self.clock.stop(now, completed_turn=False)
        self.ending = attrs.evolve(ending, at=self.wall_clock())
        self.counters.games_ended += 1
        self.phase = RoomPhase.ENDED
        self.packed = None
        self.position = self.position.without_dice()
        over = ending.over
        self._publish(
            lambda v: GameEnded(v=v, over=over, seed=self.fairness.seed.hex(), client_seeds=self._client_seeds_view())
        )

    def _client_seeds_view(self) -> ClientSeedsView:
        seeds = self.fairness.client_seeds
        return ClientSeedsView(white=seeds.white, black=seeds.black)

    def _publish(self, make_event) -> None:
        """Bump the version and encode the event once per audience (seats, spectators);
        `_commit` broadcasts it after the write."""
        self.version += 1
        event = make_event(self.version)
        text = encode_event(event)
        watched = text
        if isinstance(event, DiceRolled) and event.legal_moves:
            # Spectators never play: the tree (most of a roll's bytes) goes to the seats only.
            watched = encode_event(attrs.evolve(event, legal_moves=None))
        self._pending_events.append((text, watched))

    # ----- deadlines ----------------------------------------------------------------------

    def _all_joined(self) -> bool:
        return all(seat.joined or seat.setup.always_present for seat in self.seats.values())

    def _ready_to_begin(self) -> bool:
        """A friend game begins once each seat has connected; a successor only while both
        are connected at once (no game starts against a player known to be away)."""
        if self.setup.successor:
            return all(seat.connections > 0 for seat in self.seats.values())
        return self._all_joined()

    def _join_window(self) -> float:
        """Seconds left to join: a successor's absolute deadline, else the friend window."""
        if self.setup.join_deadline_at is None:
            return self.setup.join_window_s
        return max(0.0, seconds_between(self.wall_clock(), self.setup.join_deadline_at))

    def _next_deadline(self) -> float:
        candidates = [self.join_deadline, self.seed_deadline]
        if self.clock is not None and self.phase in (RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
            candidates.append(self.clock.flag_at())
        candidates.append(self._idle_deadline())
        candidates.extend(seat.grace_until for seat in self.seats.values())
        return min((c for c in candidates if c is not None), default=math.inf)

    def _idle_deadline(self) -> float | None:
        """Unlimited games with an idle forfeit: when the seat to move loses for not playing."""
        if self.setup.idle_forfeit_s is None or self.clock is not None or self.idle_since is None:
            return None
        if self.phase not in (RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
            return None
        return self.idle_since + self.setup.idle_forfeit_s

    def _on_deadline(self, now: float) -> None:
        if self.join_deadline is not None and now >= self.join_deadline:
            present = [name for name, seat in self.seats.items() if seat.connections > 0]
            if self.setup.successor and len(present) == 1:
                # The first-join deadline passed with one seat here: it wins, the other loses.
                self._end(Ending(Termination.DISCONNECT, present[0]), now)
            else:
                self._end(Ending(Termination.ABORTED, None), now)
            return
        if self.seed_deadline is not None and now >= self.seed_deadline:
            self._roll(now)
            return
        flag_at = self.clock.flag_at() if self.clock is not None else None
        if flag_at is not None and now >= flag_at and self.phase in (RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER):
            self._end(self._decided(Termination.TIMEOUT, winner=self.active_seat.other()), now)
            return
        idle_at = self._idle_deadline()
        if idle_at is not None and now >= idle_at:
            self._end(self._decided(Termination.TIMEOUT, winner=self.active_seat.other()), now)
            return
        gone = [name for name, seat in self.seats.items() if seat.grace_until is not None and now >= seat.grace_until]
        if len(gone) == len(self.seats):
            # Both seats away past their grace at once: no result may depend on seat order.
            self._end(Ending(Termination.ABORTED, None), now)
        elif gone:
            self._end(self._decided(Termination.DISCONNECT, winner=gone[0].other()), now)
