"""`install()`: hypercorn fails a WebSocket connection with a Close frame, as RFC 6455 7.1.7 asks.

When a client sends a frame wsproto cannot accept (an unmasked frame, a reserved opcode or
bit, a bad close code, invalid UTF-8 in a text message), wsproto reports it as a
`CloseConnection` event carrying the code (1002, 1007, ...) while the connection is still
open. hypercorn 0.18 only answers a close the peer *sent*, so in that case it dropped the
TCP connection without a Close frame, and the client saw 1006 and no reason.

`install` replaces hypercorn's handling of received WebSocket events with one that is the
same for messages, pings and the peer's own close, and for a frame that failed to parse
sends the Close frame with wsproto's code before ending the stream. Called once by
`server.run_http`; tests/e2e/test_connections.py holds hypercorn to it.
"""

from __future__ import annotations

from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.ws_stream import FrameTooLargeError, WSStream
from wsproto.connection import ConnectionState
from wsproto.events import CloseConnection, Message, Ping
from wsproto.frame_protocol import CloseReason


async def _handle_events(stream: WSStream) -> None:
    for event in stream.connection.events():
        if isinstance(event, Message):
            try:
                stream.buffer.extend(event)
            except FrameTooLargeError:
                await stream._send_wsproto_event(CloseConnection(code=CloseReason.MESSAGE_TOO_BIG))
                break
            if event.message_finished:
                await stream.app_put(stream.buffer.to_message())
                stream.buffer.clear()
        elif isinstance(event, Ping):
            await stream._send_wsproto_event(event.response())
        elif isinstance(event, CloseConnection):
            if stream.connection.state is ConnectionState.REMOTE_CLOSING:
                await stream._send_wsproto_event(event.response())  # the peer closed: answer it
            elif stream.connection.state is ConnectionState.OPEN:
                # Nothing was received: the event is wsproto's verdict on a bad frame.
                await stream._send_wsproto_event(CloseConnection(code=event.code))
            await stream.send(StreamClosed(stream_id=stream.stream_id))
            break


def install() -> None:
    WSStream._handle_events = _handle_events
