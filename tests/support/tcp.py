"""This process's own TCP connections, read from the kernel: which are open to a port, with
what options, and how much they sent that the other side has not acknowledged yet."""

from __future__ import annotations

import os
import socket
import stat
import struct

_TCP_INFO_UNACKED = struct.Struct("=24xI")
"""`tcpi_unacked` of `struct tcp_info` (linux/tcp.h): after eight one-byte fields and four
32-bit ones (`tcpi_rto`, `tcpi_ato`, `tcpi_snd_mss`, `tcpi_rcv_mss`)."""


def sockets_to(port: int) -> dict[int, socket.socket]:
    """This process's TCP sockets connected to `port`, by inode: duplicates of their
    descriptors, which the caller closes."""
    found: dict[int, socket.socket] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor among them)
        try:
            connected = sock.type == socket.SOCK_STREAM and sock.family in (socket.AF_INET, socket.AF_INET6)
            if connected and sock.getpeername()[1] == port:
                found[os.fstat(fd).st_ino] = sock
                continue
        except OSError:
            pass  # not connected
        sock.close()
    return found


def unacknowledged_segments(port: int) -> int:
    """Segments this process sent on its connections to `port` that are not acknowledged yet."""
    sockets = sockets_to(port)
    try:
        return sum(_unacked(sock) for sock in sockets.values())
    finally:
        for sock in sockets.values():
            sock.close()


def _unacked(sock: socket.socket) -> int:
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return _TCP_INFO_UNACKED.unpack_from(info)[0]
