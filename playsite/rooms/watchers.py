"""How many watch a game, told to the clients that asked for Presence.

A game's watchers are its spectators: subscribers with no seat that get the spectators'
encoding (a bot's stream of a game it sits in has no seat either, but gets the trees: it plays;
a webhook's dispatch has neither, and relays a bot seat's turns: it watches nothing).
`{"Watching": {"count": n}}` goes to a client that asked for Presence right after its Snapshot,
and to all of them when the count has changed, at most once every `TELL_EVERY_S`: a crowd
arriving for a game is one frame each, not one per newcomer each.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from playsite.rooms.fanout import Fanout, Subscriber
from playsite.wire.text import compact_json

TELL_EVERY_S = 1.0
"""The most often a changed count is told."""


def watches(subscriber: Subscriber) -> bool:
    """A spectator: no seat and the spectators' encoding (`QueueSubscriber`'s default), and not
    a webhook's dispatch."""
    return subscriber.watching


class Watchers:
    def __init__(self, fanout: Fanout, spawn: Callable[[Callable[[], Awaitable[object]]], bool]) -> None:
        self._fanout = fanout
        self._spawn = spawn
        """Runs a task in the room's lifetime (False when the room's task is not running)."""
        self._told = 0
        """The count last told to everyone."""
        self._due = False
        """A telling is waiting for its moment."""

    def count(self) -> int:
        return sum(1 for subscriber in self._fanout.subscribers if watches(subscriber))

    @staticmethod
    def _text(count: int) -> str:
        return compact_json({"Watching": {"count": count}})

    def attached(self, subscriber: Subscriber) -> None:
        """`subscriber` is in the fanout now, its Snapshot queued."""
        if subscriber.presence:
            subscriber.offer(self._text(self.count()))
        if watches(subscriber):
            self._changed()

    def detached(self, subscriber: Subscriber) -> None:
        if watches(subscriber):
            self._changed()

    def _changed(self) -> None:
        if not self._due:
            self._due = self._spawn(self._tell_soon)

    async def _tell_soon(self) -> None:
        await trio.sleep(TELL_EVERY_S)
        self._due = False
        count = self.count()
        if count == self._told:
            return  # came and went meanwhile: nothing new
        self._told = count
        text = self._text(count)
        for subscriber in self._fanout.subscribers:
            if subscriber.presence:
                subscriber.offer(text)
