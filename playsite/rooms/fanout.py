"""Room events to subscribers through bounded queues that the room never waits on.

The room encodes an event once and `offer`s the same text to every subscriber. A full
queue drops the event (counted); a subscriber that has dropped more than its bound is
closed, so its transport ends the connection and the client resyncs from a new Snapshot.
A slow subscriber therefore costs the room one failed `send_nowait`, never a wait.
"""

from __future__ import annotations

from typing import Protocol

import trio

from playsite.rooms.counters import FanoutStats
from playsite.wire import Seat

QUEUE_CAPACITY = 64
"""Events a subscriber may have in flight before new ones are dropped."""
DROP_LIMIT = 16
"""Dropped events after which a subscriber is closed."""


class Subscriber(Protocol):
    """What a room needs from anything that watches it (socket, ndjson stream, webhook)."""

    seat: Seat | None
    """The seat this subscriber plays for, or None for a spectator."""

    trees: bool
    """Whether it is sent the seats' encoding, legal-move trees included (a seat's subscriber,
    or a bot's stream of a game it sits in), rather than the spectators' (trees left out)."""

    watching: bool
    """Whether it counts among the game's watchers ("N watching"): a spectator's socket or stream,
    not a webhook's dispatch, which holds no seat yet only relays a bot seat's turns."""

    presence: bool
    """Whether it asked for `Presence` frames (playsite's web client does; the ecosystem's
    clients never see a frame they do not know)."""

    def offer(self, text: str) -> bool:
        """Queue `text` without blocking; False when it was dropped or the subscriber is gone."""
        ...

    def offer_all(self, texts: list[str]) -> int:
        """The texts of one version, in order, without blocking: how many were taken."""
        ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool: ...


class QueueSubscriber:
    """A Subscriber backed by a bounded trio memory channel; the transport drains `events`."""

    def __init__(
        self, seat: str | None = None, *, capacity: int = QUEUE_CAPACITY, drop_limit: int = DROP_LIMIT,
        trees: bool | None = None, presence: bool = False, watching: bool | None = None,
    ) -> None:
        self.seat = None if seat is None else Seat(seat)
        self.trees = self.seat is not None if trees is None else trees
        self.watching = self.seat is None and not self.trees if watching is None else watching
        self.presence = presence
        self.drop_limit = drop_limit
        self.dropped = 0
        self._send, self.events = trio.open_memory_channel[str](capacity)
        self._closed = False

    def offer(self, text: str) -> bool:
        if self._closed:
            return False
        try:
            self._send.send_nowait(text)
            return True
        except trio.WouldBlock:
            self.dropped += 1
            if self.dropped > self.drop_limit:
                self.close()
            return False
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._closed = True
            return False

    def offer_all(self, texts: list[str]) -> int:
        return sum([self.offer(text) for text in texts])

    @property
    def lagging(self) -> bool:
        """Dropped for not keeping up: what is still queued is stale, the client must resync."""
        return self.dropped > self.drop_limit

    def close(self) -> None:
        """No more events; the reader sees end-of-channel after draining what is queued."""
        self._closed = True
        self._send.close()

    @property
    def closed(self) -> bool:
        return self._closed


class Fanout:
    def __init__(self, stats: FanoutStats | None = None) -> None:
        self.subscribers: list[Subscriber] = []
        self.stats = stats if stats is not None else FanoutStats()
        """Counts of deliveries and drops (shared by every room of a registry)."""

    def add(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)

    def remove(self, subscriber: Subscriber) -> bool:
        try:
            self.subscribers.remove(subscriber)
            return True
        except ValueError:
            return False

    def broadcast(self, events: list[tuple[str, str]]) -> list[Subscriber]:
        """Offer the events of one version, `(text, watched)` each, at once: every text to each
        subscriber sent trees (`Subscriber.trees`), every `watched` to the others (so a transport can write them
        together); returns the subscribers closed for lagging. A version without events offers
        nothing (a direct write of no frames would be an empty system call)."""
        lagging: list[Subscriber] = []
        if not events:
            return lagging
        texts = [text for text, _ in events]
        watched = [watched for _, watched in events]
        for subscriber in self.subscribers:
            taken = subscriber.offer_all(texts if subscriber.trees else watched)
            self.stats.delivered += taken
            if taken < len(events):
                self.stats.dropped_events += len(events) - taken
                if subscriber.closed:
                    lagging.append(subscriber)
        for subscriber in lagging:
            self.subscribers.remove(subscriber)
            self.stats.dropped_subscribers += 1
        return lagging

    def close_all(self) -> None:
        for subscriber in self.subscribers:
            subscriber.close()
        self.subscribers.clear()
