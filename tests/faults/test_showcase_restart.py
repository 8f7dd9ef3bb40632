"""The showcase table across restarts of real `playsite serve` processes (kill -9), with a
real webhook endpoint as the featured bot. The claim grace is an absolute deadline (the
game's creation + 30 s), stored with the game: a restart neither restarts nor extends it,
and a game resumed past it ends at once, after which the table reopens."""

from __future__ import annotations

import time
import uuid

import httpx
import psycopg
import pytest

from tests.support.receiver import WebhookReceiver
from tests.support.showcase import created_earlier
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

CLAIM_GRACE_S = 30


def env(url: str, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "SHOWCASE_ENABLED": "true",
        "SHOWCASE_BOT": "studio/featured",
        "WEBHOOK_PUSH_ENABLED": "true",
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        **extra,
    }


@pytest.fixture
def receiver():
    with WebhookReceiver() as endpoint:
        yield endpoint


async def featured_bot(server, receiver: WebhookReceiver) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        token = (await http.post("/bot/register", json={"team": "studio", "name": "featured"})).json()["token"]
        hook = await http.post("/bot/webhook", json={"url": receiver.url()}, headers={"Authorization": f"Bearer {token}"})
        assert hook.status_code == 201, hook.text
        receiver.secret = hook.json()["secret"]


async def status(server) -> dict:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        return (await http.get("/showcase")).json()


async def claim(server) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        return await http.post(
            "/showcase/claim", json={"guestId": str(uuid.uuid4())}, headers={"Idempotency-Key": str(uuid.uuid4())}
        )


def stored(url: str, game_id: str) -> tuple[str, int, str | None]:
    with psycopg.connect(url) as conn:
        status_, version = conn.execute("SELECT status, version FROM games WHERE id = %s", (game_id,)).fetchone()
        pointer = conn.execute("SELECT current_game::text FROM showcase_table").fetchone()[0]
    return status_, version, pointer


async def claimed_then_restarted(serve, url: str, receiver, **extra: str):
    """A server whose table is open (the featured bot registered before it booted), one claim
    won, the server killed before the winner connects; returns (claimed game id, a new server)."""
    first = serve(env(url, **extra))
    await featured_bot(first, receiver)
    first.kill()
    second = serve(env(url, **extra))
    assert (await status(second))["status"] == "open"
    won = await claim(second)
    assert won.status_code == 200 and won.json()["outcome"] == "claimed", won.text
    if extra.get("DICE_SEED_WINDOW_MS") == "0":  # the first roll is stored before the process dies
        await wait_until(lambda: stored(url, won.json()["gameId"])[1] > 0, "the first roll stored", 10, 0.05)
    second.kill()
    return won.json()["gameId"]


async def test_a_claimed_game_never_begun_and_resumed_past_its_claim_deadline_ends_and_the_table_reopens(
    serve, migrated_url, receiver
):
    game_id = await claimed_then_restarted(serve, migrated_url, receiver, DICE_SEED_WINDOW_MS="60000")
    assert stored(migrated_url, game_id)[:2] == ("active", 0)  # stored before it began: no dice yet
    created_earlier(migrated_url, game_id, CLAIM_GRACE_S + 1)
    third = serve(env(migrated_url, DICE_SEED_WINDOW_MS="60000"))
    reopened = await wait_until(
        lambda: _open(third), "the table to reopen after the game past its claim deadline ended", 10, 0.05
    )
    assert reopened["status"] == "open"
    assert stored(migrated_url, game_id)[0] == "ended"
    async with httpx.AsyncClient() as http:
        history = (await http.get(f"{third.base_url}/games/{game_id}/history", timeout=10)).json()
    assert history["termination"] == "aborted"
    again = await claim(third)
    assert again.json()["outcome"] == "claimed" and again.json()["gameId"] != game_id


async def test_a_restart_neither_restarts_nor_extends_the_claim_grace_of_a_game_under_way(
    serve, migrated_url, receiver
):
    game_id = await claimed_then_restarted(serve, migrated_url, receiver, DICE_SEED_WINDOW_MS="0")
    assert stored(migrated_url, game_id)[1] > 0  # under way: dice rolled
    left = 10
    created_earlier(migrated_url, game_id, CLAIM_GRACE_S - left)  # 10 s of the grace are left
    claim_deadline = time.monotonic() + left
    third = serve(env(migrated_url, DICE_SEED_WINDOW_MS="0"))
    if time.monotonic() < claim_deadline - 2:  # booted well in time (a loaded machine may not: CI s64)
        assert (await status(third))["status"] == "live", "resumed, not ended at boot"
    await wait_until(lambda: _open(third), "the table to reopen once the claim deadline passed", 40, 0.05)
    # a grace started afresh at the restart would end 30 s after the boot, 20 s past this deadline at least
    assert time.monotonic() < claim_deadline + 10, "the grace started afresh at the restart"
    assert stored(migrated_url, game_id)[0] == "ended"


async def _open(server) -> dict | None:
    body = await status(server)
    return body if body["status"] == "open" else None
