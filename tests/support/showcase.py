"""The showcase table booted in-process on a real PostgreSQL with a real webhook endpoint as
its featured bot (`table_at`), and its durable records changed as a test needs them.

A test module using the `receiver` fixture imports it from here."""

from __future__ import annotations

import contextlib
import json
import uuid
from datetime import datetime, timedelta

import attrs
import psycopg
import pytest

from playsite.accounts import queries as accounts_store
from playsite.accounts.model import Account
from playsite.accounts.sessions import SESSION_COOKIE, Sessions
from playsite.config import Settings
from playsite.rooms.intents import PlayerCommand
from playsite.showcase.table import TablePhase
from playsite.wire import Resign
from tests.support.app import booted, test_client
from tests.support.database import sql
from tests.support.receiver import WebhookReceiver
from tests.support.waiting import wait_until



FEATURED = "studio/featured"
ORIGIN = "https://play.example"
SECRET = "showcase-session-secret-" + "z" * 20
SIGN_IN = dict(session_secret=SECRET, oidc_issuer="https://id.example", oidc_client_id="playsite",
               oidc_client_secret="s", public_origin=ORIGIN)
"""Settings that turn sign-in on (the session path also needs `cors_origins`)."""


def settings_for(url: str, **overrides) -> Settings:
    values = dict(
        database_url=url,
        persistence_enabled=True,
        showcase_enabled=True,
        showcase_bot=FEATURED,
        webhook_push_enabled=True,
        webhook_allow_loopback=True,
        dice_seed_window_ms=0,
    )
    values.update(overrides)
    return Settings(**values)


@attrs.define
class Table:
    services: object
    client: object
    receiver: WebhookReceiver

    @property
    def table(self):
        return self.services.showcase

    async def status(self, **headers):
        response = await self.client.get("/showcase", headers=headers)
        return response, (await response.get_json() if response.status_code == 200 else None)

    async def claim(self, guest: str | None = None, key: str | None = None, **extra):
        body = dict(extra)
        if guest is not None:
            body["guestId"] = guest
        headers = {"Idempotency-Key": key or str(uuid.uuid4())}
        response = await self.client.post("/showcase/claim", json=body, headers=headers)
        return response.status_code, await response.get_json(), response.headers


@contextlib.asynccontextmanager
async def table_at(url: str, receiver: WebhookReceiver, *, register: bool = True, **overrides):
    async with booted(settings_for(url, **overrides), store=None) as services:
        client = test_client(services)
        if register and services.bots.get(FEATURED) is None:
            _, token = await services.bots.register("studio", "featured")
            auth = {"Authorization": f"Bearer {token}"}
            declared = await client.post("/bot/capacity", json={"maxConcurrentGames": 3}, headers=auth)  # as service.md says it does
            assert declared.status_code == 200, await declared.get_data(as_text=True)
            answer = await client.post("/bot/webhook", json={"url": receiver.url()}, headers=auth)
            assert answer.status_code == 201, await answer.get_data(as_text=True)
            receiver.secret = (await answer.get_json())["secret"]
        await services.showcase.reconcile()
        yield Table(services, client, receiver)


@pytest.fixture
def receiver():
    with WebhookReceiver() as endpoint:
        yield endpoint


async def end_game(table: Table, game_id: str) -> None:
    """The human resigns; waits until the table has released the game and reopened."""
    room = table.services.registry.get(game_id)
    seat = next(s for s, state in room.game.seats.items() if state.principal.startswith(("guest:", "user:")))
    intent = PlayerCommand(seat, Resign())
    await room.send(intent)
    await intent.reply.wait()
    await wait_until(lambda: table.table.phase is TablePhase.OPEN, timeout=20, what="the table reopens")


def signed_in(url: str, subject: str = "subject-1") -> tuple[Account, str]:
    """An account signed in through the identity provider, and its session's Cookie header value."""
    with psycopg.connect(url) as conn:
        account = accounts_store.sign_in(conn, "https://id.example", subject, {"nickname": "winner"})
        conn.commit()
    return account, f"{SESSION_COOKIE}={Sessions(SECRET, 3600).issue(account)}"


def created_earlier(url: str, game_id: str, seconds: float) -> None:
    """As if the game had been created `seconds` earlier (the server was down that long)."""
    with psycopg.connect(url) as conn:
        snapshot = conn.execute("SELECT snapshot FROM games WHERE id = %s", (game_id,)).fetchone()[0]
        created = datetime.fromisoformat(snapshot["setup"]["createdAt"].replace("Z", "+00:00"))
        stamp = (created - timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        conn.execute(
            "UPDATE games SET snapshot = jsonb_set(snapshot, '{setup,createdAt}', %s::jsonb) WHERE id = %s",
            (json.dumps(stamp), game_id),
        )


async def archived_as_technical_abort(url: str, game_id: str) -> None:
    """Waits until `game_id` is archived, and checks it was archived as a technical abort."""
    query = "SELECT record ->> 'termination', record ->> 'technical' FROM game_archive WHERE game_id = %s"
    archived = await wait_until(lambda: sql(url, query, (game_id,)), f"game {game_id} to be archived", 10)
    assert archived == [("aborted", "true")], archived
    assert sql(url, "SELECT status FROM games WHERE id = %s", (game_id,)) == [("ended",)]
