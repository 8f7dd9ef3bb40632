"""`install()`: hypercorn fails a WebSocket connection with a Close frame, as RFC 6455 7.1.7 asks.

When a client sends a frame wsproto cannot accept (an unmasked frame, a reserved opcode or
bit, a bad close code, invalid UTF-8 in a text message), wsproto reports it as a
`CloseConnection` event carrying the code (1002, 1007, ...) while the connection is still
open. hypercorn 0.18 only answers a close the peer *sent*, so in that case it dropped the
TCP connection without a Close frame, and the client saw 1006 and no reason.

`install` replaces hypercorn's handling of received WebSocket events with one that is the
same for messages, pings and the peer's own close, and for a frame that failed to parse
sends the Close frame with wsproto's code before ending the stream (a finished message goes
to the route through `reads.deliver`: its inbox, or its queue with no yield when it has room). Called once by
`server.run_http`; tests/e2e/test_connections.py holds hypercorn to it.

It also bounds a message by its frame headers. wsproto learns a frame's length from its
header but hands its payload on as it comes, and hypercorn only counts what it has been
handed, so a header declaring 2^62 bytes was answered by nothing at all (the server waited
for the payload), and a big frame was read on long after the limit. A server-side frame
whose header declares more than the message limit (counting the frames before it of the
same message) now fails at the header, before any of its payload is read: wsproto's parse
failure with 1009, so the stream sends the Close frame at once and ends.
"""

from __future__ import annotations

from collections.abc import Callable

from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.ws_stream import FrameTooLargeError, WSStream
from wsproto.connection import ConnectionState
from wsproto.events import CloseConnection, Message, Ping
from wsproto.frame_protocol import CloseReason, FrameDecoder, Opcode, ParseFailed

from playsite.http.pinned import require_hypercorn
from playsite.http.reads import deliver


async def _handle_events(stream: WSStream) -> None:
    for event in stream.connection.events():
        if isinstance(event, Message):
            try:
                stream.buffer.extend(event)
            except FrameTooLargeError:
                await stream._send_wsproto_event(CloseConnection(code=CloseReason.MESSAGE_TOO_BIG))
                break
            if event.message_finished:
                message = stream.buffer.to_message()
                stream.buffer.clear()
                await deliver(stream, message)
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


_parse_header = FrameDecoder.parse_header


def _bounded_parse_header(max_message_bytes: int) -> Callable[[FrameDecoder], bool]:
    """wsproto's header parse, then the message limit checked against the declared length
    (a message's continuation frames counted with its first)."""

    def parse_header(decoder: FrameDecoder) -> bool:
        if not _parse_header(decoder):
            return False
        header = decoder.header
        if decoder.client or header is None or header.opcode.iscontrol():
            return True
        before = getattr(decoder, "_declared", 0) if header.opcode is Opcode.CONTINUATION else 0
        declared = before + header.payload_len
        setattr(decoder, "_declared", declared)  # read back by the next frame's header of this message
        if declared > max_message_bytes:
            raise ParseFailed(f"message over {max_message_bytes} bytes", CloseReason.MESSAGE_TOO_BIG)
        return True

    return parse_header


def install(max_message_bytes: int | None = None) -> None:
    """Patch hypercorn's event handling; with `max_message_bytes`, refuse bigger messages at their headers."""
    require_hypercorn("http.wsfail")
    # Patches of hypercorn's and wsproto's classes (the version is pinned above): setattr, as they
    # are no assignments the type checker could verify.
    setattr(WSStream, "_handle_events", _handle_events)
    parse_header = _parse_header if max_message_bytes is None else _bounded_parse_header(max_message_bytes)
    setattr(FrameDecoder, "parse_header", parse_header)
