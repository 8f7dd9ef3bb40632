"""Booting playsite with `/me` and `/admin` on a real PostgreSQL, signed-in accounts, a counting
resolver, and calls shaped as a browser page of the allowed origin makes them."""

from __future__ import annotations

import contextlib
import json
import uuid

import attrs
import psycopg

from playsite.accounts import queries as accounts_store
from playsite.accounts.model import Account
from playsite.accounts.sessions import SESSION_COOKIE, Sessions
from playsite.config import Settings
from tests.support.app import booted, call, test_client

ORIGIN = "https://play.example"
SECRET = "management-session-secret-" + "m" * 20
WRITE = {"Origin": ORIGIN, "X-Game-CSRF": "1"}
HOOK_HOST = "hook.test"
"""A name only the counting resolver knows: it maps it to the loopback receiver."""


def settings_for(url: str, admins: tuple[str, ...] = (), **overrides) -> Settings:
    values = dict(
        database_url=url, persistence_enabled=True, dice_seed_window_ms=0, cors_origins=(ORIGIN,),
        session_secret=SECRET, oidc_issuer="https://id.example", oidc_client_id="playsite", oidc_client_secret="s",
        public_origin=ORIGIN, webhook_session_management_enabled=True, webhook_allow_loopback=True, admins=admins,
        webhook_push_enabled=True,
    )
    values.update(overrides)
    return Settings(**values)


def make_account(url: str, name: str) -> Account:
    with psycopg.connect(url) as conn:
        account = accounts_store.sign_in(conn, "https://id.example", name, {"nickname": name})
        conn.commit()
    return account


class CountingResolver:
    """Resolves `HOOK_HOST` to 127.0.0.1 and counts every lookup."""

    def __init__(self) -> None:
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        if host == HOOK_HOST:
            return ["127.0.0.1"]
        raise OSError("unknown host")


@attrs.define
class Browser:
    """One signed-in person's calls to the app."""

    client: object
    account: Account
    cookie: str

    def headers(self, write: bool, revision: int | None = None, **extra) -> dict:
        headers = {"Cookie": f"{SESSION_COOKIE}={self.cookie}"}
        if write:
            headers.update(WRITE)
            headers["Content-Type"] = "application/json"
        if revision is not None:
            headers["If-Match"] = f'"{revision}"'
        headers.update(extra)
        return headers

    async def call(self, method: str, path: str, *, body=None, revision: int | None = None, headers=None):
        write = method != "GET"
        sent = headers if headers is not None else self.headers(write, revision)
        data = json.dumps(body if body is not None else {}) if write else None
        return await call(self.client, method, path, headers=sent, data=data)


@contextlib.asynccontextmanager
async def managed_server(url: str, *, admins: tuple[str, ...] = (), **overrides):
    async with booted(settings_for(url, admins, **overrides)) as services:
        resolver = CountingResolver()
        services.webhooks.resolver = resolver
        yield services, test_client(services), resolver


def browser(client, account: Account) -> Browser:
    return Browser(client, account, Sessions(SECRET, 3600).issue(account))


def hook_url(receiver, path: str = "/hook") -> str:
    return f"http://{HOOK_HOST}:{receiver.port}{path}"


def new_bot_name() -> str:
    return f"b{uuid.uuid4().hex[:8]}"


async def slot(person, bot: str, prefix: str = "/me") -> tuple[dict, int]:
    """The bot's webhook slot as `person` reads it, and its revision."""
    status, body, headers = await person.call("GET", f"{prefix}/bots/{bot}/webhook")
    assert status == 200, body
    assert headers["ETag"] == f'"{body["revision"]}"' and "no-store" in headers["Cache-Control"]
    return body, body["revision"]


async def stage(person, bot: str, url: str, prefix: str = "/me") -> int:
    """Stage `url` as the bot's pending setup; the slot's new revision."""
    _, revision = await slot(person, bot, prefix)
    status, body, headers = await person.call("PUT", f"{prefix}/bots/{bot}/webhook/setup", body={"url": url}, revision=revision)
    assert status == 200, body
    assert body["setup"]["state"] == "pending" and body["setup"]["attemptsLeft"] == 5
    return int(headers["ETag"].strip('"'))
