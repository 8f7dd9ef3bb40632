"""The registry: owns every room's task, looks rooms up, and completes them exactly once.

Creation goes through admission (reserve, build, write the creation snapshot, commit) so
a failure at any step releases the reservation once. Each room runs in the registry's
nursery; when its task returns — after its terminal write committed — the room is
deregistered, its admission released and completion hooks run. At boot, `resume_all`
brings back every active game and its admission before the port opens.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable

import attrs
import trio

from playsite.dice import Fairness, SeedSource
from playsite.rooms.admission import Admission, Purpose, Reservation
from playsite.rooms.counters import RoomCounters
from playsite.rooms.model import REQUIRED, RoomPhase, RoomSetup, WallClock, utc_now
from playsite.rooms.persistence import DurabilityPolicy, RoomStore, telemetry
from playsite.rooms.room import CreationCommit, Room, StoredSnapshot
from playsite.rooms.trees import Trees
from playsite.wire import SEATS, Unlimited

log = logging.getLogger("playsite.rooms")

FINISHED_ROOMS_KEPT = 1000
CREATION_DECIDE_S = 10
"""How long a creation whose COMMIT answer was lost reads back before its creator is refused."""

CompletionHook = Callable[[Room], Awaitable[None]]
CreationHook = Callable[[Room], object]


class CreationFailed(Exception):
    """The room could not be created durably; nothing was admitted."""


class Registry:
    def __init__(
        self,
        admission: Admission,
        seed_source: SeedSource,
        store: RoomStore | None = None,
        *,
        policy: DurabilityPolicy | None = None,
        wall_clock: WallClock = utc_now,
        idle_forfeit_s: float | None = None,
        bot_idle_forfeit_s: float | None = None,
        first_move_s: float | None = None,
        trees: Trees | None = None,
    ) -> None:
        self.admission = admission
        self.trees = trees if trees is not None else Trees()
        """Where every room of this registry computes its trees."""
        self.policy = policy if policy is not None else DurabilityPolicy.for_store(store)
        """The one durability policy every room of this registry writes by."""
        self.wall_clock = wall_clock
        """The wall clock every room of this registry stamps its creation and ending with."""
        self.idle_forfeit_s = idle_forfeit_s
        """Unlimited games created here forfeit a seat idle this long (None: never)."""
        self.bot_idle_forfeit_s = bot_idle_forfeit_s
        """Unlimited games with a bot seat forfeit a seat idle this long (None: never)."""
        self.first_move_s = first_move_s
        """Clocked games created here are aborted when a person's first turn waits this long (None: never)."""
        self.seed_source = seed_source
        self.counters = RoomCounters()
        """What every room of this registry counts (metrics)."""
        self.store = store
        self.live: dict[str, Room] = {}
        self.finished: OrderedDict[str, Room] = OrderedDict()
        self._finished_at: dict[str, float] = {}
        """Game id -> when (trio's clock) its room left `live`, for each room in `finished`."""
        self.completion_hooks: list[CompletionHook] = []
        self.creation_hooks: list[CreationHook] = []
        """Called with every room started, created or resumed (e.g. to attach webhook delivery)."""
        self._nursery: trio.Nursery | None = None
        self._creating: dict[str, Room] = {}
        """Rooms being created here: written (perhaps committed) but not yet hosted. `adopt`
        gives these back rather than host a second room for the same game."""
        self._awaiting: dict[str, Room] = {}
        """Live rooms that went live awaiting their joins (a room never returns to that phase):
        `awaiting_joins` counts these, not every live room, on every game created."""

    async def run(self, *, task_status: trio.TaskStatus[Registry] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started(self)
            await trio.sleep_forever()

    @property
    def _rooms(self) -> trio.Nursery:
        """The nursery every room's task runs in."""
        assert self._nursery is not None, "the registry is not running"
        return self._nursery

    def awaiting_joins(self) -> int:
        """Live rooms still waiting for their seats to connect (each holds a task until its join deadline)."""
        moved_on = [
            game_id for game_id, room in self._awaiting.items() if room.game.phase is not RoomPhase.AWAITING_JOINS
        ]
        for game_id in moved_on:
            del self._awaiting[game_id]
        return len(self._awaiting)

    def seated_unfinished(self, principal: str) -> list[Room]:
        """Live games not yet ended in which `principal` holds a seat."""
        return [room for room in self.live.values() if not room.ended and room.seats_of(principal)]

    def get(self, game_id: str) -> Room | None:
        return self.live.get(game_id) or self.finished.get(game_id)

    def finished_for(self, game_id: str) -> float | None:
        """Seconds since the game's room finished, while it is kept in `finished`; else None."""
        at = self._finished_at.get(game_id)
        return None if at is None else trio.current_time() - at

    async def create(
        self,
        setup: RoomSetup,
        purpose: Purpose,
        participants: Iterable[str],
        *,
        commit: CreationCommit | None = None,
    ) -> Room:
        """Admit, build, write and start a room.

        Raises AdmissionRefused when someone is at capacity, CreationFailed when a
        required-durability room cannot be written (or the store cannot be durable).
        `commit` replaces the plain creation write with the caller's own transaction, which
        writes the creation snapshot together with records of its own (a rematch successor
        and its link); whatever it raises propagates and nothing is admitted.
        """
        if setup.durability == REQUIRED and not (self.store is not None and self.store.durable):
            raise CreationFailed("required durability needs a durable store")
        if isinstance(setup.time_control, Unlimited) and setup.idle_forfeit_s is None:
            if idle_forfeit_s := self._idle_forfeit_of(setup):
                setup = attrs.evolve(setup, idle_forfeit_s=idle_forfeit_s)
        if not isinstance(setup.time_control, Unlimited) and setup.first_move_s is None and self.first_move_s:
            setup = attrs.evolve(setup, first_move_s=self.first_move_s)
        reservation = self.admission.reserve(purpose, participants)
        try:
            room = Room(
                setup, Fairness.draw(self.seed_source), self.store,
                policy=self.policy, wall_clock=self.wall_clock, counters=self.counters, trees=self.trees,
            )
            self._creating[room.game_id] = room
            if commit is None:
                await self._write_creation(room)
            else:
                await room.write_creation(commit)
            reservation.commit()
            await self._rooms.start(self._host, room, reservation)
        except BaseException:
            reservation.release()
            raise
        finally:
            self._creating.pop(setup.game_id, None)
        self._started(room)
        return room

    def _idle_forfeit_of(self, setup: RoomSetup) -> float | None:
        """The idle forfeit of a new Unlimited game: the shorter of the general one and, with
        a bot seat, the bots' one."""
        limits = [self.idle_forfeit_s]
        if any(setup.seat(seat).face.kind == "Bot" for seat in SEATS):
            limits.append(self.bot_idle_forfeit_s)
        return min((limit for limit in limits if limit), default=None)

    def _started(self, room: Room) -> None:
        for hook in self.creation_hooks:
            try:
                hook(room)
            except Exception:  # a hook's fault must not fail the creation that already happened
                log.exception("creation hook failed for game %s", room.game_id)

    async def _write_creation(self, room: Room) -> None:
        if self.store is None:
            return
        error = await room.write_creation()
        if error is not None and room.required and self.store.in_doubt(room.game_id):
            error = await self._decide_creation(room, error)
        if error is not None:
            telemetry(room.game_id, room.version, "creation_failed", f"error={error!r}")
            if room.required:
                raise CreationFailed(f"creation snapshot not committed: {error}")

    async def _decide_creation(self, room: Room, error: str) -> str | None:
        """The creation's COMMIT was sent and its answer lost: the game may exist. Read back
        (for up to CREATION_DECIDE_S, the creator is waiting): stored, the creation stands and
        the caller gets its game (None); absent, it failed (`error`). Still unknown then, the
        creator is refused and the question is settled in the background: a game that turns
        out to exist is ended at once (a technical abort, archived), so it is never resumed
        as a game nobody was given."""
        with trio.move_on_after(CREATION_DECIDE_S):
            return error if not await room.creation_stands() else None
        telemetry(room.game_id, room.version, "creation_undecided", f"error={error!r}")
        self._rooms.start_soon(room.end_if_stored)
        return error

    async def resume_all(self) -> int:
        """Resume every active game from its last committed version; rebuild admission."""
        if self.store is None:
            return 0
        snapshots = await self.store.active_games()
        for data in snapshots:
            room = Room.resume(
                data, self.store, policy=self.policy, wall_clock=self.wall_clock, counters=self.counters, trees=self.trees
            )
            reservation = self.admission.restore(Purpose(room.setup.purpose), room.setup.participants)
            await self._rooms.start(self._host, room, reservation)
            self._started(room)
        if snapshots:
            log.info("resumed %d active game(s)", len(snapshots))
        return len(snapshots)

    async def adopt(self, data: StoredSnapshot) -> Room:
        """Host a room that is committed in the store but not running here, without a restart
        (a rematch successor whose registration failed): it runs on to its own deadlines. A
        game this registry already runs, or is creating (committed, not yet hosted: the
        scan's read can land in that moment), is given back as it is, never hosted twice."""
        game_id = data["setup"]["gameId"]
        if (known := self.get(game_id) or self._creating.get(game_id)) is not None:
            return known
        room = Room.resume(
            data, self.store, policy=self.policy, wall_clock=self.wall_clock, restarted=False, counters=self.counters,
            trees=self.trees,
        )
        reservation = self.admission.restore(Purpose(room.setup.purpose), room.setup.participants)
        await self._rooms.start(self._host, room, reservation)
        self._started(room)
        return room

    async def _host(
        self, room: Room, reservation: Reservation, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        self.live[room.game_id] = room
        if room.game.phase is RoomPhase.AWAITING_JOINS:
            self._awaiting[room.game_id] = room
        try:
            # The room runs the tasks it hosts (deliveries, timers of its transports) in a
            # nursery of its own (`Room.spawn`): they end with it and never outlive the game.
            await room.run(task_status=task_status)
        finally:
            self._deregister(room, reservation)
            if room.completed:  # an ending that never committed is not an ending
                with trio.CancelScope(shield=True):
                    for hook in self.completion_hooks:
                        await hook(room)

    def _deregister(self, room: Room, reservation: Reservation) -> None:
        """Idempotent: a second completion finds nothing to remove and releases nothing."""
        self._awaiting.pop(room.game_id, None)
        if self.live.pop(room.game_id, None) is not None:
            self.finished[room.game_id] = room
            self._finished_at[room.game_id] = trio.current_time()
            while len(self.finished) > FINISHED_ROOMS_KEPT:
                oldest, _ = self.finished.popitem(last=False)
                del self._finished_at[oldest]
        reservation.release()
