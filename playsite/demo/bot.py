"""The demo's featured bot: a webhook bot on loopback, run by the demo as a supervised task.

It is a bot like any other: it registers through the Bot API (`POST /bot/register`, once;
its token is kept in the demo directory, mode 0600), serves a webhook on 127.0.0.1, and
registers it (`POST /bot/webhook`) on every start. It answers the verification echo, checks
the signature of every `yourTurn`, and plays the greedy house strategy. If it fails, it is
restarted with backoff; it never takes the server down.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import random
import time
from pathlib import Path

import httpx
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from quart import request
from quart_trio import QuartTrio

from playsite.house.strategy import greedy_turn
from playsite.rules import legal_tree, parse_dfen

log = logging.getLogger("playsite.demo")

TEAM, NAME = "demo", "featured"
BOT_ID = f"{TEAM}/{NAME}"
SIGNATURE_WINDOW_S = 300
RESTART_BACKOFF_S = (1, 2, 5, 10, 30)


class FeaturedBot:
    def __init__(self, state_dir: Path, server_url: str, *, on_ready=None):
        self.token_file = state_dir / "featured-bot.json"
        self.server_url = server_url
        self.on_ready = on_ready
        """Awaited once the webhook is registered (the demo reconciles the showcase then)."""
        self.secret: str | None = None
        self.rng = random.Random()
        self.turns_played = 0

    # ----- the webhook ------------------------------------------------------------------------

    def app(self) -> QuartTrio:
        app = QuartTrio("featured-bot")

        @app.post("/hook")
        async def hook():
            body = await request.get_data()
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
            state = message["state"]
            position = parse_dfen(state["dfen"])
            tree = state.get("legalMoves")
            if tree is None:
                tree = legal_tree(position)
            moves = greedy_turn(position, tree, self.rng)
            self.turns_played += 1
            return {"moves": moves}

        return app

    def signed(self, headers, body: bytes) -> bool:
        if self.secret is None:
            return False
        timestamp = headers.get("X-DiceChess-Timestamp", "")
        signature = headers.get("X-DiceChess-Signature", "")
        expected = hmac.new(self.secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
        fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) <= SIGNATURE_WINDOW_S
        return fresh and hmac.compare_digest(expected, signature)

    # ----- its life ---------------------------------------------------------------------------

    async def supervise(self) -> None:
        """Run the bot; restart it with backoff whenever it fails."""
        failures = 0
        while True:
            try:
                await self.run()
            except Exception as error:  # the bot's fault must never reach the server
                delay = RESTART_BACKOFF_S[min(failures, len(RESTART_BACKOFF_S) - 1)]
                failures += 1
                log.warning("demo: the featured bot failed (%s: %s); restarting in %d s", type(error).__name__, error, delay)
                await trio.sleep(delay)

    async def run(self) -> None:
        config = HypercornConfig()
        config.bind = ["127.0.0.1:0"]
        config.accesslog = None
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(lambda task_status: hypercorn_serve(self.app(), config, task_status=task_status))
            hook_url = f"{binds[0]}/hook"
            await self.register(hook_url)
            if self.on_ready is not None:
                await self.on_ready()
            log.info("demo: the featured bot %s answers at %s", BOT_ID, hook_url)

    async def register(self, hook_url: str) -> None:
        async with httpx.AsyncClient(base_url=self.server_url, timeout=15) as http:
            token = self.saved_token()
            if token is None:
                answer = await http.post("/bot/register", json={"team": TEAM, "name": NAME})
                if answer.status_code != 201:
                    raise RuntimeError(f"registering {BOT_ID} answered {answer.status_code}: {answer.text[:200]}")
                token = answer.json()["token"]
                self.save_token(token)
            auth = {"Authorization": f"Bearer {token}"}
            await http.post("/bot/open-to-humans", json={"description": "The demo's featured bot: greedy, one turn ahead."}, headers=auth)
            answer = await http.post("/bot/webhook", json={"url": hook_url}, headers=auth)
            if answer.status_code != 201:
                raise RuntimeError(f"registering the webhook answered {answer.status_code}: {answer.text[:200]}")
            self.secret = answer.json()["secret"]

    def saved_token(self) -> str | None:
        try:
            return json.loads(self.token_file.read_text())["token"]
        except (OSError, ValueError, KeyError):
            return None

    def save_token(self, token: str) -> None:
        descriptor = os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump({"bot": BOT_ID, "token": token}, file)
