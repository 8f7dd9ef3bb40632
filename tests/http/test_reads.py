"""A connection's reads reach its route with fewer trips round the event loop
(playsite/http/reads.py): hypercorn's read loop with no deadline scope when it has no read
timeout (and its own loop when it has one), and a put into a route's queue with no yield
when the queue has room."""

from __future__ import annotations

import socket
import sys

import pytest
import trio
import trio.testing
import trio_websocket
from hypercorn.config import Config
from hypercorn.trio import serve

from playsite.config import Settings
from playsite.http import reads
from playsite.server import run_http
from tests.support.asgi_socket import answer_lifespan

FAIL_AFTER = trio.fail_after.__wrapped__.__code__  # a @contextmanager: its generator function
CHANNEL_SEND = trio.MemorySendChannel.send.__code__


async def test_a_put_with_room_is_no_schedule_point_and_a_full_queue_waits():
    send, receive = trio.open_memory_channel[str](1)
    ran: list[str] = []

    async def other() -> None:
        ran.append("other")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other)
        await reads.put(send.send, "first")
        assert ran == []  # no other task ran in between
        nursery.start_soon(reads.put, send.send, "second")  # the queue is full: it waits
        await trio.testing.wait_all_tasks_blocked()
        assert ran == ["other"] and receive.statistics().tasks_waiting_send == 1
        assert [await receive.receive(), await receive.receive()] == ["first", "second"]


async def test_a_cancelled_put_queues_nothing_and_a_closed_queue_raises():
    send, receive = trio.open_memory_channel[str](1)
    with trio.CancelScope() as scope:
        scope.cancel()
        await reads.put(send.send, "never")
    assert scope.cancelled_caught and receive.statistics().current_buffer_used == 0
    await receive.aclose()
    with pytest.raises(trio.BrokenResourceError):
        await reads.put(send.send, "nobody reads")


async def test_a_put_through_any_other_send_awaits_it():
    got: list[str] = []

    async def send(message: str) -> None:
        got.append(message)

    await reads.put(send, "message")
    assert got == ["message"]


def echo_app():
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        if scope["type"] == "http":
            await receive()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (event := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": event["text"]})

    return app


async def test_playsites_server_reads_without_a_deadline_scope_and_messages_arrive_in_order():
    settings = Settings.from_environ({"PLAY_HOST": "127.0.0.1", "PLAY_PORT": "0"})
    deadline_scopes: list[str] = []
    yielding_puts: list[str] = []

    def watch(frame, event, arg) -> None:  # every Python call in this thread, while set
        if event == "call" and frame.f_code is FAIL_AFTER:
            # Entered by contextlib's __enter__, called from the `with` statement's frame.
            caller = frame.f_back.f_back if frame.f_back is not None else None
            deadline_scopes.append(caller.f_code.co_name if caller is not None else "?")
        elif event == "call" and frame.f_code is CHANNEL_SEND and frame.f_back is not None:
            yielding_puts.append(frame.f_back.f_code.co_name)

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(run_http, echo_app(), settings, trio.Event())
        url = binds[0].replace("http://", "ws://") + "/echo"
        with trio.fail_after(20):
            async with trio_websocket.open_websocket_url(url) as ws:
                sys.setprofile(watch)
                try:
                    for n in range(20):  # sent back to back: several in one read
                        await ws.send_message(f"m{n}")
                    assert [await ws.get_message() for _ in range(20)] == [f"m{n}" for n in range(20)]
                finally:
                    sys.setprofile(None)
        nursery.cancel_scope.cancel()
    assert "_read_data" not in deadline_scopes  # hypercorn's loop entered one around every read
    assert "_handle_events" not in yielding_puts  # hypercorn's handler put each message with a yield


async def test_with_a_read_timeout_hypercorns_own_loop_stops_reading_a_silent_connection():
    reads.install()
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.read_timeout = 0.2  # type: ignore[assignment]  # hypercorn types it as whole seconds
    config.keep_alive_timeout = 60
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(serve, echo_app(), config)
        host, port = binds[0].removeprefix("http://").rsplit(":", 1)
        with trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            await client.connect((host, int(port)))
            await trio.sleep(1)  # silent five times the read timeout: the server has stopped reading
            await client.send(b"GET / HTTP/1.1\r\nHost: here\r\n\r\n")
            answer = b"unanswered"
            with trio.move_on_after(0.5):  # a reading server answers in milliseconds
                answer = await client.recv(100)
            assert answer == b"unanswered"  # playsite's loop (no timeout) would have answered 200
        nursery.cancel_scope.cancel()


def text(value: str) -> dict:
    return {"type": "websocket.receive", "bytes": None, "text": value}


def test_an_inbox_hands_a_message_to_its_handler_only_while_the_route_waits():
    taken: list = []
    inbox = reads.Inbox()
    assert not inbox.take(text("before any handler"))
    inbox.handler = lambda message: taken.append(message) or True
    assert not inbox.take(text("the route is busy"))  # not waiting: the queue keeps the order
    inbox.waiting = True
    assert inbox.take(text("taken")) and inbox.take({"type": "websocket.receive", "bytes": b"raw", "text": None})
    assert taken == ["taken", b"raw"] and inbox.waiting


def test_a_declined_message_sends_the_rest_through_the_queue_until_the_route_waits_again():
    offered: list = []
    inbox = reads.Inbox()
    inbox.handler = lambda message: offered.append(message) or message != "declined"
    inbox.waiting = True
    assert not inbox.take(text("declined"))
    assert not inbox.waiting  # the declined message is queued: the next ones queue behind it
    assert not inbox.take(text("after it"))
    assert offered == ["declined"]
