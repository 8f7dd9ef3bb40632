"""A put into a trio memory channel without a trip round the event loop when it has room.

trio's `MemorySendChannel.send` yields to the event loop even when the value goes straight
into the buffer (or to a waiting receiver). A sender that waits for something right after
(its next read, a verdict) pays that trip for nothing, once per message. `put` makes it only
when the channel is full, and otherwise keeps `send`'s contract: a cancelled caller is
cancelled before anything is put, and a closed or broken channel raises.

Used by the room's queue of intents (`Room.send`) and hypercorn's queue of a route's messages
(`http/reads.py`).
"""

from __future__ import annotations

from typing import TypeVar

import trio

T = TypeVar("T")


async def put(channel: trio.MemorySendChannel[T], value: T) -> None:
    """`await channel.send(value)`, with no schedule point when the channel has room."""
    await trio.lowlevel.checkpoint_if_cancelled()
    try:
        channel.send_nowait(value)
    except trio.WouldBlock:
        await channel.send(value)
