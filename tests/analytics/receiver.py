"""A real HTTP analytics receiver for the pump's tests: a threaded stdlib server on 127.0.0.1.

By default it behaves as the analytics service must (docs/analytics.md): the first payload
stored for an `Idempotency-Key` wins (201), a repeated key is answered 409. A per-test
script may override any request's answer, delay it, or both.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import attrs


@attrs.frozen
class Answer:
    status: int | None = None
    """None: first writer wins (store and 201, or 409 for a key already stored)."""
    delay_s: float = 0.0
    """Hold the answer this long after deciding it (a stored payload stays stored)."""
    headers: dict[str, str] = attrs.field(factory=dict)
    body: bytes = b""


@attrs.frozen
class Seen:
    at: float
    """time.monotonic() when the request arrived."""
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes
    key: str | None
    status: int


Script = Callable[[int, "str | None"], "Answer | None"]
"""(how many earlier requests carried this key, key) -> the answer, or None for the default."""


class Receiver:
    def __init__(self, script: Script | None = None):
        self.script = script or (lambda n, key: None)
        self.stored: dict[str, Any] = {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="analytics-receiver", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._closing.set()  # wakes delayed answers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def requests_for(self, key: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.key == key]

    def _decide(self, handler: BaseHTTPRequestHandler, body: bytes) -> Answer:
        parts = urlsplit(handler.path)
        headers = {name.lower(): value for name, value in handler.headers.items()}
        key = headers.get("idempotency-key")
        with self._lock:
            earlier = sum(1 for s in self.seen if s.key == key)
            answer = self.script(earlier, key) or Answer()
            status = answer.status
            if status is None or 200 <= status < 300:
                if key in self.stored:
                    status = 409 if status is None else status
                else:
                    self.stored[key] = json.loads(body)
                    status = 201 if status is None else status
            self.seen.append(Seen(time.monotonic(), parts.path, parse_qs(parts.query), headers, body, key, status))
        return attrs.evolve(answer, status=status)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                answer = receiver._decide(self, body)
                if answer.delay_s and receiver._closing.wait(answer.delay_s):
                    return
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (the timeout tests want exactly that)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
