"""HTTP connections of a real `playsite serve` end: `Connection: close` is honoured at once,
an idle kept-alive connection is closed after the keep-alive timeout, and many clients
leave no descriptors behind. A WebSocket client that breaks the protocol gets a Close frame
with the reason's code before the connection ends."""

from __future__ import annotations

import os
import socket
import time

import pytest

from playsite.server import KEEP_ALIVE_TIMEOUT_S
from tests.support.raw_socket import masked, server_frames, spectator_socket

REQUEST = b"GET /health HTTP/1.1\r\nHost: playsite\r\n%s\r\n"


def seconds_until_eof(sock: socket.socket, limit_s: float) -> float | None:
    """Read everything; the seconds until the server closed, or None if it did not within `limit_s`."""
    sock.settimeout(limit_s)
    started = time.monotonic()
    try:
        while sock.recv(65536):
            pass
    except socket.timeout:
        return None
    return time.monotonic() - started


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_connection_close_is_honoured_at_once(serve):
    server = serve()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(REQUEST % b"Connection: close\r\n")
        elapsed = seconds_until_eof(sock, 5)
    assert elapsed is not None and elapsed < 2, "the server kept a Connection: close connection open"


def test_an_idle_kept_alive_connection_is_closed_after_the_timeout(serve):
    server = serve()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(REQUEST % b"")
        elapsed = seconds_until_eof(sock, KEEP_ALIVE_TIMEOUT_S + 10)
    assert elapsed is not None, "an idle kept-alive connection was never closed"
    assert KEEP_ALIVE_TIMEOUT_S - 1 <= elapsed <= KEEP_ALIVE_TIMEOUT_S + 5


def test_many_clients_leave_no_descriptors_behind(serve):
    server = serve()
    pid = server.process.pid
    with socket.create_connection(("127.0.0.1", server.port)) as warm:
        warm.sendall(REQUEST % b"Connection: close\r\n")
        seconds_until_eof(warm, 5)
    before = open_descriptors(pid)
    clients = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(200)]
    for sock in clients:
        sock.sendall(REQUEST % b"Connection: close\r\n")
    deadline = time.monotonic() + 10
    closed = [seconds_until_eof(sock, max(0.01, deadline - time.monotonic())) is not None for sock in clients]
    for sock in clients:
        sock.close()
    assert all(closed), f"{closed.count(False)} of 200 connections were left open"
    deadline = time.monotonic() + 10
    while open_descriptors(pid) > before + 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_descriptors(pid) <= before + 5, f"descriptors: {before} before, {open_descriptors(pid)} after"


# ----- WebSocket protocol errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\x81\x02hi", 1002),  # a client frame without a mask
        (masked(0x3, b"x"), 1002),  # a reserved opcode
        (masked(0x1, b"\xff\xfe"), 1007),  # a text message that is not UTF-8
    ],
    ids=["unmasked", "reserved-opcode", "bad-utf8"],
)
def test_a_protocol_violation_is_answered_with_a_close_frame_before_the_connection_ends(serve, frame, code):
    server = serve()
    with spectator_socket(server) as sock:
        sock.sendall(frame)
        sock.settimeout(5)
        received = b""
        while chunk := sock.recv(65536):  # to the end: the server closes the connection
            received += chunk
    frames = server_frames(received)
    assert frames, "the server sent nothing before closing"
    opcode, payload = frames[-1]
    assert opcode == 0x8 and int.from_bytes(payload[:2], "big") == code, frames[-1]
    assert "Traceback" not in server.output()
