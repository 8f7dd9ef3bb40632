"""A game socket's frames to its room: a seat's commands, one at a time and in order.

The room's answer to a command is not waited for as soon as the command is sent, but when
the socket's next frame comes (it nearly always has been answered by then): so one command of
a socket is in the room at a time, and the answer to a turn wakes no task. An ignored seed is
answered on this socket alone, so it is waited for.

A frame is taken two ways. Under hypercorn, while the socket's reader waits with nothing
queued, the connection's reading task hands the frame to `take` there and then
(http/reads.py's `Inbox`): a turn reaches the room without waking the reader. `take` declines
what would have to wait (the command before it still unanswered, a seed, a full room queue);
the reader (`read`) then gets that frame, and those after it, through its queue, in order.
A spectator's frame, or a malformed one, is answered with an `Error` frame either way.

Every frame is paced first (`FramePace`, games/socket_limits.py): past its burst, a socket's
frame waits in the reader for its turn, and `take` declines it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from playsite.games.socket_limits import FramePace
from playsite.games.socket_subscriber import SocketSubscriber
from playsite.rooms.intents import PlayerCommand, Reply, Verdict
from playsite.rooms.room import Room
from playsite.wire import SubmitSeed, WireError, decode_command, encode_error


class SocketCommands:
    """The commands of one game socket (its subscriber's seat; none for a spectator)."""

    def __init__(self, room: Room, subscriber: SocketSubscriber, scope: trio.CancelScope, pace: FramePace) -> None:
        self.room = room
        self.subscriber = subscriber
        self.scope = scope
        """The socket's serving scope, cancelled once the room has finished."""
        self.pace = pace
        self.previous: Reply[Verdict] | None = None
        """The answer to the last command sent, when not yet looked at."""
        self.prepaid = False
        """`take` paid the pace for a frame and then declined it: the reader gets it next."""

    def take(self, frame: str | bytes) -> bool:
        """Handle a frame at once (the inbox's handler): False, having done nothing, when it
        would have to wait for the room's answer to the command before, or to its own (a seed),
        or for room in the room's queue, or for its pace."""
        if self.scope.cancel_called or not self._answered() or not self.pace.take_now():
            return False
        intent = self._intent(frame)
        if intent is None:
            return True
        if isinstance(intent.command, SubmitSeed):
            self.prepaid = True
            return False
        try:
            if not self.room.send_nowait(intent):
                self.scope.cancel()  # the room has finished: the socket closes
                return True
        except trio.WouldBlock:
            self.prepaid = True
            return False
        self.previous = intent.reply
        return True

    async def read(self, receive: Callable[[], Awaitable[str | bytes]]) -> None:
        """The socket's reader: each frame that was not taken at once, in order (`receive`
        is the route's)."""
        while True:
            frame = await receive()
            if self.prepaid:
                self.prepaid = False
            else:
                await self.pace.take()
            if self.previous is not None and not self.previous.ready:
                await self.previous.wait()
            self.previous = None
            intent = self._intent(frame)
            if intent is None:
                continue
            if not await self.room.send(intent):
                self.scope.cancel()
                return
            if not isinstance(intent.command, SubmitSeed):
                self.previous = intent.reply
                continue
            verdict = await intent.reply.wait()
            # A refused turn or draw answer is the room's event: a Rejected, versioned, sent to
            # every subscriber. An ignored seed is no event: this socket alone is told.
            if not verdict.applied:
                self.subscriber.offer(encode_error(verdict.reason or "seed ignored"))

    def _answered(self) -> bool:
        """Whether the room has answered the last command (which is then forgotten)."""
        if self.previous is not None:
            if not self.previous.ready:
                return False
            self.previous = None
        return True

    def _intent(self, frame: str | bytes) -> PlayerCommand | None:
        """The seat's command in the frame, or None when the frame is answered here with an
        Error frame (a spectator's, or malformed)."""
        seat = self.subscriber.seat
        if seat is None:
            self.subscriber.offer(encode_error("spectators cannot send commands"))
            return None
        try:
            return PlayerCommand(seat, decode_command(frame))
        except WireError as error:
            self.subscriber.offer(encode_error(error.reason))
            return None
