"""The demo's featured bot: a webhook bot on loopback, run by the demo as a supervised task.

It is a bot like any other: it registers through the Bot API (`POST /bot/register`, once;
its token is kept in the demo directory, mode 0600), serves a webhook on 127.0.0.1, and
registers it (`POST /bot/webhook`) on every start. It answers the verification echo, checks
the signature of every `yourTurn`, and plays the greedy house strategy. If it fails, it is
restarted with backoff; it never takes the server down.

Its webhook listens before the server boots, on the port of the previous run (kept with its
token, as is the secret of its last registration): the server's readiness probe at boot
(the showcase's) reaches the bot at the address it has on record, so the table opens at
once instead of reporting a bot that is not there yet. `think` (set by the demo's league)
makes it pause before answering in the games it names.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import random
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from quart import request
from quart.typing import ResponseReturnValue
from quart_trio import QuartTrio
from werkzeug.datastructures import Headers

from playsite.house.strategy import greedy_turn
from playsite.rooms.admission import FEATURED_BOT_CAPACITY as FEATURED_CAPACITY
from playsite.rules import legal_tree, parse_dfen

log = logging.getLogger("playsite.demo")

TEAM, NAME = "demo", "featured"
BOT_ID = f"{TEAM}/{NAME}"
SIGNATURE_WINDOW_S = 300
RESTART_BACKOFF_S = (1, 2, 5, 10, 30)


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it: a port in TIME_WAIT is free
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class _Started(trio.TaskStatus[list[str]]):
    """Hands hypercorn's bound addresses to `callback`."""

    def __init__(self, callback: Callable[[list[str]], None]):
        self.callback = callback

    def started(self, value: list[str]) -> None:
        self.callback(value)


class FeaturedBot:
    def __init__(self, state_dir: Path, *, on_ready: Callable[[], Awaitable[None]] | None = None):
        self.token_file = state_dir / "featured-bot.json"
        self.server_url: str | None = None
        """Set by the demo once the server's port is open."""
        self.on_ready = on_ready
        """Awaited once the webhook is registered (the demo reconciles the showcase then)."""
        saved = self.saved()
        self.secret: str | None = saved.get("secret")
        self.port: int = saved.get("port", 0)
        self.hook_url: str | None = None
        self.think: Callable[[str | None], float] | None = None
        """None, or game id -> seconds to wait before answering a turn of that game."""
        self.rng = random.Random()
        self.turns_played = 0

    # ----- the webhook ------------------------------------------------------------------------

    def app(self) -> QuartTrio:
        app = QuartTrio("featured-bot")

        @app.post("/hook")
        async def hook() -> ResponseReturnValue:
            body = await request.get_data(True, False, False)  # cache, as bytes, no form parsing: the defaults
            try:
                message = json.loads(body)
            except ValueError:
                return {"error": "not JSON"}, 400
            if message.get("type") == "verification":
                return {"nonce": message.get("nonce")}
            if message.get("type") != "yourTurn":
                return {"error": "unknown message"}, 400
            if not self.signed(request.headers, body):
                return {"error": "bad signature"}, 401
            if self.think is not None and (delay := self.think(message.get("gameId"))):
                await trio.sleep(delay)
            state = message["state"]
            position = parse_dfen(state["dfen"])
            tree = state.get("legalMoves")
            if tree is None:
                tree = legal_tree(position)
            moves = greedy_turn(position, tree, self.rng)
            self.turns_played += 1
            return {"moves": moves}

        return app

    def signed(self, headers: Headers, body: bytes) -> bool:
        if self.secret is None:
            return False
        timestamp = headers.get("X-DiceChess-Timestamp", "")
        signature = headers.get("X-DiceChess-Signature", "")
        expected = hmac.new(self.secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
        fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) <= SIGNATURE_WINDOW_S
        return fresh and hmac.compare_digest(expected, signature)

    # ----- its life ---------------------------------------------------------------------------

    async def listen(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve the webhook on loopback, on the previous run's port when it is free."""
        config = HypercornConfig()
        config.accesslog = None
        config.errorlog = logging.getLogger("playsite.demo.bot")
        port = self.port if self.port and port_free(self.port) else 0
        config.bind = [f"127.0.0.1:{port}"]

        def started(binds: list[str]) -> None:
            self.hook_url = f"{binds[0]}/hook"
            self.port = int(binds[0].rsplit(":", 1)[1])
            task_status.started(self.hook_url)

        await hypercorn_serve(self.app(), config, task_status=_Started(started))

    async def supervise(self, server_url: str) -> None:
        """Register the bot and its webhook; retry with backoff whenever that fails."""
        self.server_url = server_url
        assert self.hook_url is not None, "listen() first"
        failures = 0
        while True:
            try:
                await self.register(self.hook_url)
                if self.on_ready is not None:
                    await self.on_ready()
                log.info("demo: the featured bot %s answers at %s", BOT_ID, self.hook_url)
                return
            except Exception as error:  # the bot's fault must never reach the server
                delay = RESTART_BACKOFF_S[min(failures, len(RESTART_BACKOFF_S) - 1)]
                failures += 1
                log.warning("demo: the featured bot failed (%s: %s); retrying in %d s", type(error).__name__, error, delay)
                await trio.sleep(delay)

    async def register(self, hook_url: str) -> None:
        assert self.server_url is not None, "the server is up first"
        async with httpx.AsyncClient(base_url=self.server_url, timeout=15) as http:
            token = self.saved().get("token")
            if token is not None:  # a token this database does not know (its cluster was deleted): a new one
                known = await http.get("/bot/account", headers={"Authorization": f"Bearer {token}"})
                if known.status_code == 401:
                    token = None
            if token is None:
                answer = await http.post("/bot/register", json={"team": TEAM, "name": NAME})
                if answer.status_code != 201:
                    raise RuntimeError(f"registering {BOT_ID} answered {answer.status_code}: {answer.text[:200]}")
                token = answer.json()["token"]
                self.save(token=token)
            auth = {"Authorization": f"Bearer {token}"}
            # The featured bot declares 3 (general 2, showcase 1), as service.md has it.
            answer = await http.post("/bot/capacity", json={"maxConcurrentGames": FEATURED_CAPACITY}, headers=auth)
            if answer.status_code != 200:
                raise RuntimeError(f"declaring the capacity answered {answer.status_code}: {answer.text[:200]}")
            await http.post("/bot/open-to-humans", json={"description": "The demo's featured bot: greedy, one turn ahead."}, headers=auth)
            answer = await http.post("/bot/webhook", json={"url": hook_url}, headers=auth)
            if answer.status_code != 201:
                raise RuntimeError(f"registering the webhook answered {answer.status_code}: {answer.text[:200]}")
            self.secret = answer.json()["secret"]
            self.save(token=token, secret=self.secret, port=self.port)

    def saved(self) -> dict:
        try:
            saved = json.loads(self.token_file.read_text())
        except (OSError, ValueError):
            return {}
        return saved if isinstance(saved, dict) else {}

    def save(self, **fields: object) -> None:
        """Rewrite the bot's file (mode 0600) with `fields` over what it held."""
        data = {**self.saved(), "bot": BOT_ID, **fields}
        partial = self.token_file.with_name(self.token_file.name + ".new")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump(data, file)
        os.replace(partial, self.token_file)
