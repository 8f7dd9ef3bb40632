"""WebSocket messages over the limit are refused from the frame header, without buffering:
a header that declares more than the limit gets 1009 at once, whatever follows it, and a
crowd of unauthenticated spectators each sending 15 MiB frames costs the server no memory.
Real `playsite serve`, raw sockets."""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

from playsite.server import WEBSOCKET_MESSAGE_MAX
from tests.support.raw_socket import server_frames, spectator_socket


def header(length: int, opcode: int = 0x1, fin: bool = True) -> bytes:
    """A masked client frame header declaring `length` payload bytes."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        return bytes([first, 0x80 | length]) + os.urandom(4)
    if length < 1 << 16:
        return bytes([first, 0x80 | 126]) + struct.pack("!H", length) + os.urandom(4)
    return bytes([first, 0x80 | 127]) + struct.pack("!Q", length) + os.urandom(4)


def answer(sock: socket.socket, timeout_s: float) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(timeout_s)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except (ConnectionResetError, TimeoutError):
        pass  # reset after the Close frame, or no answer at all (the test then fails on it)
    return received


def closed_with(received: bytes) -> int:
    assert server_frames(received), "no answer"
    opcode, payload = server_frames(received)[-1]
    assert opcode == 0x8, "the last frame is not a Close frame"
    return int.from_bytes(payload[:2], "big")


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_a_header_declaring_two_to_the_62_bytes_gets_1009_at_once(serve):
    server = serve()
    with spectator_socket(server) as sock:
        started = time.monotonic()
        sock.sendall(header(1 << 62))
        received = answer(sock, 5)
    assert closed_with(received) == 1009
    assert time.monotonic() - started < 1.5
    assert "Traceback" not in server.output()


def test_a_message_whose_frames_together_declare_too_much_gets_1009_at_the_header_that_crosses(serve):
    server = serve()
    with spectator_socket(server) as sock:
        first = WEBSOCKET_MESSAGE_MAX - 10
        sock.sendall(header(first, opcode=0x2, fin=False) + os.urandom(first))  # within the limit
        sock.sendall(header(11, opcode=0x0))  # a continuation: 1 byte over the limit in all, no payload sent
        received = answer(sock, 5)
    assert closed_with(received) == 1009


def test_sixteen_spectators_sending_15_mib_frames_cost_the_server_under_10_mb(serve):
    server = serve()
    sockets = [spectator_socket(server) for _ in range(16)]
    pid = server.process.pid
    before = rss_bytes(pid)
    peak = [before]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_bytes(pid))
            done.wait(0.02)

    def attack(sock: socket.socket, codes: list) -> None:
        payload = os.urandom(1 << 20)
        try:
            sock.sendall(header(15 << 20, opcode=0x2))
            for _ in range(15):
                sock.sendall(payload)
        except OSError:
            pass  # refused at the header: the rest is not read
        codes.append(answer(sock, 10))

    watcher = threading.Thread(target=watch)
    watcher.start()
    answers: list[bytes] = []
    attackers = [threading.Thread(target=attack, args=(sock, answers)) for sock in sockets]
    for thread in attackers:
        thread.start()
    for thread in attackers:
        thread.join(30)
    done.set()
    watcher.join()
    for sock in sockets:
        sock.close()
    assert len(answers) == 16
    assert [closed_with(received) for received in answers if received] == [1009] * len([a for a in answers if a])
    print(f"RSS {before / 2**20:.1f} MiB, peak +{(peak[0] - before) / 2**20:.1f} MiB")
    assert peak[0] - before < 10 << 20, f"RSS grew by {(peak[0] - before) / 2**20:.1f} MiB"
