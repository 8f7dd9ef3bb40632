"""The port's listening sockets: one address, several accept queues.

trio takes one connection per listening socket per pass of its event loop (its accept yields
after each one), and a pass of a loop serving thousands of sockets takes milliseconds. When
players arrive faster than that (a burst of new games, every client coming back after a
restart) the kernel's accept queue fills, and each connection it then drops is retried by
the client only after 1, 3, 7 s...: a burst of arrivals took minutes to seat, and some of
them broke (bench/results/sockets.md, "Arrivals").

So the address is bound by ACCEPT_QUEUES sockets with SO_REUSEPORT: the kernel spreads
arriving connections over their queues, hypercorn serves each socket with its own accept
task, and a pass takes up to that many connections. Nothing else may join the group: the
address is first bound by hypercorn's own socket, without SO_REUSEPORT, which fails as
before when anything listens there already (another playsite included), and only then
handed over to the group.
"""

from __future__ import annotations

import socket

ACCEPT_QUEUES = 8
"""Listening sockets on the port. 3,000 games x 5 sockets arriving at 500 sockets a second on
2 cores: with one, not all set up within loadgen's 180 s timeout (129-384 sockets broken); with
8, set up in 56-59 s without an error (bench/results/sockets.md, "Arrivals")."""


def accept_queues(probe: socket.socket, count: int = ACCEPT_QUEUES) -> list[socket.socket]:
    """`count` sockets bound with SO_REUSEPORT to the TCP address `probe` is bound to (its
    port resolved, when it was 0), not yet listening; `probe` is closed. Raises OSError when
    the address cannot be bound again."""
    family = probe.family
    address = probe.getsockname()
    probe.close()
    group: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM)
            group.append(sock)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            sock.setblocking(False)
            sock.set_inheritable(True)
    except OSError:
        for sock in group:
            sock.close()
        raise
    return group
