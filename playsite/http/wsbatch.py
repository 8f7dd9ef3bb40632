"""Several WebSocket text messages of one socket handed to hypercorn, and written, at once.

An ASGI `websocket.send` carries one message. Through hypercorn each one takes its own way to
the socket: wsproto's framing, the connection's send lock and a socket write, the last two
each a trip round trio's event loop, and a system call. A turn queues two events on every
socket of its game (`TurnPlayed`, then `DiceRolled`), so the frames of one socket usually
come in pairs; sending a pair as one write halves the trips, writes and calls per socket.

- `install()` teaches hypercorn's WebSocket stream one more message type, SEND_TEXTS
  (`{"type": SEND_TEXTS, "texts": [...]}`): each text becomes its own frame, exactly as if
  sent one by one, and the frames go out in one write. `server.run_http` installs it.
- `expose(app)` wraps the ASGI app so a WebSocket scope carries hypercorn's own `send` under
  SEND_KEY: a route under quart reaches it through `websocket.scope`. Where the key is
  missing (quart's test client) the route sends its texts one at a time.
- Each text is framed once for every socket it goes to (a room offers the same text to all
  the sockets of an audience): a frame without extensions is the same bytes on every
  connection, so it is made once and kept for the next sockets (`frame`); a connection that
  negotiated an extension (permessage-deflate) frames through wsproto, per connection.
- The write itself takes no trip round the event loop when it can: with the connection's send
  lock free, the frames go to the socket at once (`os.write` on its non-blocking descriptor);
  only what the kernel does not take then waits, under that lock, as hypercorn's own write
  does. Through hypercorn the lock and the write were a trip each, for every socket of a
  game at every turn.
- `DirectWriter` goes one step further for a socket whose own task has nothing to send: the
  task that publishes (a room) writes the frames itself, synchronously, so the socket's task
  is not woken at all. What the kernel does not take at once is owed: the connection's lock
  stays taken, and the socket's own task writes the rest (`pay`) before anything else goes
  out. A trio.Lock may only be released by the task that took it, so the connection's lock
  is replaced by `HandoffLock`, which another task may release.
"""

from __future__ import annotations

import os
import struct
from types import TracebackType
from typing import Final, Literal, TypedDict, cast

import trio
from hypercorn.events import Closed, RawData
from hypercorn.protocol.events import Data
from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.typing import ASGIFramework, ASGIReceiveCallable, ASGISendCallable, ASGISendEvent, Scope
from wsproto.connection import Connection, ConnectionState
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

from playsite.http.pinned import require_hypercorn

SEND_TEXTS: Final = "playsite.websocket.send_texts"
FRAMES_KEPT_BYTES = 4 * 1024 * 1024
"""Frames kept for the sockets still to be sent the same text, in bytes (a seat's DiceRolled
may carry a tree of tens of KB): far more than a burst of publications makes before every
socket has taken its frames. Past it they are all dropped, and made again when asked for."""
SEND_KEY = "playsite.send"
"""Where a WebSocket scope carries the server's `send`, which takes SEND_TEXTS messages."""


class SendTexts(TypedDict):
    type: Literal["playsite.websocket.send_texts"]
    texts: list[str]


_hypercorn_app_send = WSStream.app_send


async def _app_send(stream: WSStream, message: ASGISendEvent | SendTexts | None) -> None:
    if message is None or message["type"] != SEND_TEXTS:
        return await _hypercorn_app_send(stream, message)
    if not _open(stream):
        return  # after the close, or while closing: as hypercorn (wsproto) does for one message
    connection = stream.connection
    if _plain(connection):
        data = _frames(message["texts"])
    else:
        try:
            data = b"".join([connection.send(TextMessage(data=text)) for text in message["texts"]])
        except LocalProtocolError:
            return
    server = _server_of(stream)
    if server is None:
        await stream.send(Data(stream_id=stream.stream_id, data=data))
    else:
        await _write(server, data)


class KeptFrames:
    """The frames of the texts sent lately, up to FRAMES_KEPT_BYTES, by text."""

    def __init__(self, limit_bytes: int = FRAMES_KEPT_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self.frames: dict[str, bytes] = {}
        self.size = 0

    def frame(self, text: str) -> bytes:
        made = self.frames.get(text)
        if made is None:
            made = _framed(text)
            if self.size + len(made) > self.limit_bytes:
                self.frames.clear()
                self.size = 0
            self.frames[text] = made
            self.size += len(made)
        return made


def _framed(text: str) -> bytes:
    """A server's unmasked, final text frame of `text` (RFC 6455 5.2), as wsproto writes it
    without extensions."""
    payload = text.encode()
    size = len(payload)
    if size < 126:
        header = bytes((0x81, size))
    elif size < 65536:
        header = struct.pack("!BBH", 0x81, 126, size)
    else:
        header = struct.pack("!BBQ", 0x81, 127, size)
    return header + payload


_kept = KeptFrames()
frame = _kept.frame
"""The frame of a text, made once for all the sockets the same text goes to."""


def _frames(texts: list[str]) -> bytes:
    return b"".join([frame(text) for text in texts])


def _open(stream: WSStream) -> bool:
    """The WebSocket is accepted and neither side has begun to close it."""
    return (
        not stream.closed and stream.state is ASGIWebsocketState.CONNECTED
        and stream.connection.state is ConnectionState.OPEN
    )


def _plain(connection: Connection) -> bool:
    """A server connection with no extension, between messages: its frames are `frame`'s.
    (wsproto keeps both in its frame protocol, which it does not expose.)"""
    protocol = getattr(connection, "_proto", None)
    return (
        protocol is not None and not protocol.extensions and protocol._outbound_opcode is None
        and not protocol.client
    )


def _server_of(stream: WSStream) -> TCPServer | None:
    """The connection under a WebSocket stream over HTTP/1.1 (hypercorn's H11Protocol hands the
    stream its `stream_send`, and is handed the TCPServer's `protocol_send`), when it is a
    plain TCP socket; None otherwise (TLS, HTTP/2), where hypercorn's own path writes."""
    protocol = getattr(stream.send, "__self__", None)
    server = getattr(getattr(protocol, "send", None), "__self__", None)
    if isinstance(server, TCPServer) and isinstance(server.stream, trio.SocketStream):
        return server
    return None


async def _write(server: TCPServer, data: bytes) -> None:
    """What hypercorn's `TCPServer.protocol_send` does with raw data, without its two trips
    round the event loop when the lock is free and the kernel takes every byte."""
    stream = cast(trio.SocketStream, server.stream)
    lock = server.send_lock
    if lock.locked():
        await server.protocol_send(RawData(data=data))  # queued behind the write in progress
        return
    lock.acquire_nowait()
    try:
        try:
            written = os.write(stream.socket.fileno(), data)
        except BlockingIOError:
            written = 0
        except OSError:
            await server.protocol.handle(Closed())
            return
        if written < len(data):
            await _send_rest(server, data[written:])
    finally:
        lock.release()


async def _send_rest(server: TCPServer, rest: bytes) -> None:
    """What the kernel did not take at once, under the connection's lock (held by the caller):
    waited for, uncancelled, as hypercorn writes; a broken connection is closed."""
    try:
        with trio.CancelScope(shield=True):
            await cast(trio.SocketStream, server.stream).send_all(rest)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        await server.protocol.handle(Closed())


class HandoffLock:
    """A connection's send lock that the task finishing a write may release although another
    took it (trio.Lock refuses that): what hypercorn's `TCPServer.protocol_send` and `_write`
    need of a lock, on a semaphore of one."""

    def __init__(self) -> None:
        self._free = trio.Semaphore(1)

    def locked(self) -> bool:
        return self._free.value == 0

    def acquire_nowait(self) -> None:
        self._free.acquire_nowait()

    def release(self) -> None:
        self._free.release()

    async def __aenter__(self) -> None:
        await self._free.acquire()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._free.release()


class DirectWriter:
    """Writes a socket's frames from whichever task publishes them, without waiting."""

    def __init__(self, stream: WSStream, server: TCPServer) -> None:
        self.stream = stream
        self.server = server
        self.owed: bytes | None = None
        """Bytes of a write the kernel did not take, still to go out before anything else."""

    @classmethod
    def of(cls, send: object) -> DirectWriter | None:
        """The writer of the socket whose hypercorn `send` (SEND_KEY) this is; None where the
        route cannot write directly (quart's test client, TLS, HTTP/2), or the connection is
        writing right now (the lock is then not replaced under a waiting writer)."""
        stream = getattr(send, "__self__", None)
        if not isinstance(stream, WSStream):
            return None
        server = _server_of(stream)
        if server is None:
            return None
        lock = server.send_lock
        if not isinstance(lock, HandoffLock):
            if lock.locked() or lock.statistics().tasks_waiting:
                return None
            # Nobody holds or waits on the old lock: no task can be left holding it.
            setattr(server, "send_lock", HandoffLock())
        return cls(stream, server)

    def write_now(self, texts: list[str]) -> bool:
        """Write the texts' frames at once if the connection is free, never waiting: True when
        they are taken (every byte went to the kernel, or the rest is `owed`, the connection's
        lock held till `pay`), False when nothing was written (the connection is busy, closing
        or not plain, or the kernel took nothing): send them the usual way."""
        stream, server = self.stream, self.server
        if not _open(stream) or not _plain(stream.connection):
            return False
        lock = server.send_lock
        if lock.locked():
            return False
        data = _frames(texts)
        lock.acquire_nowait()
        try:
            written = os.write(cast(trio.SocketStream, server.stream).socket.fileno(), data)
        except OSError:  # BlockingIOError, or a broken connection: the usual way meets it and closes
            lock.release()
            return False
        if written < len(data):
            self.owed = data[written:]
        else:
            lock.release()
        return True

    async def pay(self) -> None:
        """Write what is owed (waiting for the kernel), then free the connection's lock."""
        owed, self.owed = self.owed, None
        if owed is None:
            return
        try:
            await _send_rest(self.server, owed)
        finally:
            self.server.send_lock.release()


def install() -> None:
    require_hypercorn("http.wsbatch")
    # A patch of hypercorn's class (the version is pinned above): setattr, as it is no
    # assignment the type checker could verify.
    setattr(WSStream, "app_send", _app_send)


def expose(app: ASGIFramework) -> ASGIFramework:
    async def asgi(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if scope["type"] == "websocket":
            # An ASGI scope is an open dict; hypercorn's type lists only the standard keys.
            scope = cast(Scope, {**scope, SEND_KEY: send})
        return await app(scope, receive, send)

    return asgi
