"""ndjson streams (the lines of /bot/stream/event and /bot/game/stream/{id}; routes in stream_routes).

Each line is one compact JSON object (the same text the room encodes once for every
subscriber); a blank line is a keep-alive sent after a silence of the configured interval
(`PLAY_NDJSON_KEEPALIVE_MS`, default 25 s, the ecosystem's keep-alive). Streams
are live-only: a bot that lost its connection resyncs from the Snapshot of a new game
stream, or by polling (`GET /bot/games`, `GET /games/{id}`, `GET /games/{id}/moves`).

A stream is a `QueueSubscriber` like every other transport: the room offers it events
without waiting; a client that does not read loses events and, past the drop bound, is
detached, so it never stalls a game. The game stream ends after `GameEnded`; both end
when the client goes away (quart-trio cancels the response body, which detaches it).

The first line tells the client it is subscribed: the game stream's Snapshot, and a blank
line on the account stream (response headers are sent before the body starts, so they
do not prove the subscription yet).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import trio

from playsite.bots.events import BotEvents
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Attach, Detach
from playsite.rooms.room import Room
from playsite.stopping import Stopping

DETACH_TIMEOUT_S = 5
NDJSON = "application/x-ndjson"
KEEPALIVE_LINE = b"\n"
_GAME_ENDED_PREFIX = '{"GameEnded"'


async def account_lines(events: BotEvents, bot_id: str, keepalive: float, stopping: Stopping) -> AsyncIterator[bytes]:
    """The bot's account events until it disconnects (or lags past its bound).

    The first line is a blank keep-alive, sent once the subscription is live: a bot that
    has read it knows it will hear about a challenge it creates next.
    """
    subscriber = events.open(bot_id)
    try:
        yield KEEPALIVE_LINE
        async for line in queued_lines(subscriber, keepalive, stopping):
            yield line
    finally:
        events.close(bot_id, subscriber)


async def game_lines(room: Room, keepalive: float, stopping: Stopping, *, seated: bool = False) -> AsyncIterator[bytes]:
    """Snapshot, then the room's events until GameEnded; Detach however it ends. `seated`: the
    caller sits in this game, and reads it as its seat's socket does, legal-move trees
    included (it is not attached as that seat: its presence is not the stream's)."""
    subscriber = QueueSubscriber(None, trees=seated)
    attach = Attach(subscriber)
    if not (await room.send(attach) and await attach.reply.wait()):
        # The game's task is gone: its final state is all there is to say.
        yield room.snapshot_text().encode() + b"\n"
        return
    try:
        async for line in queued_lines(subscriber, keepalive, stopping):
            yield line
            if line.startswith(_GAME_ENDED_PREFIX.encode()):
                return
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT_S):
            await room.send(Detach(subscriber))


async def queued_lines(subscriber: QueueSubscriber, keepalive: float, stopping: Stopping) -> AsyncIterator[bytes]:
    """Each queued text as a line, a blank line after `keepalive` s of silence; ends with the
    queue, or when the server stops (the body then ends cleanly: reconnect for a Snapshot)."""
    while True:
        text = None
        with trio.move_on_after(keepalive) as wait, stopping.ends(wait):
            try:
                text = await subscriber.events.receive()
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return
        if stopping.begun:
            return
        # Never yield inside the cancel scope: the consumer runs while we are suspended.
        yield KEEPALIVE_LINE if text is None else text.encode() + b"\n"
