"""A game socket's events written by the publisher itself while the socket's task is parked:
over a real hypercorn connection, they arrive whole and in order with what was queued."""

from __future__ import annotations

import trio
import trio.testing

from playsite.games.socket_subscriber import SocketSubscriber
from playsite.http.wsbatch import SEND_KEY, SEND_TEXTS, DirectWriter, HandoffLock
from tests.support.asgi_socket import accepting, read_all


def socket_app(seat: str | None, publish):
    """An app whose socket has a SocketSubscriber and its task, as the game socket's; once the
    task is parked, `publish(subscriber)` runs (in the app's task, as a room's), then the queue
    is closed and the socket after it."""

    @accepting
    async def app(scope, send):
        subscriber = SocketSubscriber(seat)
        subscriber.writer = DirectWriter.of(scope[SEND_KEY])
        assert subscriber.writer is not None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_pump, subscriber, scope)
            await trio.testing.wait_all_tasks_blocked()
            await publish(subscriber)
            subscriber.close()
        await send({"type": "websocket.close", "code": 1000})

    return app


async def _pump(subscriber: SocketSubscriber, scope) -> None:
    while (texts := await subscriber.next_texts()) is not None:
        await scope[SEND_KEY]({"type": SEND_TEXTS, "texts": texts})


async def test_a_parked_socket_is_written_by_the_publisher_without_waking_its_task():
    published: list[bool] = []

    async def publish(subscriber):
        assert subscriber.parked
        assert subscriber.offer_all(["TurnPlayed", "DiceRolled"]) == 2
        published.append(subscriber.parked)  # still asleep: the texts went out directly
        assert subscriber.offer_all(["GameEnded"]) == 1

    received, code = await read_all(socket_app("White", publish))
    assert received == ["TurnPlayed", "DiceRolled", "GameEnded"] and code == 1000
    assert published == [True]


async def test_what_is_queued_goes_before_a_later_direct_write():
    """The socket's task has taken a queued text but not written it yet: the next texts queue
    behind it rather than overtake it."""

    async def publish(subscriber):
        subscriber.offer("Snapshot")  # hands it to the parked task, which has not run yet
        assert not subscriber.parked
        assert subscriber.offer_all(["DiceRolled"]) == 1
        await trio.testing.wait_all_tasks_blocked()
        assert subscriber.offer_all(["TurnPlayed"]) == 1

    received, _ = await read_all(socket_app(None, publish))
    assert received == ["Snapshot", "DiceRolled", "TurnPlayed"]


async def test_a_direct_write_the_kernel_takes_in_part_is_finished_by_the_socket_task_first():
    """A client that does not read yet: the kernel's buffer fills during a direct write, the
    connection's lock stays taken, and the socket's task writes the rest before what follows."""
    texts = [f"{i:04d}" + "y" * 100_000 for i in range(60)]
    owed: list[bool] = []

    async def publish(subscriber):
        assert subscriber.offer_all(texts[:40]) == 40  # 4 MB: far more than the kernel takes unread
        owed.append(subscriber.writer.owed is not None)
        assert subscriber.offer_all(texts[40:]) == 20  # queued behind the rest

    received, code = await read_all(socket_app("Black", publish), reading_after_s=0.5)
    assert owed == [True]
    assert received == texts and code == 1000


async def test_the_connection_lock_is_replaced_by_one_another_task_may_release():
    @accepting
    async def app(scope, send):
        writer = DirectWriter.of(scope[SEND_KEY])
        assert writer is not None and isinstance(writer.server.send_lock, HandoffLock)
        assert DirectWriter.of(scope[SEND_KEY]).server.send_lock is writer.server.send_lock  # replaced once
        writer.server.send_lock.acquire_nowait()  # a write in progress elsewhere
        assert not writer.write_now(["not now"])
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_release_from_another_task, writer.server.send_lock)
        assert writer.write_now(["now"]) and writer.owed is None
        await send({"type": "websocket.close", "code": 1000})

    received, code = await read_all(app)
    assert received == ["now"] and code == 1000


async def _release_from_another_task(lock: HandoffLock) -> None:
    lock.release()
