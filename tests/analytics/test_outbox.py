"""The analytics outbox pump against a real HTTP receiver (tests/support/receiver.py).

Real clock throughout: the receiver is a real socket server in a thread, and the memory
store schedules retries on the wall clock. Timings are shrunk through `OutboxPolicy`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from functools import partial
from datetime import datetime, timedelta, timezone

import httpx
import psycopg
import pytest
import trio

from playsite.analytics import OutboxPolicy, OutboxPump, parse_retry_after, retry_delay, run_outbox_pump
from playsite.config import Settings
from playsite.store.base import GameEnding, GameWrite, ResultRow
from playsite.store.database import Database, DatabaseUnavailable
from playsite.store.memory import MemoryStore
from playsite.store.migrations import apply_pending, load_migrations
from playsite.store.postgres import PostgresStore
from tests.support.receiver import AnalyticsReceiver, Reply

TOKEN = "analytics-token-7f3a9c"
PAYLOAD_MARKER = "team-marker/bot-9d1e"
"""A bot name inside every payload: the log must never show it (no payload in logs)."""

FAST = OutboxPolicy(poll_interval_s=0.01, request_timeout_s=2.0, backoff_base_s=0.05, backoff_cap_s=600.0)
WAIT_S = 8


def settings_for(url: str, token: str | None = TOKEN) -> Settings:
    return Settings(
        persistence_enabled=True,
        database_url="postgresql://localhost/unused",
        analytics_enabled=True,
        analytics_url=url,
        analytics_token=token,
    )


def game_end(game_id: str | None = None) -> tuple[GameWrite, GameEnding]:
    """A terminal write as a room would hand it to the store (see playsite/rooms/writes.py)."""
    game_id = game_id or str(uuid.uuid4())
    finished = datetime(2025, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    time_control = {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}
    white = f"guest:{uuid.uuid4()}"
    write = GameWrite(
        game_id=game_id,
        version=42,
        status="ended",
        origin="friend",
        durability="required",
        rated=False,
        snapshot={"gameId": game_id, "version": 42},
        seats={"White": (hashlib.sha256(b"white").digest(), white), "Black": (hashlib.sha256(b"black").digest(), None)},
    )
    result = ResultRow(
        game_id=game_id,
        finished_at=finished,
        rated=False,
        origin="friend",
        white_principal=white,
        black_principal=None,
        result=1,
        termination="king_captured",
        time_control=time_control,
    )
    payload = {
        "source": "playsite",
        "gameId": game_id,
        "finishedAt": "2025-05-01T12:00:00Z",
        "rated": False,
        "origin": "friend",
        "timeControl": time_control,
        "players": {"white": {"kind": "Human", "name": None}, "black": {"kind": "Bot", "name": PAYLOAD_MARKER}},
        "result": 1,
        "termination": "king_captured",
        "turns": 23,
    }
    ending = GameEnding(
        result=result, archive={"gameId": game_id}, outbox_key=f"game:{game_id}", outbox_payload=payload
    )
    return write, ending


async def ended_games(store, count: int = 1) -> list[GameEnding]:
    endings = []
    for _ in range(count):
        write, ending = game_end()
        await store.finish_game(write, ending)
        endings.append(ending)
    return endings


async def wait_until(condition, what: str, timeout: float = WAIT_S) -> None:
    with trio.move_on_after(timeout):
        while not condition():
            await trio.sleep(0.01)
        return
    raise AssertionError(f"timed out waiting for {what}")


def no_secret_or_payload_logged(caplog) -> None:
    assert TOKEN not in caplog.text
    assert PAYLOAD_MARKER not in caplog.text


# --- policy values -------------------------------------------------------------------------


def test_retry_delay_doubles_from_the_base_up_to_the_cap():
    policy = OutboxPolicy(backoff_base_s=1.0, backoff_cap_s=600.0)
    assert [retry_delay(n, policy) for n in range(12)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600]
    assert retry_delay(10_000, policy) == 600


def test_retry_after_is_a_lower_bound_under_the_cap():
    policy = OutboxPolicy(backoff_base_s=1.0, backoff_cap_s=600.0)
    assert retry_delay(0, policy, retry_after_s=30) == 30
    assert retry_delay(6, policy, retry_after_s=30) == 64
    assert retry_delay(0, policy, retry_after_s=86_400) == 600


def test_parse_retry_after_reads_seconds_and_http_dates():
    now = datetime(2025, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("120") == 120
    assert parse_retry_after("Thu, 01 May 2025 12:00:30 GMT", now) == 30
    assert parse_retry_after("Thu, 01 May 2025 11:00:00 GMT", now) == 0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-5") is None


# --- (a) accepted -----------------------------------------------------------------------------


async def test_accepted_payload_is_delivered_exactly_once_with_key_source_and_token(caplog):
    store = MemoryStore()
    [ending] = await ended_games(store)
    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=FAST))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            await trio.sleep(0.2)  # many more poll intervals: nothing is sent again
            nursery.cancel_scope.cancel()

    [seen] = receiver.seen
    assert seen.path == "/api/games"
    assert seen.query == {"source": ["playsite"]}
    assert seen.headers["idempotency-key"] == ending.outbox_key == f"game:{ending.outbox_payload['gameId']}"
    assert seen.headers["authorization"] == f"Bearer {TOKEN}"
    assert seen.headers["content-type"] == "application/json"
    assert json.loads(seen.body) == ending.outbox_payload
    assert receiver.stored == {ending.outbox_key: ending.outbox_payload}
    assert receiver.stored[ending.outbox_key]["source"] == "playsite"
    assert (pump.counters.delivered, pump.counters.failed, pump.counters.last_error) == (1, 0, None)
    assert store.outbox[ending.outbox_key].attempts == 0
    no_secret_or_payload_logged(caplog)


async def test_url_prefix_is_kept_and_no_token_means_no_authorization_header():
    store = MemoryStore()
    [ending] = await ended_games(store)
    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            settings = settings_for(receiver.url + "/ingest/", token=None)
            await nursery.start(partial(run_outbox_pump, store, settings, policy=FAST))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    [seen] = receiver.seen
    assert seen.path == "/ingest/api/games"
    assert "authorization" not in seen.headers


async def test_a_full_backlog_is_delivered_in_batches():
    store = MemoryStore()
    endings = await ended_games(store, 12)
    policy = OutboxPolicy(batch_size=5, poll_interval_s=0.01, request_timeout_s=2.0, backoff_base_s=0.05)
    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=policy))
            await wait_until(lambda: pump.counters.delivered == 12, "12 deliveries")
            nursery.cancel_scope.cancel()
    assert set(receiver.stored) == {e.outbox_key for e in endings}
    assert len(receiver.seen) == 12


# --- (b) transient failures, then accepted ------------------------------------------------------


async def test_server_errors_are_retried_with_exponential_backoff_then_delivered(caplog):
    caplog.set_level(logging.WARNING, logger="playsite.analytics")
    store = MemoryStore()
    [ending] = await ended_games(store)
    policy = OutboxPolicy(poll_interval_s=0.01, request_timeout_s=2.0, backoff_base_s=0.1, backoff_cap_s=600.0)
    with AnalyticsReceiver(lambda n, key: Reply(status=500) if n < 3 else None) as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=policy))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()

    row = store.outbox[ending.outbox_key]
    assert row.attempts == 3
    assert row.last_error == "HTTP 500"
    assert [s.status for s in receiver.seen] == [500, 500, 500, 201]
    gaps = [later.at - earlier.at for earlier, later in zip(receiver.seen, receiver.seen[1:])]
    for gap, backoff in zip(gaps, (0.1, 0.2, 0.4)):
        assert gap >= backoff - 0.01, (gaps, "retried before its backoff")
    assert (pump.counters.delivered, pump.counters.failed) == (1, 3)
    failures = [r for r in caplog.records if r.name == "playsite.analytics"]
    assert len(failures) == 3  # one line per failure
    assert all(ending.outbox_key in r.getMessage() and "HTTP 500" in r.getMessage() for r in failures)
    no_secret_or_payload_logged(caplog)


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_is_honoured(status):
    store = MemoryStore()
    [ending] = await ended_games(store)
    script = lambda n, key: Reply(status=status, headers={"Retry-After": "1"}) if n == 0 else None  # noqa: E731
    with AnalyticsReceiver(script) as receiver:
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=FAST))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    first, second = receiver.seen
    assert second.at - first.at >= 0.99  # not the 0.05 s base backoff
    assert store.outbox[ending.outbox_key].last_error == f"HTTP {status}"


@pytest.mark.parametrize("status", [408, 425, 429, 500, 502, 503, 504])
async def test_transient_statuses_are_rescheduled_with_backoff(status):
    store = MemoryStore()
    [ending] = await ended_games(store)
    transport = httpx.MockTransport(lambda request: httpx.Response(status))
    pump = OutboxPump(store, settings_for("http://analytics.invalid"), policy=OutboxPolicy(backoff_base_s=7.0))
    async with httpx.AsyncClient(transport=transport) as client:
        assert await pump.deliver_due(client) == 1
    row = store.outbox[ending.outbox_key]
    assert (row.delivered_at, row.attempts, row.last_error) == (None, 1, f"HTTP {status}")
    assert timedelta(seconds=6) < row.next_attempt_at - datetime.now(timezone.utc) <= timedelta(seconds=7)


# --- (c) timeouts and connection errors ----------------------------------------------------------


async def test_timeout_is_retried_and_delivered_once_the_receiver_answers(caplog):
    store = MemoryStore()
    [ending] = await ended_games(store)
    policy = OutboxPolicy(poll_interval_s=0.01, request_timeout_s=0.3, backoff_base_s=0.05)
    # The first request is stored at once but answered only after the client gave up.
    with AnalyticsReceiver(lambda n, key: Reply(delay_s=1.5) if n == 0 else None) as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=policy))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    row = store.outbox[ending.outbox_key]
    assert row.attempts == 1
    assert "timeout" in row.last_error
    assert [s.status for s in receiver.seen] == [201, 409]  # the late answer was lost; the retry learns it won
    assert receiver.stored == {ending.outbox_key: ending.outbox_payload}
    assert (pump.counters.delivered, pump.counters.already_stored, pump.counters.failed) == (1, 1, 1)
    no_secret_or_payload_logged(caplog)


async def test_hung_receiver_is_retried_until_it_stores():
    store = MemoryStore()
    [ending] = await ended_games(store)
    policy = OutboxPolicy(poll_interval_s=0.01, request_timeout_s=0.3, backoff_base_s=0.05)
    # Twice the receiver holds the request past the timeout without storing it (a 503 nobody sees).
    script = lambda n, key: Reply(status=503, delay_s=1.0) if n < 2 else None  # noqa: E731
    with AnalyticsReceiver(script) as receiver:
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=policy))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    assert store.outbox[ending.outbox_key].attempts == 2
    assert [s.status for s in receiver.seen] == [503, 503, 201]


async def test_connection_refused_is_retried_with_backoff():
    with AnalyticsReceiver() as closed:
        url = closed.url  # the port is free again once the receiver is gone
    store = MemoryStore()
    [ending] = await ended_games(store)
    async with trio.open_nursery() as nursery:
        pump = await nursery.start(partial(run_outbox_pump, store, settings_for(url), policy=FAST))
        await wait_until(lambda: pump.counters.failed >= 2, "two failed attempts")
        nursery.cancel_scope.cancel()
    row = store.outbox[ending.outbox_key]
    assert row.delivered_at is None
    assert row.last_error.startswith("ConnectError")
    assert pump.counters.last_error.startswith(f"{ending.outbox_key}: ConnectError")


# --- (d) duplicates: first writer wins ------------------------------------------------------------


class NotesEmptyBatches:
    """One pump's view of a shared store: counts the empty due batches it was handed.

    A pump works through a batch one row at a time, so once it is handed an empty batch
    every answer it received has been recorded in its counters: it is quiet."""

    def __init__(self, store: MemoryStore):
        self.store = store
        self.empty_batches = 0

    async def due_outbox(self, limit):
        items = await self.store.due_outbox(limit)
        self.empty_batches += not items
        return items

    async def outbox_delivered(self, item_id):
        await self.store.outbox_delivered(item_id)

    async def outbox_failed(self, item_id, error, retry_in_s):
        await self.store.outbox_failed(item_id, error, retry_in_s)


async def test_two_pumps_racing_store_each_payload_once():
    store = MemoryStore()
    endings = await ended_games(store, 5)
    views = [NotesEmptyBatches(store), NotesEmptyBatches(store)]
    # Slow answers keep both pumps inside the same due batch.
    with AnalyticsReceiver(lambda n, key: Reply(delay_s=0.05)) as receiver:
        async with trio.open_nursery() as nursery:
            one, two = [
                await nursery.start(partial(run_outbox_pump, view, settings_for(receiver.url), policy=FAST))
                for view in views
            ]
            await wait_until(lambda: all(store.outbox[e.outbox_key].delivered_at for e in endings), "all delivered")
            # A pump may still be waiting on a 409 the receiver already recorded: wait until
            # each has been handed an empty batch since, so its counters are final.
            baseline = [view.empty_batches for view in views]
            await wait_until(lambda: all(v.empty_batches > b for v, b in zip(views, baseline)), "both pumps quiet")
            nursery.cancel_scope.cancel()
    assert receiver.stored == {e.outbox_key: e.outbox_payload for e in endings}
    duplicates = [s for s in receiver.seen if s.status == 409]
    assert duplicates, "the pumps never raced"
    assert one.counters.already_stored + two.counters.already_stored == len(duplicates)
    assert len(receiver.seen) == len(endings) + len(duplicates)
    assert all(store.outbox[e.outbox_key].attempts == 0 for e in endings)


class MarkingNeverReturns:
    """The store of a pump that dies after its POST, before the row is marked delivered."""

    def __init__(self, store: MemoryStore):
        self.store = store
        self.posted = trio.Event()

    async def due_outbox(self, limit):
        return await self.store.due_outbox(limit)

    async def outbox_delivered(self, item_id):
        self.posted.set()
        await trio.sleep_forever()

    async def outbox_failed(self, item_id, error, retry_in_s):
        await self.store.outbox_failed(item_id, error, retry_in_s)


async def test_pump_that_died_after_the_post_is_answered_409_and_the_row_ends_delivered():
    store = MemoryStore()
    [ending] = await ended_games(store)
    dying = MarkingNeverReturns(store)
    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            first = trio.CancelScope()

            async def first_pump():
                with first:
                    await run_outbox_pump(dying, settings_for(receiver.url), policy=FAST)

            nursery.start_soon(first_pump)
            await dying.posted.wait()
            first.cancel()  # the process dies here
            assert store.outbox[ending.outbox_key].delivered_at is None
            second = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=FAST))
            await wait_until(lambda: store.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    assert [s.status for s in receiver.seen] == [201, 409]
    assert receiver.stored == {ending.outbox_key: ending.outbox_payload}
    assert (second.counters.delivered, second.counters.already_stored) == (1, 1)


# --- (e) permanent rejection ----------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_permanent_rejection_keeps_the_row_undelivered_with_the_error(status, caplog):
    caplog.set_level(logging.WARNING, logger="playsite.analytics")
    store = MemoryStore()
    [ending] = await ended_games(store)
    body = b'{"error": "missing field playerIds"}'
    with AnalyticsReceiver(lambda n, key: Reply(status=status, body=body)) as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=FAST))
            await wait_until(lambda: pump.counters.failed == 1, "the rejection")
            await trio.sleep(0.2)  # many poll intervals: not retried before the cap
            nursery.cancel_scope.cancel()

    assert len(receiver.seen) == 1
    assert receiver.stored == {}
    row = store.outbox[ending.outbox_key]
    assert row.delivered_at is None
    assert row.attempts == 1
    assert row.last_error.startswith(f"HTTP {status}, rejected by the analytics service; needs an operator")
    assert row.last_error.endswith('{"error": "missing field playerIds"}')  # what the service said
    assert row.next_attempt_at - datetime.now(timezone.utc) > timedelta(seconds=590)  # the cap, not the base
    [line] = [r for r in caplog.records if r.name == "playsite.analytics"]
    assert line.levelno == logging.ERROR
    assert ending.outbox_key in line.getMessage() and f"HTTP {status}" in line.getMessage()
    assert pump.counters.last_error.startswith(f"{ending.outbox_key}: HTTP {status}")
    no_secret_or_payload_logged(caplog)


# --- (f) store errors and per-item exceptions -------------------------------------------------------


class FlakyStore:
    """A memory store whose first reads and first mark fail like a database outage."""

    def __init__(self, store: MemoryStore, failing_reads: int, failing_marks: int):
        self.store = store
        self.failing_reads = failing_reads
        self.failing_marks = failing_marks

    async def due_outbox(self, limit):
        if self.failing_reads:
            self.failing_reads -= 1
            raise DatabaseUnavailable("OperationalError: connection refused")
        return await self.store.due_outbox(limit)

    async def outbox_delivered(self, item_id):
        if self.failing_marks:
            self.failing_marks -= 1
            raise DatabaseUnavailable("OperationalError: server closed the connection unexpectedly")
        await self.store.outbox_delivered(item_id)

    async def outbox_failed(self, item_id, error, retry_in_s):
        await self.store.outbox_failed(item_id, error, retry_in_s)


async def test_pump_continues_past_store_errors(caplog):
    caplog.set_level(logging.WARNING, logger="playsite.analytics")
    memory = MemoryStore()
    [ending] = await ended_games(memory)
    store = FlakyStore(memory, failing_reads=3, failing_marks=1)
    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=FAST))
            await wait_until(lambda: memory.outbox[ending.outbox_key].delivered_at is not None, "delivery")
            nursery.cancel_scope.cancel()
    assert pump.counters.store_errors == 4
    assert pump.counters.last_error.startswith("store: DatabaseUnavailable")
    assert [s.status for s in receiver.seen] == [201, 409]  # the unmarked row was sent again
    assert receiver.stored == {ending.outbox_key: ending.outbox_payload}
    store_lines = [r for r in caplog.records if "store failed" in r.getMessage()]
    assert len(store_lines) == 4
    no_secret_or_payload_logged(caplog)


async def test_an_exception_from_one_item_does_not_stop_the_batch():
    store = MemoryStore()
    cursed, fine = await ended_games(store, 2)

    class Exploding(httpx.AsyncBaseTransport):
        def __init__(self):
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request):
            if request.headers["Idempotency-Key"] == cursed.outbox_key:
                raise RuntimeError("a bug in a transport")
            return await self.inner.handle_async_request(request)

        async def aclose(self):
            await self.inner.aclose()

    with AnalyticsReceiver() as receiver:
        async with trio.open_nursery() as nursery:
            pump = await nursery.start(
                partial(
                    run_outbox_pump,
                    store,
                    settings_for(receiver.url),
                    policy=OutboxPolicy(poll_interval_s=0.01, backoff_base_s=60),
                    client_factory=lambda: httpx.AsyncClient(transport=Exploding()),
                )
            )
            await wait_until(lambda: store.outbox[fine.outbox_key].delivered_at is not None, "the good row")
            nursery.cancel_scope.cancel()
    assert set(receiver.stored) == {fine.outbox_key}
    bad = store.outbox[cursed.outbox_key]
    assert (bad.delivered_at, bad.attempts) == (None, 1)
    assert bad.last_error == "unexpected RuntimeError: a bug in a transport"
    assert pump.counters.delivered == 1 and pump.counters.failed == 1


def test_pump_refuses_to_start_without_a_url():
    with pytest.raises(ValueError, match="ANALYTICS_URL"):
        OutboxPump(MemoryStore(), Settings())


# --- end to end on PostgreSQL -----------------------------------------------------------------------


@pytest.mark.postgres
async def test_postgres_terminal_write_is_delivered_and_marked(database_url, caplog):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    db = Database(database_url, pool_size=4, statement_timeout_ms=5000)
    await db.open()
    try:
        store = PostgresStore(db, save_timeout_s=5)
        write, ending = game_end()
        await store.finish_game(write, ending)
        await store.finish_game(write, ending)  # a repeated terminal write adds no second row
        policy = OutboxPolicy(poll_interval_s=0.02, request_timeout_s=2.0, backoff_base_s=0.1)
        with AnalyticsReceiver(lambda n, key: Reply(status=503) if n == 0 else None) as receiver:
            async with trio.open_nursery() as nursery:
                pump = await nursery.start(partial(run_outbox_pump, store, settings_for(receiver.url), policy=policy))
                await wait_until(lambda: pump.counters.delivered == 1, "delivery")
                await trio.sleep(0.2)
                nursery.cancel_scope.cancel()
        rows = await db.run(
            lambda conn: conn.execute(
                "SELECT idempotency_key, payload, attempts, last_error, delivered_at FROM analytics_outbox"
            ).fetchall()
        )
    finally:
        await db.close()

    [(key, payload, attempts, last_error, delivered_at)] = rows
    assert key == ending.outbox_key
    assert payload == ending.outbox_payload
    assert (attempts, last_error) == (1, "HTTP 503")
    assert delivered_at is not None
    assert [s.status for s in receiver.seen] == [503, 201]
    assert json.loads(receiver.seen[-1].body) == ending.outbox_payload
    assert receiver.seen[-1].query == {"source": ["playsite"]}
    assert receiver.seen[-1].headers["idempotency-key"] == f"game:{write.game_id}"
    assert receiver.stored == {ending.outbox_key: ending.outbox_payload}
    no_secret_or_payload_logged(caplog)
