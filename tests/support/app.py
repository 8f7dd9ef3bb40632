"""The one in-process test boot: `services.boot` in a nursery of the test's own, as `server.main` does."""

from __future__ import annotations

import contextlib
import json
import uuid

import attrs
import trio

from playsite.app import create_app
from playsite.config import Settings
from playsite.games.creation import CreatedGame, create_human_game
from playsite.server import run_http
from playsite.services import Services, boot
from playsite.store import MemoryStore
from playsite.wire import DEFAULT_TIME_CONTROL, TimeControl


@contextlib.asynccontextmanager
async def booted(settings: Settings | None = None, *, store=None, seed_source=None, house: bool = False):
    """Services booted from `settings` (default: `Settings()` on a fresh memory store; the
    configured PostgreSQL store when `settings.database_url` is set), every enabled loop
    running, all of it cancelled on exit. The house bots run only with `house=True`, so a
    test sees exactly the bots it made."""
    settings = attrs.evolve(settings or Settings(), house_bots_enabled=house)
    if store is None and settings.database_url is None:
        store = MemoryStore()
    async with trio.open_nursery() as nursery:
        services = await boot(settings, nursery, store=store, seed_source=seed_source)
        yield services
        nursery.cancel_scope.cancel()


async def friend_game(services: Services, time_control: TimeControl = DEFAULT_TIME_CONTROL) -> CreatedGame:
    """An unrated game between two people, the dice's seed window closed at once, on the
    services' registry: its room and both seats' tokens."""
    return await create_human_game(
        services.registry, time_control, rated=False, seed_window_s=0, durability="best_effort"
    )


def seat_path(game: CreatedGame, seat: str, guest: uuid.UUID) -> str:
    """Where a seat of `game` opens its socket, as the guest `guest`."""
    return f"/games/{game.room.game_id}/ws?token={game.tokens[seat]}&guest={guest}"


def test_client(services: Services):
    """quart's in-process client of the app over `services`."""
    return create_app(services).test_client()


test_client.__test__ = False  # a helper, not a test


async def call(client, method: str, path: str, token: str | None = None, **kwargs):
    """One request through `test_client`: (status, the JSON body or None, headers); `token`
    goes as the bot's bearer token."""
    headers = kwargs.pop("headers", {})
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response = await client.open(path, method=method, headers=headers, **kwargs)
    text = await response.get_data(as_text=True)
    return response.status_code, (json.loads(text) if text else None), response.headers


@contextlib.asynccontextmanager
async def served(services: Services):
    """The app over `services`, served by playsite's own hypercorn set-up (`server.run_http`)
    on a free port of 127.0.0.1 inside the test's trio run: its `ws://` base URL."""
    settings = attrs.evolve(services.settings, host="127.0.0.1", port=0)
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(run_http, create_app(services), settings, trio.Event())
        yield binds[0].replace("http://", "ws://")
        nursery.cancel_scope.cancel()
