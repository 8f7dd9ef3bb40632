"""The registry: owns every room's task, looks rooms up, and completes them exactly once.

Creation goes through admission (reserve, build, commit) so a failure at any step
releases the reservation once. Each room runs in the registry's nursery; when its task
returns, the room is deregistered, its admission released and completion hooks run.
Finished rooms stay readable from a bounded in-memory cache.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable

import trio

from playsite.dice import Fairness, SeedSource
from playsite.rooms.admission import Admission, Purpose, Reservation
from playsite.rooms.room import Room, RoomSetup

FINISHED_ROOMS_KEPT = 1000

CompletionHook = Callable[[Room], Awaitable[None]]


class Registry:
    def __init__(self, admission: Admission, seed_source: SeedSource):
        self.admission = admission
        self.seed_source = seed_source
        self.live: dict[str, Room] = {}
        self.finished: OrderedDict[str, Room] = OrderedDict()
        self.completion_hooks: list[CompletionHook] = []
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started(self)
            await trio.sleep_forever()

    def get(self, game_id: str) -> Room | None:
        return self.live.get(game_id) or self.finished.get(game_id)

    async def create(self, setup: RoomSetup, purpose: Purpose, participants: Iterable[str]) -> Room:
        """Admit, build and start a room; raises AdmissionRefused when someone is at capacity."""
        assert self._nursery is not None, "the registry is not running"
        reservation = self.admission.reserve(purpose, participants)
        try:
            room = Room(setup, Fairness.draw(self.seed_source))
            reservation.commit()
            await self._nursery.start(self._host, room, reservation)
        except BaseException:
            reservation.release()
            raise
        return room

    async def _host(self, room: Room, reservation: Reservation, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        self.live[room.game_id] = room
        try:
            await room.run(task_status=task_status)
        finally:
            self._deregister(room, reservation)
            with trio.CancelScope(shield=True):
                for hook in self.completion_hooks:
                    await hook(room)

    def _deregister(self, room: Room, reservation: Reservation) -> None:
        """Idempotent: a second completion finds nothing to remove and releases nothing."""
        if self.live.pop(room.game_id, None) is not None:
            self.finished[room.game_id] = room
            while len(self.finished) > FINISHED_ROOMS_KEPT:
                self.finished.popitem(last=False)
        reservation.release()
