"""A real HTTP(S) endpoint for tests: a threaded stdlib server on 127.0.0.1 that keeps every
POST it receives (`seen`) and answers it after the answer's delay.

What it answers is its behaviour's:
- `WebhookReceiver`, a well-written bot (docs/bots/webhooks.md): it echoes the verification
  nonce, verifies the signature of every `yourTurn` with the secret it was given
  (`receiver.secret = ...`, as a bot stores the secret shown once), and answers a random
  legal turn computed from the state's position;
- `AnalyticsReceiver`, the analytics service (docs/analytics.md): the first payload stored
  for an `Idempotency-Key` wins (201), a repeated key is answered 409.
A per-test `script` may answer any request differently (status, body, headers, delay).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import ssl
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import attrs

from playsite.rules import legal_tree, parse_dfen
from tests.support.turns import king_sparing_turn, random_turn


@attrs.frozen
class Reply:
    status: int | None = None
    """None: the behaviour's own answer (a bot's 200; the analytics service's first writer wins)."""
    body: bytes = b""
    delay_s: float = 0.0
    """Hold the answer this long after deciding it (what was stored stays stored)."""
    headers: dict[str, str] = attrs.field(factory=dict)


@attrs.define
class Seen:
    at: float
    """time.monotonic() when the request arrived."""
    path: str
    """Without the query."""
    query: dict[str, list[str]]
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes
    sni: str | None
    status: int | None = None
    """The status answered, once decided."""

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def kind(self) -> str | None:
        try:
            return self.json.get("type")
        except (ValueError, AttributeError):
            return None

    @property
    def key(self) -> str | None:
        return self.headers.get("idempotency-key")


class _QuietServer(ThreadingHTTPServer):
    """The stdlib's threaded server, silent when a client hangs up mid-exchange (tests cut the
    server under test, or its requests time out, while an answer is held back): the stdlib
    prints each such error's traceback from the handler's thread. Any other error still does."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class Receiver:
    """The server; a behaviour says what each request is answered (`answer`)."""

    def __init__(self, *, tls: ssl.SSLContext | None = None, name: str = "receiver"):
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._scheme = "http"
        if tls is not None:
            tls.sni_callback = _remember_sni
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name=name, daemon=True
        )

    def answer(self, seen: Seen) -> Reply:
        """The answer to `seen` (already in `self.seen`); its status must be decided."""
        raise NotImplementedError

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"{self._scheme}://127.0.0.1:{self.port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._closing.set()  # wakes delayed answers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _receive(self, handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        parts = urlsplit(handler.path)
        headers = {name.lower(): value for name, value in handler.headers.items()}
        sni = getattr(handler.connection, "sni_seen", None)
        seen = Seen(time.monotonic(), parts.path, parse_qs(parts.query), headers, body, sni)
        with self._lock:
            self.seen.append(seen)
        reply = self.answer(seen)
        seen.status = reply.status
        return reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                reply = receiver._receive(self, body)
                if reply.delay_s and receiver._closing.wait(reply.delay_s):
                    return
                try:
                    self.send_response(reply.status or 200)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if "Content-Length" not in reply.headers:
                        self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass  # the client gave up first (the timeout tests want exactly that)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _remember_sni(ssl_socket, server_name, context) -> None:
    ssl_socket.sni_seen = server_name


# ----- a bot's webhook ---------------------------------------------------------------------------

Script = Callable[[Seen], "Reply | None"]


def echo(seen: Seen, *, status: int = 200, delay_s: float = 0.0) -> Reply:
    """The verification echo's answer: the nonce sent back (after `delay_s`)."""
    return Reply(status, json.dumps({"nonce": seen.json["nonce"]}).encode(), delay_s=delay_s)


def valid_signature(secret: str, seen: Seen) -> bool:
    timestamp = seen.headers.get("x-dicechess-timestamp", "")
    signature = seen.headers.get("x-dicechess-signature", "")
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + seen.body, hashlib.sha256).hexdigest()
    fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) <= 300
    return fresh and hmac.compare_digest(expected, signature)


class WebhookReceiver(Receiver):
    def __init__(
        self, script: Script | None = None, *, tls: ssl.SSLContext | None = None, seed: int = 7, spare_king: bool = False
    ):
        super().__init__(tls=tls, name="webhook-receiver")
        self.spare_king = spare_king
        """Answer with a turn that does not take the king when another exists (a test that needs the game to go on)."""
        self.script = script or (lambda seen: None)
        self.secret: str | None = None
        self.bad_signatures = 0
        self.turns_answered = 0
        self.answers: list[tuple[int, list[str]]] = []
        """(state version, moves) of every yourTurn answered by default."""
        self.rng = random.Random(seed)

    def url(self, host: str = "127.0.0.1", path: str = "/hook") -> str:
        return f"{self._scheme}://{host}:{self.port}{path}"

    def of_kind(self, kind: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.kind == kind]

    def answer(self, seen: Seen) -> Reply:
        reply = self.script(seen)
        if reply is None:
            try:
                reply = self.default_reply(seen)
            except (ValueError, KeyError, TypeError, AttributeError):
                reply = Reply(400, b"unreadable")
        return reply if reply.status is not None else attrs.evolve(reply, status=200)

    def default_reply(self, seen: Seen) -> Reply:
        message = seen.json
        if message.get("type") == "verification":
            return echo(seen)
        if message.get("type") == "yourTurn":
            if self.secret is not None and not valid_signature(self.secret, seen):
                with self._lock:
                    self.bad_signatures += 1
                return Reply(401, b"bad signature")
            state = message["state"]
            tree = state.get("legalMoves")
            if tree is None:
                tree = legal_tree(parse_dfen(state["dfen"]))
            with self._lock:
                moves = (
                    king_sparing_turn(tree, state["dfen"], message["seat"], self.rng)
                    if self.spare_king
                    else random_turn(tree, self.rng)
                )
                self.turns_answered += 1
                self.answers.append((state["version"], moves))
            return Reply(200, json.dumps({"moves": moves}).encode())
        return Reply(400, b"unknown message")


# ----- the analytics service ---------------------------------------------------------------------

AnalyticsScript = Callable[[int, "str | None"], "Reply | None"]
"""(how many earlier requests carried this key, key) -> the answer, or None for the default."""


class AnalyticsReceiver(Receiver):
    def __init__(self, script: AnalyticsScript | None = None):
        super().__init__(name="analytics-receiver")
        self.script = script or (lambda n, key: None)
        self.stored: dict[str | None, Any] = {}
        self._deciding = threading.Lock()

    @property
    def url(self) -> str:
        return self.base_url

    def requests_for(self, key: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.key == key]

    def answer(self, seen: Seen) -> Reply:
        with self._deciding:  # one decision at a time: the first writer of a key wins
            with self._lock:
                earlier = sum(1 for s in self.seen if s.key == seen.key and s is not seen and s.status is not None)
            reply = self.script(earlier, seen.key) or Reply()
            status = reply.status
            if status is None or 200 <= status < 300:
                if seen.key in self.stored:
                    status = 409 if status is None else status
                else:
                    self.stored[seen.key] = json.loads(seen.body)
                    status = 201 if status is None else status
            seen.status = status
        return attrs.evolve(reply, status=status)
