"""What the browser tests of the web client share: Debian's Chromium through Playwright
(launched once per module), and finished games made over real sockets."""

from __future__ import annotations

import random

import pytest
import trio
from playwright.sync_api import expect, sync_playwright

from playsite.wire import GameEnded, Resign, SubmitSeed, encode_command
from tests.support.client import Player, Table, create_game

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
expect.set_options(timeout=15_000)  # a 2-core CI machine under load: generous, never a sleep


@pytest.fixture(scope="module")
def chromium():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def context(chromium):
    """A fresh browser profile (cookies, storage) for one test."""
    made = chromium.new_context()
    yield made
    made.close()


def finished_game(server, turns: int, seeds: dict[str, str] | None = None, seed: int = 5) -> str:
    """A game played `turns` turns over real sockets (never taking a king), then resigned by
    White; returns its id once the archive has it."""

    async def play() -> str:
        game = await create_game(server.base_url, timeControl={"Unlimited": {}})
        table = Table(Player(server.ws_url, game, "White"), Player(server.ws_url, game, "Black"))
        rng = random.Random(seed)
        async with table.open():
            for seat, text in (seeds or {}).items():
                await table.players[seat].ws.send_message(encode_command(SubmitSeed(text)))
            for _ in range(turns):
                await table.play_turn(rng, spare_king=True)
            white = table.players["White"]
            await white.ws.send_message(encode_command(Resign()))
            await table.wait_for(white, lambda event: isinstance(event, GameEnded))
        return game["gameId"]

    return trio.run(play)
