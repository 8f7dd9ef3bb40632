"""A TCP proxy in front of PostgreSQL that reads the wire protocol and, once armed, stops the
backend (SIGSTOP) of the first transaction that wrote a matching statement, at the instant its
`COMMIT` goes on the wire: the COMMIT is held, the backend stopped, then the COMMIT forwarded,
so the server's answer can only come once the test thaws it (SIGCONT).

This is the one fault a client cannot tell from "it failed": the write may have happened.

The proxy speaks only what it needs of the protocol (frontend: the untyped startup message,
then typed messages; backend: typed messages, `K` BackendKeyData names the backend's pid), so
connections through it must not ask for TLS or GSS encryption (`url` turns both off).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import threading
from urllib.parse import urlsplit, urlunsplit


class Frozen:
    """One backend stopped at its COMMIT."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.thawed = threading.Event()

    def thaw(self) -> None:
        if not self.thawed.is_set():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGCONT)
            self.thawed.set()


class CommitFreezer:
    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._armed: str | None = None
        self.frozen: list[Frozen] = []
        self.stopped = threading.Event()
        """Set once an armed COMMIT has stopped its backend."""
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, database_url: str) -> str:
        """`database_url` through the proxy (same database, user), without TLS or GSS."""
        parts = urlsplit(database_url)
        netloc = f"{parts.username}@127.0.0.1:{self.port}" if parts.username else f"127.0.0.1:{self.port}"
        query = "&".join(q for q in (parts.query, "sslmode=disable&gssencmode=disable") if q)
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))

    def arm(self, statement: str = "INSERT INTO games") -> None:
        """Stop the backend at the next COMMIT of a transaction that ran a statement containing `statement`."""
        with self._lock:
            self._armed = statement
            self.stopped.clear()

    def thaw(self) -> None:
        for frozen in list(self.frozen):
            frozen.thaw()

    def close(self) -> None:
        self.thaw()
        self._closed = True
        # Shut down before closing: closing a socket does not wake a thread blocked on it, so
        # its pump (and the accepting thread) would outlive the proxy.
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    # ----- connections ----------------------------------------------------------------------

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self._sockets += [client, server]
            link = _Link()
            for pump, args in ((self._frontend, (client, server, link)), (self._backend, (server, client, link))):
                threading.Thread(target=_until_closed, args=(pump, args, (client, server)), daemon=True).start()

    def _frontend(self, client: socket.socket, server: socket.socket, link: _Link) -> None:
        """Client to server: forward every message, watching what each transaction runs."""
        with contextlib.suppress(OSError, ConnectionError):
            startup = _read_exact(client, 4)
            length = struct.unpack("!i", startup)[0]
            body = _read_exact(client, length - 4)
            code = struct.unpack("!i", body[:4])[0]
            assert code not in (80877103, 80877104), "connect through the proxy with sslmode=disable&gssencmode=disable"
            server.sendall(startup + body)
            statements: dict[bytes, bytes] = {}
            wrote = False
            while True:
                head = _read_exact(client, 5)
                kind, length = head[:1], struct.unpack("!i", head[1:])[0]
                body = _read_exact(client, length - 4)
                if kind == b"P":
                    name, rest = body.split(b"\0", 1)
                    statements[name] = rest.split(b"\0", 1)[0]
                elif kind == b"B":
                    _portal, statement, _ = body.split(b"\0", 2)
                    wrote = wrote or self._matches(statements.get(statement, b""))
                elif kind == b"Q":
                    text = body.rstrip(b"\0").strip().upper()
                    if text.startswith((b"BEGIN", b"ROLLBACK")):
                        wrote = False
                    elif text.startswith(b"COMMIT"):
                        if wrote and self._take_arm():
                            frozen = Frozen(link.pid())
                            os.kill(frozen.pid, signal.SIGSTOP)
                            self.frozen.append(frozen)
                            server.sendall(head + body)
                            self.stopped.set()
                            continue
                        wrote = False
                    else:
                        wrote = wrote or self._matches(text)
                server.sendall(head + body)

    def _backend(self, server: socket.socket, client: socket.socket, link: _Link) -> None:
        """Server to client: forward every message, learning the backend's pid."""
        with contextlib.suppress(OSError, ConnectionError):
            while True:
                head = _read_exact(server, 5)
                length = struct.unpack("!i", head[1:])[0]
                body = _read_exact(server, length - 4)
                if head[:1] == b"K":
                    link.known(struct.unpack("!i", body[:4])[0])
                client.sendall(head + body)

    def _matches(self, query: bytes) -> bool:
        with self._lock:
            return self._armed is not None and self._armed.upper().encode() in query.upper()

    def _take_arm(self) -> bool:
        with self._lock:
            armed, self._armed = self._armed, None
            return armed is not None


class _Link:
    """What the two directions of one connection share: the backend's pid."""

    def __init__(self) -> None:
        self._pid: int | None = None
        self._known = threading.Event()

    def known(self, pid: int) -> None:
        self._pid = pid
        self._known.set()

    def pid(self) -> int:
        assert self._known.wait(5), "no BackendKeyData on this connection"
        assert self._pid is not None
        return self._pid


def _until_closed(pump, args, sockets: tuple[socket.socket, ...]) -> None:
    """Run one direction; when either side closes, close both (a killed client leaves no session)."""
    try:
        pump(*args)
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()


def _read_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
