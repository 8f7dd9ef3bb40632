"""`playsite serve` with one more game, begun from a position the test gives, for browser tests
of what only a rare position shows (a pawn about to promote, a castling). Everything else is the
real server: its boot, its HTTP and WebSocket edge, its rooms, dice and trees.

    python -m tests.support.positioned_server "<DFEN>" [<server seed as hex>]

With a server seed, that game's dice are known in advance (its client seeds are frozen empty at
creation, so the seeds the pages send are ignored: every roll is `roll(seed, "", "", ply)`), so a test can
choose a seed whose rolls give what it needs (`tests/support/dice.py`, `seed_rolling`); every
other game draws its seed as the server always does. The process then prints `positioned game: {"gameId": ..., "white": <token>, "black": <token>}` once the game is
created, before hypercorn's listening line (tests/support/server.ServerProcess waits for it).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import uuid
from collections.abc import Iterator

import trio

from playsite.cli.serve import configure_logging
from playsite.config import Settings
from playsite.dice import SeedSource
from playsite.games.creation import human_seat
from playsite.rooms.admission import Purpose
from playsite.rooms.model import RoomSetup
from playsite.rules import parse_dfen
from playsite.server import serve, wait_for_signals
from playsite.services import boot
from playsite.wire import BLACK, WHITE, Unlimited


class FirstSeed:
    """Hands out `seed` once, then whatever `then` hands out."""

    def __init__(self, seed: bytes, then: SeedSource) -> None:
        self.seed, self.then = seed, then

    def new_seed(self) -> bytes:
        seed, self.seed = self.seed, None
        return seed if seed is not None else self.then.new_seed()


async def main(dfen: str, seed_hex: str | None = None) -> None:
    settings = Settings.from_environ()
    configure_logging(settings)  # as `playsite serve` logs: "listening on" is an INFO line
    async with trio.open_nursery() as nursery:
        services = await boot(settings, nursery)
        if seed_hex is not None:  # drawn by the create below, before its first await
            services.registry.seed_source = FirstSeed(bytes.fromhex(seed_hex), services.registry.seed_source)
        (white, white_seat), (black, black_seat) = human_seat(), human_seat()
        setup = RoomSetup(
            game_id=str(uuid.uuid4()),
            time_control=Unlimited(),
            white=white_seat,
            black=black_seat,
            origin="friend",
            await_joins=True,
            seed_window_s=0,
            start=parse_dfen(dfen),
        )
        room = await services.registry.create(setup, Purpose.GENERAL, participants=())
        if seed_hex is not None:
            # The rolls the test chose from the server seed alone: the pages' own client seeds
            # (the web client sends one before the first roll) are refused as late.
            room.game.fairness = room.game.fairness.freeze_client_seeds()
        print("positioned game: " + json.dumps({"gameId": room.game_id, WHITE.lower(): white, BLACK.lower(): black}),
              file=sys.stderr, flush=True)
        shutdown = trio.Event()
        nursery.start_soon(wait_for_signals, shutdown, nursery.cancel_scope)
        await serve(services, shutdown)
        nursery.cancel_scope.cancel()


@contextlib.contextmanager
def positioned_game(dfen: str, seed: bytes | None = None) -> Iterator[tuple[object, dict]]:
    """This server in its own process, and its one game (`{"gameId", "white", "black"}`, the
    seats' tokens), the first roll at once."""
    from tests.support.server import ServerProcess  # the test side's; not needed to serve

    module = ("tests.support.positioned_server", dfen, *([seed.hex()] if seed is not None else []))
    server = ServerProcess({"DICE_SEED_WINDOW_MS": "0"}, module=module).start()
    try:
        yield server, json.loads(re.search(r"positioned game: (\{.*\})", server.output())[1])
    finally:
        server.close()


def seats_in_browsers(chromium, server, game: dict) -> dict:
    """A page per seat, each in a browser context of its own (desktop size), connected."""
    from playwright.sync_api import expect

    pages = {}
    for seat in ("White", "Black"):
        page = chromium.new_context(viewport={"width": 1366, "height": 900}).new_page()
        page.goto(f"{server.base_url}/play/{game['gameId']}#seat={seat}&token={game[seat.lower()]}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        pages[seat] = page
    return pages


if __name__ == "__main__":
    trio.run(main, *sys.argv[1:3])
