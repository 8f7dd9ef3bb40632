"""POST /lobby/bots/{team}/{name}/wake, in process: the real app (quart test client), the real
catalog, account streams, house bots and webhook registrations, and real webhook endpoints
(threaded HTTP servers on 127.0.0.1, allowed by WEBHOOK_ALLOW_LOOPBACK=true).

Time is trio's MockClock with autojump (`autojump_clock`). A webhook endpoint answers from
another thread, which the mock clock cannot see: while one is being talked to, the clock is
held (`held`), or it would jump to the echo's timeout before the answer could arrive. A test
that wants the timeout holds the clock until the endpoint has the request, then lets it jump.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading

import attrs
import pytest
import trio
import trio.testing

from playsite.config import Settings
from playsite.lobby.wake import PROBE_KEPT_S, PROBE_TIMEOUT_S
from playsite.lobby.wake_routes import WAKES_PER_MINUTE
from playsite.services import Services
from playsite.webhooks.registrations import VERIFICATION_ECHO_TIMEOUT_S
from playsite.wire import Unlimited
from tests.support.app import booted, call, test_client
from tests.support.errors import assert_error
from tests.support.receiver import Reply, Seen, WebhookReceiver

ELSEWHERE = {"client": ("203.0.113.9", 40000)}
"""The ASGI scope of a request from another client address."""


@contextlib.contextmanager
def held(clock):
    """No autojump while a real endpoint is being talked to (the mock clock stands still)."""
    clock.autojump_threshold = math.inf
    try:
        yield
    finally:
        clock.autojump_threshold = 0


class Gate:
    """A receiver script: once `hold` is set, each request is kept until `release` (then, with
    `silent`, never answered at all); `arrived` is set when one is being kept."""

    def __init__(self) -> None:
        self.hold = False
        self.silent = False
        self.arrived = threading.Event()
        self.release = threading.Event()

    def __call__(self, seen: Seen) -> Reply | None:
        if not self.hold:
            return None  # the receiver's own answer: the echo
        self.arrived.set()
        if self.silent:
            return Reply(200, b"{}", delay_s=60)  # given up when the receiver closes
        self.release.wait(10)
        return None

    async def wait_arrived(self) -> None:
        assert await trio.to_thread.run_sync(self.arrived.wait, 10), "the endpoint never got the probe"


@attrs.define
class Harness:
    services: Services
    client: object
    clock: object

    @property
    def wakes(self):
        return self.services.wakes

    async def call(self, method: str, path: str, token: str | None = None, **kwargs):
        return await call(self.client, method, path, token, **kwargs)

    async def register(self, name: str, *, catalog: bool = True, capacity: int | None = None) -> dict:
        status, bot, _ = await self.call("POST", "/bot/register", json={"team": "acme", "name": name})
        assert status == 201, bot
        if capacity is not None:
            status, body, _ = await self.call("POST", "/bot/capacity", bot["token"], json={"maxConcurrentGames": capacity})
            assert status == 200, body
        if catalog:
            status, body, _ = await self.call("POST", "/bot/open-to-humans", bot["token"])
            assert status == 200, body
        return bot

    async def hook(self, bot: dict, receiver: WebhookReceiver) -> None:
        """Register the receiver as the bot's webhook (its handshake is a real echo)."""
        with held(self.clock):
            status, body, _ = await self.call("POST", "/bot/webhook", bot["token"], json={"url": receiver.url()})
        assert status == 201, body

    async def wake(self, team: str, name: str, **kwargs) -> tuple[int, dict | None, dict]:
        return await self.call("POST", f"/lobby/bots/{team}/{name}/wake", **kwargs)

    async def woken(self, bot: dict) -> dict:
        status, body, headers = await self.wake(bot["team"], bot["name"])
        assert status == 200, body
        assert headers["Cache-Control"] == "no-store"
        return body


@contextlib.asynccontextmanager
async def running(clock, *, webhooks: bool = True, house: bool = False):
    settings = Settings(webhook_push_enabled=webhooks, webhook_allow_loopback=True, dice_seed_window_ms=0)
    async with booted(settings, house=house) as services:
        yield Harness(services, test_client(services), clock)


def verifications(receiver: WebhookReceiver) -> int:
    return len(receiver.of_kind("verification"))


# ----- who can be woken ------------------------------------------------------------------------


async def test_a_bot_outside_the_catalog_is_404_not_in_catalog(autojump_clock):
    async with running(autojump_clock) as h:
        await h.register("closed", catalog=False)
        status, anonymous, _ = await h.call("POST", "/bot/anon", query_string={"name": "drifter"})
        assert status == 201
        listed = await h.register("listed")
        for team, name in (("acme", "closed"), (anonymous["team"], anonymous["name"]), ("acme", "ghost")):
            status, body, _ = await h.wake(team, name)
            assert_error((status, body), 404, "not_in_catalog")
        assert await h.woken(listed) == {"alive": False, "busy": False}
        assert h.wakes.probes == 0


# ----- the signs, cheapest first ---------------------------------------------------------------


async def test_a_bot_at_its_capacity_is_busy_and_never_probed(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice", capacity=1)
        with WebhookReceiver() as receiver:
            await h.hook(bot, receiver)
            assert verifications(receiver) == 1  # the registration's handshake
            opponent, _ = await h.services.bots.register("acme", "bob")
            await h.services.bot_games.start(
                white=opponent, black=h.services.bots.get("acme/alice"), time_control=Unlimited(), rated=False,
                origin="challenge",
            )
            with held(h.clock):
                assert await h.woken(bot) == {"alive": False, "busy": True}
                await trio.testing.wait_all_tasks_blocked()
            assert h.wakes.probes == 0
            # (The game may deliver a turn to the bot's webhook; the probe is the verification echo.)
            assert verifications(receiver) == 1, "a busy bot is not probed"
            # Below its capacity, the same bot is probed.
            status, _, _ = await h.call("POST", "/bot/capacity", bot["token"], json={"maxConcurrentGames": 2})
            assert status == 200
            with held(h.clock):
                assert await h.woken(bot) == {"alive": True, "busy": False}
            assert (h.wakes.probes, verifications(receiver)) == (1, 2)


async def test_a_house_bot_is_alive_without_a_probe(autojump_clock):
    async with running(autojump_clock, house=True) as h:
        assert h.services.bots.get("house/random") is not None
        assert await h.woken({"team": "house", "name": "random"}) == {"alive": True, "busy": False}
        assert h.wakes.probes == 0


async def test_a_bot_holding_its_account_stream_is_alive_without_a_probe(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        with WebhookReceiver() as receiver:
            await h.hook(bot, receiver)
            subscribed, done = trio.Event(), trio.Event()

            async def hold_stream():
                headers = {"Authorization": f"Bearer {bot['token']}"}
                async with h.client.request("/bot/stream/event", method="GET", headers=headers) as stream:
                    await stream.send_complete()
                    assert await stream.receive() == b"\n"  # the first line: subscribed
                    subscribed.set()
                    await done.wait()
                    await stream.disconnect()  # the bot goes away: the app cancels the stream
                    # quart-trio's test connection drains its channel until the app closes it, which
                    # a cancelled stream never does: close it for the app.
                    await stream._client_send.aclose()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(hold_stream)
                await subscribed.wait()
                with held(h.clock):
                    assert await h.woken(bot) == {"alive": True, "busy": False}
                    await trio.testing.wait_all_tasks_blocked()
                done.set()
            assert not h.services.bot_events.online("acme/alice")
            assert h.wakes.probes == 0
            assert verifications(receiver) == 1, "only the registration's handshake"
            # The stream closed: now the webhook is what answers for the bot.
            with held(h.clock):
                assert await h.woken(bot) == {"alive": True, "busy": False}
            assert (h.wakes.probes, verifications(receiver)) == (1, 2)


# ----- the webhook echo ------------------------------------------------------------------------


async def test_a_webhook_that_echoes_is_alive_and_its_answer_is_kept(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        with WebhookReceiver() as receiver:
            await h.hook(bot, receiver)
            with held(h.clock):
                assert await h.woken(bot) == {"alive": True, "busy": False}
            assert (h.wakes.probes, verifications(receiver)) == (1, 2)
            probe = receiver.of_kind("verification")[-1]
            assert not {"x-dicechess-timestamp", "x-dicechess-signature"} & set(probe.headers), "the unsigned echo"
            h.clock.jump(PROBE_KEPT_S - 1)
            assert await h.woken(bot) == {"alive": True, "busy": False}
            status, body, _ = await h.wake("acme", "alice", scope_base=ELSEWHERE)
            assert (status, body) == (200, {"alive": True, "busy": False}), "whoever asks"
            assert (h.wakes.probes, verifications(receiver)) == (1, 2), "the answer is reused"
            h.clock.jump(1)
            with held(h.clock):
                assert await h.woken(bot) == {"alive": True, "busy": False}
            assert (h.wakes.probes, verifications(receiver)) == (2, 3), "an answer is kept PROBE_KEPT_S"


async def test_concurrent_wakes_share_one_probe(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        gate = Gate()
        with WebhookReceiver(gate) as receiver:
            await h.hook(bot, receiver)
            gate.hold = True
            answers = []

            async def wake(scope_base=None):
                answers.append(await h.wake("acme", "alice", scope_base=scope_base))

            try:
                with held(h.clock):
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(wake)
                        await gate.wait_arrived()  # the first wake's probe is at the endpoint
                        nursery.start_soon(wake, ELSEWHERE)
                        await trio.testing.wait_all_tasks_blocked()  # the second waits for it
                        assert (h.wakes.probes, verifications(receiver), answers) == (1, 2, [])
                        gate.release.set()
            finally:
                gate.release.set()
            assert [(status, body) for status, body, _ in answers] == [(200, {"alive": True, "busy": False})] * 2
            assert (h.wakes.probes, verifications(receiver)) == (1, 2)


async def test_a_webhook_that_does_not_answer_is_not_alive(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        gate = Gate()
        with WebhookReceiver(gate) as receiver:
            await h.hook(bot, receiver)
            gate.hold = gate.silent = True
            answers = []
            with held(h.clock):
                started = trio.current_time()
                async with trio.open_nursery() as nursery:

                    async def wake():
                        answers.append(await h.woken(bot))

                    nursery.start_soon(wake)
                    await gate.wait_arrived()
                    h.clock.autojump_threshold = 0  # the endpoint keeps it: let the timeout come
        assert answers == [{"alive": False, "busy": False}]
        assert VERIFICATION_ECHO_TIMEOUT_S <= trio.current_time() - started <= PROBE_TIMEOUT_S
        assert h.wakes.probes == 1


async def test_a_webhook_that_answers_otherwise_is_not_alive(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        gate = Gate()

        def script(seen: Seen) -> Reply | None:
            return Reply(200, json.dumps({"nonce": "not-the-one"}).encode()) if gate.hold else None

        with WebhookReceiver(script) as receiver:
            await h.hook(bot, receiver)
            gate.hold = True
            with held(h.clock):
                assert await h.woken(bot) == {"alive": False, "busy": False}
            assert (h.wakes.probes, verifications(receiver)) == (1, 2)
            with held(h.clock):
                assert await h.woken(bot) == {"alive": False, "busy": False}
            assert h.wakes.probes == 1, "a negative answer is kept as well"


async def test_a_bot_without_a_webhook_or_stream_is_not_alive(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        assert await h.woken(bot) == {"alive": False, "busy": False}
        assert h.wakes.probes == 0


async def test_with_webhooks_disabled_the_other_signs_still_answer(autojump_clock):
    async with running(autojump_clock, webhooks=False, house=True) as h:
        bot = await h.register("alice")
        assert await h.woken(bot) == {"alive": False, "busy": False}
        assert await h.woken({"team": "house", "name": "greedy"}) == {"alive": True, "busy": False}
        assert h.wakes.probes == 0


# ----- the per-address limit -------------------------------------------------------------------


async def test_the_eleventh_wake_from_one_address_in_a_minute_is_429(autojump_clock):
    async with running(autojump_clock) as h:
        bot = await h.register("alice")
        for _ in range(WAKES_PER_MINUTE):
            assert await h.woken(bot) == {"alive": False, "busy": False}
        h.clock.jump(30)
        status, body, headers = await h.wake("acme", "alice")
        assert_error((status, body), 429, "rate_limited")
        assert int(headers["Retry-After"]) == 30
        status, _, _ = await h.wake("acme", "ghost")
        assert status == 429, "the limit comes before the catalog is looked at"
        status, body, _ = await h.wake("acme", "alice", scope_base=ELSEWHERE)
        assert (status, body) == (200, {"alive": False, "busy": False}), "another address has its own limit"
        h.clock.jump(30)
        assert await h.woken(bot) == {"alive": False, "busy": False}


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_only_post_wakes(autojump_clock, method):
    async with running(autojump_clock) as h:
        await h.register("alice")
        status, body, _ = await h.call(method, "/lobby/bots/acme/alice/wake")
        assert_error((status, body), 405, "method_not_allowed")
        assert h.wakes.probes == 0
