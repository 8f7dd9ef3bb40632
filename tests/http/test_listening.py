"""The port's accept queues (playsite/http/listening.py), on real sockets."""

from __future__ import annotations

import errno
import select
import socket

import pytest

from playsite.http.listening import ACCEPT_QUEUES, accept_queues


def _probe(port: int = 0) -> socket.socket:
    """A socket bound the way hypercorn binds one: SO_REUSEADDR, no SO_REUSEPORT."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    probe.bind(("127.0.0.1", port))
    return probe


@pytest.fixture
def group():
    probe = _probe()
    sockets = accept_queues(probe)
    for sock in sockets:
        sock.listen(128)
    yield sockets
    for sock in sockets:
        sock.close()


def test_the_group_binds_every_queue_to_the_probes_address_and_closes_the_probe():
    probe = _probe()
    address = probe.getsockname()
    sockets = accept_queues(probe)
    try:
        assert probe.fileno() == -1
        assert len(sockets) == ACCEPT_QUEUES
        assert {sock.getsockname() for sock in sockets} == {address}
        assert all(sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) for sock in sockets)
        assert all(not sock.getblocking() for sock in sockets)
    finally:
        for sock in sockets:
            sock.close()


def test_arriving_connections_are_spread_over_the_queues_and_each_is_accepted_once(group):
    port = group[0].getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
    try:
        accepted: dict[int, int] = {}
        while sum(accepted.values()) < len(clients):
            ready, _, _ = select.select(group, [], [], 5)
            assert ready, f"only {sum(accepted.values())} of {len(clients)} connections arrived"
            for sock in ready:
                connection, _ = sock.accept()
                connection.close()
                accepted[sock.fileno()] = accepted.get(sock.fileno(), 0) + 1
        assert sum(accepted.values()) == len(clients)
        # The kernel hashes each connection to a queue: 64 of them all in one of 8 queues
        # has a chance of 8 ** -63.
        assert len(accepted) > 1
    finally:
        for client in clients:
            client.close()


def test_nothing_else_binds_the_address_while_the_group_listens(group):
    port = group[0].getsockname()[1]
    with pytest.raises(OSError) as refused:
        _probe(port)
    assert refused.value.errno == errno.EADDRINUSE


def test_a_probe_on_a_port_left_free_again_gets_a_new_group():
    probe = _probe()
    port = probe.getsockname()[1]
    first = accept_queues(probe)
    for sock in first:
        sock.close()
    second = accept_queues(_probe(port))
    try:
        assert {sock.getsockname()[1] for sock in second} == {port}
    finally:
        for sock in second:
            sock.close()
