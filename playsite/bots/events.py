"""The account event stream of each bot: ChallengeReceived, ChallengeDeclined, GameStart.

Same fan-out discipline as rooms: each open stream is a bounded queue written without
blocking; a stream that does not drain loses events and, past its bound, is closed.
Streams are live-only: polling endpoints recover anything missed.
"""

from __future__ import annotations

from collections import defaultdict

from playsite.rooms.fanout import QueueSubscriber
from playsite.wire.text import compact_json


class BotEvents:
    def __init__(self) -> None:
        self._streams: dict[str, list[QueueSubscriber]] = defaultdict(list)

    def open(self, bot_id: str) -> QueueSubscriber:
        subscriber = QueueSubscriber()
        self._streams[bot_id].append(subscriber)
        return subscriber

    def close(self, bot_id: str, subscriber: QueueSubscriber) -> None:
        streams = self._streams.get(bot_id, [])
        if subscriber in streams:
            streams.remove(subscriber)
        if not streams:
            self._streams.pop(bot_id, None)
        subscriber.close()

    def online(self, bot_id: str) -> bool:
        """Advisory: the bot holds at least one account stream now."""
        return bool(self._streams.get(bot_id))

    def publish(self, bot_id: str, event: dict) -> None:
        """Encode once, offer to every open stream of `bot_id`; laggards are closed."""
        text = compact_json(event)
        streams = self._streams.get(bot_id, [])
        for subscriber in list(streams):
            if not subscriber.offer(text) and subscriber.closed:
                streams.remove(subscriber)
