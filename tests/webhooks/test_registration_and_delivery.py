"""Webhook registrations and turn delivery, in process: the real app (quart test client), real
rooms and registry, and real webhook endpoints (threaded HTTP servers on 127.0.0.1, reached
through the pinned transport with WEBHOOK_ALLOW_LOOPBACK=true)."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import uuid
from datetime import datetime, timedelta, timezone

import attrs
import psycopg
import pytest
import trio

from playsite.bots.directory import BotDirectory
from playsite.bots.store import PostgresBotStore
from playsite.config import Settings
from playsite.services import Services
from playsite.store.database import Database
from playsite.store.migrations import apply_pending, load_migrations
from playsite.webhooks.delivery import (
    TURN_ANSWER_CAP_S,
    deliver_once,
    sign,
)
from playsite.webhooks.registrations import (
    REGISTRATION_ATTEMPTS_PER_WINDOW,
    VERIFICATION_ECHO_TIMEOUT_S,
)
from playsite.webhooks.store import (
    Delivery,
    MemoryWebhookStore,
    PostgresWebhookStore,
    nearest_rank,
)
from playsite.wire import Fischer, PerMove, Unlimited
from tests.support.app import booted, call, test_client
from tests.support.receiver import Reply, WebhookReceiver, echo, valid_signature
from tests.support.waiting import deadline, wait_until

ENDPOINTS = [
    ("POST", "/bot/webhook"),
    ("GET", "/bot/webhook"),
    ("DELETE", "/bot/webhook"),
    ("GET", "/bot/webhook/stats"),
]


@attrs.define
class Harness:
    services: Services
    client: object
    nursery: object

    @property
    def webhooks(self):
        return self.services.webhooks

    async def bot(self, name: str | None = None) -> tuple[object, str]:
        return await self.services.bots.register("hooks", name or f"b{uuid.uuid4().hex[:8]}")

    def anonymous(self) -> str:
        return self.services.bots.mint_anonymous(None)[1]

    async def call(self, method: str, path: str, token: str | None = None, **kwargs):
        return await call(self.client, method, path, token, **kwargs)

    async def register(self, token: str, url: str):
        return await self.call("POST", "/bot/webhook", token, json={"url": url})

    async def registered(self, token: str, receiver: WebhookReceiver) -> str:
        """Register the receiver's URL; the receiver keeps the secret, as a bot would."""
        status, body, _ = await self.register(token, receiver.url())
        assert status == 201, body
        receiver.secret = body["secret"]
        return body["secret"]

    async def game(self, white, black, time_control=Unlimited(), attach: bool = True):
        """A challenge game; `attach=False` creates it as a path that skips the creation hook would."""
        hooks = self.services.registry.creation_hooks
        kept = list(hooks)
        if not attach:
            hooks.clear()
        try:
            created = await self.services.bot_games.start(
                white=white, black=black, time_control=time_control, rated=False, origin="challenge"
            )
        finally:
            hooks[:] = kept
        return created.room

    async def stats(self, token: str) -> dict:
        status, body, _ = await self.call("GET", "/bot/webhook/stats", token)
        assert status == 200, body
        return body


@contextlib.asynccontextmanager
async def running(*, enabled: bool = True, loopback: bool = True, store=None):
    settings = Settings(webhook_push_enabled=enabled, webhook_allow_loopback=loopback, dice_seed_window_ms=0)
    async with booted(settings, store=store) as services:
        yield Harness(services, test_client(services), None)


@pytest.fixture
async def harness():
    async with running() as h:
        yield h


def outcomes(window: dict) -> dict[str, int]:
    return {item["outcome"]: item["count"] for item in window["outcomes"]}


# ----- authentication, authorisation, feature switch -----------------------------------------


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
async def test_every_endpoint_needs_a_bot_token(harness, method, path):
    status, body, headers = await harness.call(method, path)
    assert status == 401 and body["error"]["code"] == "unauthorized"
    status, body, _ = await harness.call(method, path, "not-a-token")
    assert status == 401


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
async def test_every_endpoint_is_for_registered_bots_only(harness, method, path):
    status, body, _ = await harness.call(method, path, harness.anonymous(), json={"url": "https://example.com"})
    assert status == 403 and body["error"]["code"] == "registered_only"


async def test_registration_endpoints_answer_503_when_push_is_disabled():
    async with running(enabled=False) as h:
        _, token = await h.bot()
        for method, path in ENDPOINTS[:3]:
            status, body, headers = await h.call(method, path, token, json={"url": "https://example.com/x"})
            assert status == 503 and body["error"]["code"] == "webhooks_disabled"
            assert "retry-after" in headers
        # The stats read history, which outlives the switch.
        status, body, _ = await h.call("GET", "/bot/webhook/stats", token)
        assert status == 200 and body["last24h"]["totalDeliveries"] == 0


async def test_no_dispatcher_is_attached_when_push_is_disabled():
    async with running(enabled=False) as h:
        white, _ = await h.bot()
        black, _ = await h.bot()
        room = await h.game(white, black, attach=False)
        assert h.services.webhook_dispatch.attach(room) == []


# ----- request bodies ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"json": {}}, 400, "invalid_request"),
        ({"json": {"url": 42}}, 400, "invalid_request"),
        ({"json": {"url": "https://example.com", "secret": "mine"}}, 400, "invalid_request"),
        ({"json": ["https://example.com"]}, 400, "invalid_request"),
        ({"data": "{not json", "headers": {"Content-Type": "application/json"}}, 400, "invalid_request"),
        ({"data": "url=https://example.com", "headers": {"Content-Type": "text/plain"}}, 415, None),
        ({"json": {"url": "https://example.com/" + "a" * 5000}}, 413, "request_too_large"),
    ],
)
async def test_malformed_registration_bodies_are_refused(harness, kwargs, status, code):
    _, token = await harness.bot()
    got, body, _ = await harness.call("POST", "/bot/webhook", token, **kwargs)
    assert got == status, body
    if code:
        assert body["error"]["code"] == code


# ----- URL policy ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://10.0.0.8/hook", "private"),
        ("https://192.168.0.1/hook", "private"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://localhost/hook", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "link-local"),
        ("https://[fe80::1]/hook", "link-local"),
        ("https://[::ffff:127.0.0.1]/hook", "IPv4-mapped"),
        ("https://[::ffff:10.0.0.1]/hook", "IPv4-mapped"),
        ("https://100.64.0.1/hook", "CGNAT"),
        ("https://[fd00::1]/hook", "private"),
        ("http://example.com/hook", "https"),
        ("https://user:secret@example.com/hook", "credentials"),
        ("not a url at all", "https"),
    ],
)
async def test_url_policy_violations_are_422_with_the_reason(url, reason):
    async with running(loopback=False) as h:
        _, token = await h.bot()
        status, body, _ = await h.register(token, url)
    assert status == 422, body
    assert body["error"]["code"] == "url_policy"
    assert reason in body["error"]["message"]


async def test_url_policy_refusal_causes_no_outbound_request():
    with WebhookReceiver() as receiver:
        async with running(loopback=False) as h:
            _, token = await h.bot()
            status, body, _ = await h.register(token, receiver.url())
    assert status == 422 and body["error"]["code"] == "url_policy"
    assert receiver.seen == []


# ----- the ownership handshake -----------------------------------------------------------------------


async def test_handshake_success_stores_the_registration_and_shows_the_secret_once(harness):
    with WebhookReceiver() as receiver:
        _, token = await harness.bot()
        status, body, headers = await harness.register(token, receiver.url())
    assert status == 201, body
    assert set(body) == {"url", "secret"} and body["url"] == receiver.url()
    assert re.fullmatch(r"[0-9a-f]{64}", body["secret"])
    assert headers["cache-control"] == "no-store"
    (verification,) = receiver.seen
    message = verification.json
    assert set(message) == {"type", "nonce"} and message["type"] == "verification"
    assert len(message["nonce"]) >= 32
    # The contract's unsigned verification echo: no signature, no timestamp (deliveries are signed).
    assert "x-dicechess-signature" not in verification.headers
    assert "x-dicechess-timestamp" not in verification.headers
    assert verification.headers["content-type"] == "application/json"
    status, read, headers = await harness.call("GET", "/bot/webhook", token)
    assert status == 200 and set(read) == {"url", "verifiedAt"}
    assert read["url"] == receiver.url()
    verified = datetime.fromisoformat(read["verifiedAt"].replace("Z", "+00:00"))
    assert abs(datetime.now(timezone.utc) - verified) < timedelta(minutes=1)
    assert body["secret"] not in json.dumps(read)


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (lambda seen: Reply(200, json.dumps({"nonce": "0" * 32}).encode()), "different nonce"),
        (lambda seen: Reply(200, b"OK"), '{"nonce"'),
        (lambda seen: Reply(200, json.dumps({"echo": seen.json["nonce"]}).encode()), '{"nonce"'),
        (lambda seen: Reply(404, b""), "HTTP 404"),
        (lambda seen: echo(seen, status=201), "HTTP 201"),
        (lambda seen: Reply(302, headers={"Location": "http://127.0.0.1:1/"}), "HTTP 302"),
        (lambda seen: Reply(200, b" " * (64 * 1024 + 1)), "larger than"),
    ],
)
async def test_handshake_failures_are_422_and_store_nothing(harness, reply, words):
    with WebhookReceiver(reply) as receiver:
        _, token = await harness.bot()
        status, body, _ = await harness.register(token, receiver.url())
    assert status == 422, body
    assert body["error"]["code"] == "handshake_failed"
    assert words in body["error"]["message"]
    assert (await harness.call("GET", "/bot/webhook", token))[0] == 404


async def test_handshake_timeout_is_5_s_and_422(harness, monkeypatch):
    assert VERIFICATION_ECHO_TIMEOUT_S == 5.0
    monkeypatch.setattr("playsite.webhooks.registrations.VERIFICATION_ECHO_TIMEOUT_S", 0.5)
    with WebhookReceiver(lambda seen: echo(seen, delay_s=3)) as r:
        _, token = await harness.bot()
        started = trio.current_time()
        status, body, _ = await harness.register(token, r.url())
    assert status == 422 and body["error"]["code"] == "handshake_failed"
    assert "did not answer within 0.5 s" in body["error"]["message"]
    assert trio.current_time() - started < 2.5


async def test_handshake_to_a_closed_port_is_422_without_detail(harness):
    with WebhookReceiver() as receiver:
        url = receiver.url()
    _, token = await harness.bot()
    status, body, _ = await harness.register(token, url)
    assert status == 422 and body["error"]["code"] == "handshake_failed"
    assert body["error"]["message"] == "the endpoint could not be reached"


async def test_every_handshake_is_unsigned_and_each_registration_gets_a_new_secret(harness):
    with WebhookReceiver() as first, WebhookReceiver() as second, WebhookReceiver(lambda seen: Reply(500)) as bad:
        _, token = await harness.bot()
        status, one, _ = await harness.register(token, first.url())
        assert status == 201
        status, two, _ = await harness.register(token, second.url())
        assert status == 201 and two["secret"] != one["secret"]
        status, _, _ = await harness.register(token, bad.url())
        assert status == 422
        for handshake in (*first.seen, *second.seen, *bad.seen):
            assert handshake.json["type"] == "verification"
            assert "x-dicechess-signature" not in handshake.headers and "x-dicechess-timestamp" not in handshake.headers
    status, read, _ = await harness.call("GET", "/bot/webhook", token)
    assert status == 200 and read["url"] == second.url()


async def test_a_failed_reregistration_keeps_the_current_one(harness):
    with WebhookReceiver() as good, WebhookReceiver(lambda seen: Reply(500)) as bad:
        _, token = await harness.bot()
        await harness.registered(token, good)
        status, _, _ = await harness.register(token, bad.url())
        assert status == 422
    status, read, _ = await harness.call("GET", "/bot/webhook", token)
    assert status == 200 and read["url"] == good.url()


async def test_reregistration_replaces_url_secret_and_generation(harness):
    with WebhookReceiver() as first, WebhookReceiver() as second:
        account, token = await harness.bot()
        secret_one = await harness.registered(token, first)
        generation_one = (await harness.webhooks.current(account.id)).registration_id
        secret_two = await harness.registered(token, second)
        current = await harness.webhooks.current(account.id)
    assert secret_one != secret_two and current.secret == secret_two
    assert current.url == second.url() and current.registration_id > generation_one


async def test_delete_then_404(harness):
    with WebhookReceiver() as receiver:
        _, token = await harness.bot()
        assert (await harness.call("DELETE", "/bot/webhook", token))[0] == 404
        await harness.registered(token, receiver)
    status, body, _ = await harness.call("DELETE", "/bot/webhook", token)
    assert status == 204 and body is None
    assert (await harness.call("GET", "/bot/webhook", token))[0] == 404
    status, body, _ = await harness.call("DELETE", "/bot/webhook", token)
    assert status == 404 and body["error"]["code"] == "webhook_not_found"


async def test_registration_attempts_are_rate_limited_per_bot(harness):
    _, token = await harness.bot()
    _, other = await harness.bot()
    for _ in range(REGISTRATION_ATTEMPTS_PER_WINDOW):
        assert (await harness.register(token, "https://10.0.0.1/x"))[0] == 422
    status, body, headers = await harness.register(token, "https://10.0.0.1/x")
    assert status == 429 and body["error"]["code"] == "rate_limited"
    assert 1 <= int(headers["retry-after"]) <= 60
    assert (await harness.register(other, "https://10.0.0.1/x"))[0] == 422  # per bot


async def test_the_secret_is_never_logged(harness, caplog):
    caplog.set_level(logging.DEBUG)
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        secret = await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        await harness.game(white, black)
        await wait_until(lambda: receiver.of_kind("yourTurn"), "a yourTurn delivery")
    assert secret not in caplog.text
    assert all(secret not in str(record.args) for record in caplog.records)


# ----- delivery ------------------------------------------------------------------------------------


async def test_a_webhook_bot_plays_a_whole_game_against_another_webhook_bot(harness):
    with WebhookReceiver(seed=1) as alice_hook, WebhookReceiver(seed=2) as bob_hook:
        alice, alice_token = await harness.bot("alice")
        bob, bob_token = await harness.bot("bob")
        await harness.registered(alice_token, alice_hook)
        await harness.registered(bob_token, bob_hook)
        room = await harness.game(alice, bob, Fischer(120, 2))
        with deadline(60, "the webhook game to finish"):
            await room.finished.wait()
    assert room.ending is not None and room.ending.termination.value in ("king_captured", "no_progress")
    assert alice_hook.bad_signatures == 0 and bob_hook.bad_signatures == 0
    turns = [t for t in room.game.history if t.moves]
    assert alice_hook.turns_answered + bob_hook.turns_answered == len(turns)
    for hook, seat in ((alice_hook, "White"), (bob_hook, "Black")):
        for seen in hook.of_kind("yourTurn"):
            message = seen.json
            assert set(message) == {"type", "gameId", "seat", "state"}
            assert message["gameId"] == room.game_id and message["seat"] == seat
            assert message["state"]["activeSeat"] == seat and message["state"]["dicePending"] is True
            assert seen.headers["host"] == f"127.0.0.1:{hook.port}"
    with deadline(5, "every answered turn to be recorded applied"):  # the last is recorded after the room ended
        while outcomes((alice_stats := await harness.stats(alice_token))["last24h"]) != {
            "applied": alice_hook.turns_answered
        }:
            await trio.sleep(0.01)
    assert alice_stats["lastFailure"] is None
    assert alice_stats["last24h"]["p50Ms"] is not None


async def test_yourturn_is_signed_with_the_registration_secret(harness):
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        secret = await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)  # White's first roll may pass to Black
        await harness.game(white, black)
        await wait_until(lambda: receiver.of_kind("yourTurn"), "a yourTurn delivery")
    seen = receiver.of_kind("yourTurn")[0]
    timestamp = seen.headers["x-dicechess-timestamp"]
    assert timestamp.isdigit() and len(timestamp) == 10  # Unix seconds
    assert seen.headers["x-dicechess-signature"] == sign(secret, int(timestamp), seen.body.decode())
    assert re.fullmatch(r"[0-9a-f]{64}", seen.headers["x-dicechess-signature"])
    assert valid_signature(secret, seen)
    assert not valid_signature("0" * 64, seen)


async def test_a_registration_replaced_mid_turn_makes_the_late_answer_stale(harness):
    """The old endpoint answers slowly; meanwhile the bot re-registers. The late answer is
    recorded stale_registration and never enters the room; the new registration gets the turn."""

    def slow(seen):
        if seen.kind != "yourTurn":
            return None
        return attrs.evolve(old.default_reply(seen), delay_s=1.5)

    with WebhookReceiver(slow, seed=3) as old, WebhookReceiver(seed=4) as new, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(black_token, opponent)  # White's first roll may pass to Black
        await harness.registered(token, old)
        room = await harness.game(white, black)
        await wait_until(lambda: old.of_kind("yourTurn"), "a yourTurn delivery to the old endpoint")
        version = old.of_kind("yourTurn")[0].json["state"]["version"]
        await harness.registered(token, new)  # while the old answer is still on its way
        with deadline(10, "a stale_registration outcome and White's turn"):
            while "stale_registration" not in outcomes((stats := await harness.stats(token))["last24h"]):
                await trio.sleep(0.05)
            await wait_until(lambda: any(t.seat == "White" and t.moves for t in room.game.history), "a turn played by White")
    (old_version, old_moves), *_ = old.answers
    new_version, new_moves = new.answers[0]
    assert old_version == new_version == version  # the same turn, delivered again to the new registration
    white_turns = [t for t in room.game.history if t.seat == "White" and t.moves]  # forced passes are not turns
    assert list(white_turns[0].moves) == new_moves
    counts = outcomes(stats["last24h"])
    assert counts["stale_registration"] == 1
    assert "refused" not in counts  # the late answer never reached the room
    assert stats["lastFailure"] is None  # nor the current registration's health


# ----- outcomes of one delivery --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "outcome", "moves"),
    [
        (Reply(200, b'{"moves": ["e2e4", "g1f3"]}'), "applied", ("e2e4", "g1f3")),
        (Reply(200, b'{"moves": []}'), "declined", None),
        (Reply(200, b"e2e4"), "garbled", None),
        (Reply(200, b'["e2e4"]'), "garbled", None),
        (Reply(200, b'{"moves": "e2e4"}'), "garbled", None),
        (Reply(200, b'{"moves": [1, 2]}'), "garbled", None),
        (Reply(200, json.dumps({"moves": ["e2e4"] * 9}).encode()), "garbled", None),
        (Reply(200, b'{"moves": ["e2e4"]}' + b" " * (64 * 1024)), "oversized_body", None),
        (Reply(500, b"boom"), "http_500", None),
        (Reply(404), "http_404", None),
        (Reply(302, headers={"Location": "https://example.com/"}), "http_302", None),
        (Reply(200, b'{"moves": ["e2e4"]}', delay_s=2), "timed_out", None),
    ],
)
async def test_each_answer_is_classified(harness, reply, outcome, moves):
    with WebhookReceiver(lambda seen: reply if seen.kind == "yourTurn" else None) as receiver:
        account, token = await harness.bot()
        await harness.registered(token, receiver)
        registration = await harness.webhooks.current(account.id)
        attempt = await deliver_once(harness.webhooks, registration, '{"type":"yourTurn"}', timeout_s=0.5)
    assert attempt.outcome == outcome
    assert attempt.moves == moves
    assert attempt.latency_ms >= 0 and attempt.reason


async def test_an_endpoint_that_went_away_is_unreachable(harness):
    with WebhookReceiver() as receiver:
        account, token = await harness.bot()
        await harness.registered(token, receiver)
    attempt = await deliver_once(harness.webhooks, await harness.webhooks.current(account.id), "{}", timeout_s=2)
    assert attempt.outcome == "unreachable" and attempt.retryable


async def test_a_url_that_now_resolves_privately_is_unreachable_and_never_contacted(harness):
    with WebhookReceiver() as receiver:
        account, token = await harness.bot()
        await harness.registered(token, receiver)
        registration = await harness.webhooks.current(account.id)
        harness.webhooks.policy = attrs.evolve(harness.webhooks.policy, allow_loopback=False)
        attempt = await deliver_once(harness.webhooks, registration, "{}", timeout_s=2)
    assert attempt.outcome == "unreachable" and attempt.reason.startswith("the URL is refused now")
    assert receiver.of_kind("yourTurn") == []


# ----- delivery in games ----------------------------------------------------------------------------


async def test_refused_moves_leave_the_clock_running(harness):
    def illegal(seen):
        return Reply(200, b'{"moves": ["a1a8"]}') if seen.kind == "yourTurn" else None

    with WebhookReceiver(illegal) as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black, PerMove(1))
        with deadline(20, "the game to end and the refusal to be recorded"):
            await room.finished.wait()
            while not outcomes((stats := await harness.stats(token))["last24h"]):
                await trio.sleep(0.01)
    assert room.ending.termination.value in ("timeout", "aborted")
    assert room.ending.winner in ("Black", None)
    assert outcomes(stats["last24h"]) == {"refused": 1}  # one delivery per turn, no retry
    assert stats["lastFailure"]["reason"].startswith("the room refused the moves")


async def test_a_silent_bot_times_out_within_its_clock_and_loses_on_time(harness):
    def silent(seen):
        return Reply(200, b'{"moves": []}', delay_s=10) if seen.kind == "yourTurn" else None

    with WebhookReceiver(silent) as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black, PerMove(1))
        with deadline(20, "the silent bot's game to end and its attempt to be counted"):
            await room.finished.wait()
            while not outcomes((stats := await harness.stats(token))["last24h"]):
                await trio.sleep(0.01)
    assert room.ending.termination.value in ("timeout", "aborted")
    assert len(receiver.of_kind("yourTurn")) == 1  # no retry storm
    # counted even when the flag ends the game (and the delivery with it) before the attempt's
    # own budget runs out
    assert outcomes(stats["last24h"]) == {"timed_out": 1}
    assert stats["lastFailure"]["reason"].startswith(("no answer within", "no answer before the game ended"))
    assert TURN_ANSWER_CAP_S == 120.0


async def test_a_delivery_cut_by_the_server_s_stop_is_not_counted_against_the_bot():
    """Play-through s74: a demo stopped while a bot was thinking logged "webhook delivery not
    recorded" (the attempt was written as the bot's timeout, to a database being closed)."""

    def silent(seen):
        return Reply(200, b'{"moves": []}', delay_s=10) if seen.kind == "yourTurn" else None

    with WebhookReceiver(silent) as receiver, WebhookReceiver() as opponent:
        async with running() as harness:
            white, token = await harness.bot()
            black, black_token = await harness.bot()
            await harness.registered(token, receiver)
            await harness.registered(black_token, opponent)
            room = await harness.game(white, black)  # no clock: nothing ends it but the stop
            with deadline(10, "a turn to reach the silent bot"):
                while not receiver.of_kind("yourTurn"):
                    await trio.sleep(0.01)
            webhooks = harness.webhooks
        # leaving `running` stops the server: every loop is cancelled, the room's delivery too
    assert not room.ended
    assert webhooks.outcomes["timed_out"] == 0


async def test_gateway_errors_are_retried_at_most_twice_within_the_turn(harness):
    answers = iter([Reply(503), Reply(502)])

    def flaky(seen):
        if seen.kind != "yourTurn":
            return None
        return next(answers, None)

    with WebhookReceiver(flaky) as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black)
        with deadline(15, "an applied delivery after the gateway errors"):
            while "applied" not in outcomes((stats := await harness.stats(token))["last24h"]):
                await trio.sleep(0.02)
    counts = outcomes(stats["last24h"])
    assert counts["http_503"] == 1 and counts["http_502"] == 1 and counts["applied"] >= 1
    versions = [seen.json["state"]["version"] for seen in receiver.of_kind("yourTurn")]
    assert versions[0] == versions[1] == versions[2]  # the same turn, three attempts
    assert stats["lastFailure"]["reason"] == "the endpoint answered HTTP 502"
    assert not room.ended


async def test_other_errors_are_not_retried(harness):
    def broken(seen):
        return Reply(500) if seen.kind == "yourTurn" else None

    with WebhookReceiver(broken) as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        await harness.game(white, black)
        await wait_until(lambda: receiver.of_kind("yourTurn"), "a yourTurn delivery")
        await trio.sleep(2.5)  # longer than every retry pause together
        stats = await harness.stats(token)
    assert len(receiver.of_kind("yourTurn")) == 1
    assert outcomes(stats["last24h"]) == {"http_500": 1}


async def test_deleting_the_webhook_stops_deliveries_and_the_game_runs_on(harness):
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black)
        await wait_until(lambda: receiver.turns_answered >= 2, "two answered turns")
        assert (await harness.call("DELETE", "/bot/webhook", token))[0] == 204
        delivered = len(receiver.of_kind("yourTurn"))
        await trio.sleep(1)
    assert len(receiver.of_kind("yourTurn")) <= delivered + 1  # at most one already on its way
    assert not room.ended  # White's clock (Unlimited here) just waits


async def test_registering_during_a_game_attaches_a_dispatcher(harness):
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black)
        await trio.sleep(0.2)
        assert receiver.seen == []
        await harness.registered(token, receiver)
        await wait_until(lambda: receiver.of_kind("yourTurn"), "a yourTurn delivery")
    assert receiver.of_kind("yourTurn")[0].json["gameId"] == room.game_id


async def test_the_sweep_attaches_games_created_without_the_hook(harness):
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black, attach=False)
        dispatch = harness.services.webhook_dispatch
        # The boot's sweep loop (every SWEEP_PERIOD_S) finds both seats.
        await wait_until(lambda: {(room.game_id, "White"), (room.game_id, "Black")} <= dispatch.attached.keys(),
                         "the sweep to attach both seats")
        assert await dispatch.sweep() == 0  # idempotent
        # both seats' dispatch subscribes to the room, and nobody watches the game for it
        # (play-through s72: the featured bot's game said "1 watching" with nobody there)
        assert room.watchers.count() == 0
        await wait_until(lambda: receiver.of_kind("yourTurn") or opponent.of_kind("yourTurn"), "a yourTurn delivery")
    assert not room.ended


async def test_a_failing_dispatcher_never_takes_the_room_down(harness, monkeypatch, caplog):
    async def explode(*args, **kwargs):
        raise RuntimeError("delivery bug")

    monkeypatch.setattr("playsite.webhooks.delivery.deliver_once", explode)
    with WebhookReceiver() as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black)
        await wait_until(lambda: "webhook dispatcher failed" in caplog.text, "the dispatcher failure to be logged")
        await wait_until(lambda: len(harness.services.webhook_dispatch.attached) < 2, "the failed dispatcher to go")
    assert not room.ended and harness.services.registry.get(room.game_id) is room
    assert len(harness.services.webhook_dispatch.attached) < 2  # the failed one is gone, quietly


async def test_stats_shape_for_a_bot_without_deliveries(harness):
    _, token = await harness.bot()
    stats = await harness.stats(token)
    empty = {"totalDeliveries": 0, "outcomes": [], "p50Ms": None, "p90Ms": None, "p99Ms": None}
    assert stats == {"last24h": empty, "last7d": empty, "lastFailure": None}


# ----- the store twins ------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "postgres"])
async def webhook_store(request):
    if request.param == "memory":
        yield MemoryWebhookStore()
        return
    url = request.getfixturevalue("database_url")
    with psycopg.connect(url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    database = Database(url, pool_size=2, statement_timeout_ms=5000)
    await database.open()
    try:
        bots = BotDirectory(PostgresBotStore(database))
        for name in ("alice", "bob"):
            await bots.register("hooks", name)
        yield PostgresWebhookStore(database)
    finally:
        await database.close()


NOW = datetime(2026, 7, 17, 12, 0, tzinfo=timezone.utc)


def delivery(outcome: str, latency_ms: int, ago: timedelta, reason: str = "", bot: str = "hooks/alice") -> Delivery:
    return Delivery(bot, 1, NOW - ago, outcome, latency_ms, reason or outcome)


async def test_store_registrations_get_increasing_generations(webhook_store):
    assert await webhook_store.current("hooks/alice") is None
    first = await webhook_store.replace("hooks/alice", "https://a.example/1", "s1", NOW)
    other = await webhook_store.replace("hooks/bob", "https://b.example/1", "s2", NOW)
    second = await webhook_store.replace("hooks/alice", "https://a.example/2", "s3", NOW)
    assert first.registration_id < other.registration_id < second.registration_id
    current = await webhook_store.current("hooks/alice")
    assert (current.url, current.secret) == ("https://a.example/2", "s3")
    assert current.registration_id == second.registration_id
    assert current.verified_at == NOW
    assert await webhook_store.delete("hooks/alice") is True
    assert await webhook_store.delete("hooks/alice") is False
    assert await webhook_store.current("hooks/alice") is None
    assert (await webhook_store.current("hooks/bob")).secret == "s2"
    third = await webhook_store.replace("hooks/alice", "https://a.example/3", "s4", NOW)
    assert third.registration_id > second.registration_id


async def test_store_stats_windows_percentiles_and_last_failure(webhook_store):
    for latency in range(1, 101):  # 100 applied deliveries in the last hour, 1..100 ms
        await webhook_store.record(delivery("applied", latency, timedelta(minutes=30)))
    await webhook_store.record(delivery("http_500", 900, timedelta(days=3), "the endpoint answered HTTP 500"))
    await webhook_store.record(delivery("timed_out", 5000, timedelta(hours=2), "no answer within 5.0 s"))
    await webhook_store.record(delivery("declined", 10, timedelta(hours=1)))
    await webhook_store.record(delivery("stale_registration", 20, timedelta(minutes=1)))
    await webhook_store.record(delivery("garbled", 20, timedelta(days=9)))  # outside both windows
    await webhook_store.record(delivery("unreachable", 1, timedelta(minutes=5), bot="hooks/bob"))
    stats = (await webhook_store.stats("hooks/alice", NOW)).to_json()
    day = stats["last24h"]
    assert day["totalDeliveries"] == 103
    assert day["outcomes"] == [
        {"outcome": "applied", "count": 100},
        {"outcome": "declined", "count": 1},
        {"outcome": "stale_registration", "count": 1},
        {"outcome": "timed_out", "count": 1},
    ]
    latencies = sorted(list(range(1, 101)) + [5000, 10, 20])
    assert (day["p50Ms"], day["p90Ms"], day["p99Ms"]) == tuple(
        nearest_rank(latencies, p) for p in (0.5, 0.9, 0.99)
    )
    week = stats["last7d"]
    assert week["totalDeliveries"] == 104 and {"outcome": "http_500", "count": 1} in week["outcomes"]
    # The newest genuine failure: stale and declined answers never count as one.
    assert stats["lastFailure"] == {"at": "2026-07-17T10:00:00.000Z", "reason": "no answer within 5.0 s"}


def test_nearest_rank_percentiles():
    assert nearest_rank([], 0.5) is None
    assert nearest_rank([7], 0.99) == 7
    assert nearest_rank(list(range(1, 11)), 0.5) == 5
    assert nearest_rank(list(range(1, 11)), 0.9) == 9
    assert nearest_rank(list(range(1, 11)), 0.99) == 10


async def test_probe_runs_the_verification_echo_against_the_current_webhook(harness):
    account, token = await harness.bot()
    assert await harness.webhooks.probe(account.id) is False  # nothing registered
    with WebhookReceiver() as receiver:
        await harness.registered(token, receiver)
        assert await harness.webhooks.probe(account.id) is True
        assert [seen.kind for seen in receiver.seen] == ["verification", "verification"]
        assert "x-dicechess-signature" not in receiver.seen[-1].headers, "the probe is the unsigned echo"
    assert await harness.webhooks.probe(account.id) is False  # the endpoint went away


async def test_each_boot_has_its_own_webhooks_and_dispatch(harness):
    assert harness.services.webhook_dispatch.webhooks is harness.services.webhooks
    async with running() as other:
        assert other.services.webhooks is not harness.services.webhooks
        assert other.services.webhook_dispatch is not harness.services.webhook_dispatch


async def test_a_delivery_times_out_at_the_server_cap_and_is_not_retried(harness, monkeypatch):
    monkeypatch.setattr("playsite.webhooks.delivery.TURN_ANSWER_CAP_S", 0.5)

    def silent(seen):
        return Reply(200, b'{"moves": []}', delay_s=5) if seen.kind == "yourTurn" else None

    with WebhookReceiver(silent) as receiver, WebhookReceiver() as opponent:
        white, token = await harness.bot()
        black, black_token = await harness.bot()
        await harness.registered(token, receiver)
        await harness.registered(black_token, opponent)
        room = await harness.game(white, black)  # Unlimited: only the cap bounds the wait
        with deadline(10, "the timed-out delivery to be recorded"):
            while not outcomes((stats := await harness.stats(token))["last24h"]):
                await trio.sleep(0.02)
        await trio.sleep(2.5)  # longer than every retry pause together
    assert outcomes(stats["last24h"]) == {"timed_out": 1}
    assert len(receiver.of_kind("yourTurn")) == 1
    assert stats["lastFailure"]["reason"].startswith("no answer within")
    assert not room.ended  # the turn stands; the bot's clock (none here) decides
