"""The load generator's WebSocket client: just enough of RFC 6455 to be cheap.

A general client (trio-websocket) costs the load generator more CPU per message than the
server spends on it, and on a 2-core machine the clients then measure themselves. This one
does only what the load needs: the opening handshake, text frames in, text frames out,
answering pings and closes. Frames it sends are masked with a zero key (the masking is then
the identity; any server must accept any key). Not for anything but load generation.
"""

from __future__ import annotations

import base64
import os
import struct
from urllib.parse import urlsplit

import trio

RECEIVE_BYTES = 65536
HEADER_MAX = 16384


class Closed(Exception):
    """The connection ended: `code` is the close code the server sent, or None."""

    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


class Refused(Exception):
    """The server answered the handshake with something else than 101."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Socket:
    def __init__(self, stream: trio.SocketStream, buffered: bytes) -> None:
        self._stream = stream
        self._buffer = bytearray(buffered)
        self._fragments: list[bytes] = []
        self._sending = trio.Lock()

    @classmethod
    async def connect(cls, url: str) -> Socket:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or 80
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        stream = await trio.open_tcp_stream(host, port)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            await stream.send_all(
                (
                    f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            received = bytearray()
            while b"\r\n\r\n" not in received:
                if len(received) > HEADER_MAX:
                    raise Refused(0)
                data = await stream.receive_some(RECEIVE_BYTES)
                if not data:
                    raise Closed(None)
                received += data
            head, _, rest = bytes(received).partition(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status != 101:
                raise Refused(status)
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        return cls(stream, rest)

    async def __aenter__(self) -> Socket:
        return self

    async def __aexit__(self, *exc) -> None:
        await trio.aclose_forcefully(self._stream)

    async def send(self, text: str) -> None:
        payload = text.encode()
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x81, 0x80 | size)
        elif size < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
        await self._send_frame(header + b"\0\0\0\0" + payload)

    async def _send_frame(self, frame: bytes) -> None:
        async with self._sending:
            await self._stream.send_all(frame)

    async def receive(self) -> str:
        """The next text message (pings are answered, a close raises Closed)."""
        while True:
            frame = self._next_frame()
            if frame is None:
                data = await self._stream.receive_some(RECEIVE_BYTES)
                if not data:
                    raise Closed(None)
                self._buffer += data
                continue
            fin, opcode, payload = frame
            if opcode in (0x1, 0x0):
                self._fragments.append(payload)
                if fin:
                    message = b"".join(self._fragments)
                    self._fragments = []
                    return message.decode()
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                try:
                    await self._send_frame(bytes((0x88, 0x80 | len(payload[:2]))) + b"\0\0\0\0" + payload[:2])
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                raise Closed(code)
            elif opcode == 0x9:
                await self._send_frame(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + b"\0\0\0\0" + payload)

    def _next_frame(self) -> tuple[bool, int, bytes] | None:
        buffer = self._buffer
        if len(buffer) < 2:
            return None
        first, second = buffer[0], buffer[1]
        size, offset = second & 0x7F, 2
        if size == 126:
            if len(buffer) < 4:
                return None
            size, offset = struct.unpack_from("!H", buffer, 2)[0], 4
        elif size == 127:
            if len(buffer) < 10:
                return None
            size, offset = struct.unpack_from("!Q", buffer, 2)[0], 10
        if second & 0x80:
            raise Closed(1002)  # a server never masks
        end = offset + size
        if len(buffer) < end:
            return None
        payload = bytes(buffer[offset:end])
        del buffer[:end]
        return bool(first & 0x80), first & 0x0F, payload
