"""The rematch routes' rate limits (service.md, Limits: "120 reads and 30 mutations per minute,
fixed window, per IP and per authenticated participant identity; limiter tracks at most 10,000
keys; exhaustion gives 429 with `Retry-After: 60`; process-local"), on a real PostgreSQL, booted
in-process. Addresses are loopback ones (127.0.0.x), over which a guest's seat token counts as
it does over HTTPS. No test waits for a window to close. (30 commands from one address are
pinned in test_rematch_routes.py.)"""

from __future__ import annotations

import inspect

import pytest

from playsite.http.ratelimit import RateLimiter
from playsite.wire import BLACK, WHITE
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.rematch import continuation, finished_game, get, post, server

pytestmark = pytest.mark.postgres


def address(n: int) -> dict:
    """The request scope of a client at 127.0.0.<n>."""
    return {"client": (f"127.0.0.{n}", 40000)}


def route_limiters(client) -> dict[str, RateLimiter]:
    """The limiters the rematch routes count with, as the served views hold them: `reads`
    (GET .../rematch and GET .../continuation) and `mutations` (POST .../rematch)."""
    views = client.app.view_functions
    held = {
        **inspect.getclosurevars(views["rematch.read_rematch"]).nonlocals,
        **inspect.getclosurevars(views["rematch.read_continuation"]).nonlocals,
        **inspect.getclosurevars(views["rematch.command_rematch"]).nonlocals,
    }
    return {name: held[name] for name in ("reads", "mutations")}


def assert_rate_limited(status: int, body: dict, headers) -> None:
    assert status == 429 and body == {"error": {"code": "rate_limited"}}, (status, body)
    assert headers["Retry-After"] == "60" and headers["Cache-Control"] == "no-store"


async def read_continuation(client, game_id: str, n: int):
    response = await client.get(f"/games/{game_id}/continuation", scope_base=address(n))
    return response.status_code, await response.get_json(), response.headers


async def test_120_reads_a_minute_per_address_then_429_with_retry_after_60_and_no_deadline_moves(migrated_url):
    """The two read routes share one budget per address; another address keeps its own, and
    the refusal changes no deadline."""
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        _, before, _ = await get(client, game_id, tokens[WHITE], scope_base=address(9))
        statuses = [(await read_continuation(client, game_id, 2))[0] for _ in range(119)]
        status, _, _ = await get(client, game_id, tokens[BLACK], scope_base=address(2))
        assert statuses + [status] == [200] * 120
        assert_rate_limited(*await read_continuation(client, game_id, 2))
        assert_rate_limited(*await get(client, game_id, tokens[WHITE], scope_base=address(2)))
        status, after, _ = await get(client, game_id, tokens[WHITE], scope_base=address(3))
        assert status == 200 and after["deadlineAt"] == before["deadlineAt"]
        assert (await continuation(client, game_id))["phase"] == "waiting"


async def test_one_participant_from_two_addresses_is_limited_by_identity_too(migrated_url):
    """60 reads from each of two addresses are White's 120: the next is refused from either
    address and from a third, while Black, from the same addresses, is still served. The same
    for commands: 15 + 15 of White's, then 429."""
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        statuses = [(await get(client, game_id, tokens[WHITE], scope_base=address(n)))[0] for n in (2, 3) for _ in range(60)]
        assert statuses == [200] * 120
        for n in (3, 4):
            assert_rate_limited(*await get(client, game_id, tokens[WHITE], scope_base=address(n)))
        status, body, _ = await get(client, game_id, tokens[BLACK], scope_base=address(3))
        assert status == 200 and body["phase"] == "available"

        commands = [(await post(client, game_id, tokens[WHITE], "propose", scope_base=address(n)))[0]
                    for n in (5, 6) for _ in range(15)]
        assert commands == [200] * 30
        for n in (6, 7):
            assert_rate_limited(*await post(client, game_id, tokens[WHITE], "propose", scope_base=address(n)))
        status, body, _ = await post(client, game_id, tokens[BLACK], "decline", scope_base=address(6))
        assert status == 200 and body["phase"] == "closed" and body["closedReason"] == "declined"


async def test_each_limiter_keeps_at_most_10000_keys_and_refuses_a_new_one_when_full(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, _, _ = await finished_game(services)
        limiters = route_limiters(client)
        configured = {name: (limiter.limit, limiter.window_s, limiter.max_keys, limiter.refuse_when_full)
                      for name, limiter in limiters.items()}
        assert configured == {"reads": (120, 60, 10_000, True), "mutations": (30, 60, 10_000, True)}

        reads = limiters["reads"]
        assert (await read_continuation(client, game_id, 2))[0] == 200  # 127.0.0.2's window is open
        for n in range(10_000 - len(reads)):  # as many other clients as fill the table
            assert reads.attempt(f"address:198.51.{n // 256}.{n % 256}") is None
        assert len(reads) == 10_000
        # A new key is refused (key exhaustion), and nobody's open window is forgotten for it.
        assert_rate_limited(*await read_continuation(client, game_id, 3))
        assert (await read_continuation(client, game_id, 2))[0] == 200
        assert len(reads) == 10_000
