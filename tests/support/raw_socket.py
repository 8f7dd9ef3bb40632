"""A WebSocket spoken by hand over a raw socket: what a test needs to send frames no client
library would (unmasked, oversized, malformed) and read the server's frames as they arrive."""

from __future__ import annotations

import json
import os
import socket


def server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of each complete unmasked frame in `data`."""
    frames, at = [], 0
    while at + 2 <= len(data):
        opcode, length, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if length == 126:
            length, at = int.from_bytes(data[at:at + 2], "big"), at + 2
        elif length == 127:
            length, at = int.from_bytes(data[at:at + 8], "big"), at + 8
        if at + length > len(data):
            break
        frames.append((opcode, data[at:at + length]))
        at += length
    return frames


def masked(opcode: int, payload: bytes) -> bytes:
    key = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def spectator_socket(server) -> socket.socket:
    """A raw socket past the handshake of a new game's spectator WebSocket."""
    body = b'{"timeControl":{"Unlimited":{}}}'
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: playsite\r\nContent-Type: application/json\r\n"
                     b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    path = json.loads(answer.split(b"\r\n\r\n", 1)[1])["spectatorWsUrl"]
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: playsite\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock
