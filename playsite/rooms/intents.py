"""Everything that changes a room arrives as one of these, in order, on its channel.

An intent that needs an answer carries a `Reply`: a one-shot slot the room fills once.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs
import trio

from playsite.rooms.fanout import Subscriber
from playsite.wire import Command, Seat

T = TypeVar("T")


class Reply(Generic[T]):
    """A one-shot answer slot: the room `set`s it once, the requester `wait`s for it."""

    def __init__(self) -> None:
        self._event = trio.Event()
        self._value: T

    def set(self, value: T) -> None:
        if self._event.is_set():
            raise RuntimeError("a reply is set once")
        self._value = value
        self._event.set()

    async def wait(self) -> T:
        await self._event.wait()
        return self._value

    @property
    def ready(self) -> bool:
        return self._event.is_set()


@attrs.frozen
class Verdict:
    """The room's answer to a player command (the Bot API's 200/409 comes from this)."""

    applied: bool
    version: int | None = None
    reason: str | None = None


@attrs.frozen
class Attach:
    """Start delivering events to `subscriber`, beginning with a Snapshot.

    A seated subscriber (`subscriber.seat` set) also counts as the seat being present.
    """

    subscriber: Subscriber
    reply: Reply[bool] = attrs.field(factory=Reply, eq=False)


@attrs.frozen
class Detach:
    subscriber: Subscriber


@attrs.frozen
class Rebind:
    """A friend redeeming a join token: seat `seat` is taken by `principal` if still free.

    The answer is whether the seat now belongs to `principal` (first redemption wins; the
    same principal redeeming again is a reconnect and also true).
    """

    seat: Seat = attrs.field(converter=Seat)
    principal: str
    name: str | None = None
    """The public name to show for the seat (an account's nickname); never the principal."""
    claim: bool = True
    """False: only a return to a seat that is already `principal`'s (an account coming back to
    its game without the token); a free seat is not taken."""
    reply: Reply[bool] = attrs.field(factory=Reply, eq=False)


@attrs.frozen
class PlayerCommand:
    """A decoded wire command (SubmitTurn, SubmitSeed, Resign, AnswerDraw) from `seat`."""

    seat: Seat = attrs.field(converter=Seat)
    command: Command
    reply: Reply[Verdict] = attrs.field(factory=Reply, eq=False)


@attrs.frozen
class Abort:
    """A technical abort requested by the server itself (e.g. shutdown of a failed creation)."""

    reason: str
    reply: Reply[bool] = attrs.field(factory=Reply, eq=False)


Intent = Attach | Detach | Rebind | PlayerCommand | Abort
"""Everything a room's task takes off its channel."""
