"""Several texts handed to hypercorn at once still reach the client as separate messages, in order."""

from __future__ import annotations

import trio

from playsite.http.wsbatch import SEND_KEY, SEND_TEXTS
from tests.support.asgi_socket import accepting, read_all

TEXTS = ["first", "é, then a second", "x" * 70_000]
"""A long one too: its frame header carries a 64-bit length."""


async def test_texts_sent_at_once_arrive_as_separate_messages_in_order():
    finished = trio.Event()
    sent_after_close: list[bool] = []

    @accepting
    async def app(scope, send):
        await scope[SEND_KEY]({"type": SEND_TEXTS, "texts": TEXTS})
        await scope[SEND_KEY]({"type": SEND_TEXTS, "texts": ["last"]})
        await send({"type": "websocket.close", "code": 1000})
        # After the close a send is dropped quietly, as hypercorn drops a single message.
        await scope[SEND_KEY]({"type": SEND_TEXTS, "texts": ["after the close"]})
        sent_after_close.append(True)
        finished.set()

    received, code = await read_all(app, finished)
    assert received == [*TEXTS, "last"]
    assert code == 1000
    assert sent_after_close == [True]


async def test_frames_the_kernel_cannot_take_at_once_wait_and_keep_their_order():
    """A client that does not read yet: the socket's buffer fills, the rest of a write waits
    under the connection's lock, and every message still arrives whole and in order."""
    texts = [f"{i:04d}" + "y" * 100_000 for i in range(40)]

    @accepting
    async def app(scope, send):
        for first in range(0, len(texts), 2):
            await scope[SEND_KEY]({"type": SEND_TEXTS, "texts": texts[first:first + 2]})
        await send({"type": "websocket.close", "code": 1000})

    received, code = await read_all(app, reading_after_s=0.5)  # the server's writes fill the buffers meanwhile
    assert received == texts and code == 1000


def test_a_text_framed_once_is_the_frame_wsproto_writes():
    from wsproto import ConnectionType
    from wsproto.connection import Connection
    from wsproto.events import TextMessage

    from playsite.http.wsbatch import frame

    connection = Connection(ConnectionType.SERVER)
    for text in ["", "a", "é" * 62, "x" * 125, "x" * 126, "ü" * 40_000, "x" * 65_535, "x" * 65_536, "x" * 70_000]:
        assert frame(text) == connection.send(TextMessage(data=text))
        assert frame(text) == connection.send(TextMessage(data=text))  # the kept frame too


def test_frames_kept_are_bounded_in_bytes():
    from playsite.http.wsbatch import KeptFrames

    kept = KeptFrames(limit_bytes=1000)
    first = kept.frame("a" * 400)
    assert kept.frame("a" * 400) is first  # kept
    kept.frame("b" * 400)
    kept.frame("c" * 400)  # past the limit: the kept ones are dropped
    assert kept.size <= 1000 and list(kept.frames) == ["c" * 400]
    assert kept.frame("a" * 400) == first  # made again, the same bytes
