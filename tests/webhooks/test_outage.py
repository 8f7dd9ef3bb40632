"""With PostgreSQL gone (its pool closed under a booted app: every store call fails at once), the
webhook registration routes and the rematch routes answer 503 `temporarily_unavailable` with
`Retry-After`, each in its family's error shape, as every route does: the edge maps an
unavailable store, no route handles it itself."""

from __future__ import annotations

import uuid

import pytest

from playsite.config import Settings
from tests.support.app import booted, call, test_client
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.receiver import WebhookReceiver
from tests.support.rematch import WRITE

pytestmark = pytest.mark.postgres

UNAVAILABLE = {"error": {"code": "temporarily_unavailable", "message": "the store is unavailable; try again"}}


def settings_for(url: str) -> Settings:
    return Settings(
        database_url=url, persistence_enabled=True, dice_seed_window_ms=0, webhook_push_enabled=True,
        webhook_allow_loopback=True, cors_origins=("https://play.example",),
    )


async def test_the_webhook_routes_answer_503_in_the_bot_api_shape_when_the_store_is_gone(migrated_url):
    with WebhookReceiver() as receiver:
        async with booted(settings_for(migrated_url)) as services:
            client = test_client(services)
            _, bot, _ = await call(client, "POST", "/bot/register", json={"team": "outage", "name": uuid.uuid4().hex[:8]})
            await services.store.database.close()
            for method, path, body in (
                ("POST", "/bot/webhook", {"url": receiver.url()}),
                ("GET", "/bot/webhook", None),
                ("DELETE", "/bot/webhook", None),
                ("GET", "/bot/webhook/stats", None),
            ):
                status, answer, headers = await call(client, method, path, bot["token"], json=body)
                assert (status, answer) == (503, UNAVAILABLE), (method, path)
                assert headers["Retry-After"] == "5"
        assert [seen.kind for seen in receiver.seen] == ["verification"]  # the handshake ran; nothing was stored


async def test_the_rematch_routes_answer_503_in_the_rematch_shape_when_the_store_is_gone(migrated_url):
    async with booted(settings_for(migrated_url)) as services:
        client = test_client(services)
        await services.store.database.close()
        game = f"/games/{uuid.uuid4()}"
        command = {"requestId": str(uuid.uuid4()), "action": "propose"}
        for method, path, body, headers in (
            ("GET", f"{game}/rematch", None, {}),
            ("POST", f"{game}/rematch", command, WRITE),
            ("GET", f"{game}/continuation", None, {}),
        ):
            status, answer, sent = await call(client, method, path, json=body, headers=headers)
            assert (status, answer) == (503, {"error": {"code": "temporarily_unavailable"}}), (method, path)
            assert sent["Retry-After"] == "5" and sent["Cache-Control"] == "no-store"
