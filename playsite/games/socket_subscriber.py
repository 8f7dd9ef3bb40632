"""A game socket's subscriber: the room's events queued for the socket's own task, or written
by the room itself when that task has nothing to send.

A turn publishes on every socket of its game at once. Queued, each socket's task is woken to
write its frames: a trip round the event loop per socket, and a new parked coroutine after it
for the collector to walk. So while a socket's task waits on an empty queue (`parked`), the
room writes the texts of a version straight to the socket (`DirectWrites`, which
http/wsbatch.py makes), and the task stays asleep. Whatever cannot be written at once goes the
usual way: through the queue, in order, under the same bounds (a socket that does not read
fills its kernel buffer, then its queue, and is dropped for lagging).
"""

from __future__ import annotations

from typing import Final, Protocol

import trio

from playsite.rooms.fanout import QueueSubscriber

FLUSH: Final = ""
"""Queued after a direct write the kernel took only part of: the socket's task writes the rest
before anything else. No event is an empty text."""


class DirectWrites(Protocol):
    """How a socket is written from the publisher's task (http/wsbatch.py's DirectWriter)."""

    @property
    def owed(self) -> bytes | None:
        """The rest of a direct write the kernel did not take, which `pay` writes."""
        ...

    def write_now(self, texts: list[str]) -> bool:
        """Write the texts at once, never waiting: False when nothing could be written."""
        ...

    async def pay(self) -> None: ...


class SocketSubscriber(QueueSubscriber):
    def __init__(self, seat: str | None = None, *, presence: bool = False) -> None:
        super().__init__(seat, presence=presence)
        self.writer: DirectWrites | None = None
        """Set by the socket's task where its connection can be written directly."""
        self._parked = False
        """The socket's task waits on an empty queue: nothing is on its way to the socket."""

    @property
    def parked(self) -> bool:
        """The socket's task waits on an empty queue: the next texts may be written directly."""
        return self._parked

    def offer(self, text: str) -> bool:
        self._parked = False  # what is queued now goes before any direct write
        return super().offer(text)

    def offer_all(self, texts: list[str]) -> int:
        writer = self.writer
        if self._parked and writer is not None and not self.closed and writer.write_now(texts):
            if writer.owed is not None:
                self._parked = False
                self._send.send_nowait(FLUSH)  # the queue is empty while parked: there is room
            return len(texts)
        return super().offer_all(texts)

    async def next_texts(self) -> list[str] | None:
        """Everything queued for the socket, in order, waiting for the first (a turn queues two
        at once: they go in one write); None once the room has closed the queue and it is
        drained. A direct write's rest is written here first."""
        while True:
            try:
                first = self.events.receive_nowait()
            except trio.WouldBlock:
                self._parked = True
                try:
                    first = await self.events.receive()
                except trio.EndOfChannel:
                    return None
                finally:
                    self._parked = False
            except trio.EndOfChannel:
                return None
            if first == FLUSH:
                await self.settle()
                continue
            texts = [first]
            while not self.lagging:
                try:
                    texts.append(self.events.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            return texts

    async def settle(self) -> None:
        """Write the rest of a direct write, if any is owed (the connection's lock is held till then)."""
        if self.writer is not None:
            await self.writer.pay()
