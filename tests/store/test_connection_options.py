"""A PostgreSQL that vanishes without closing its connections (a failover to another host, a
network cut) must not leave a call waiting for ever: every connection the serving process
opens to it (the worker threads' pool, the event loop's writes, the serving lease) has TCP
keepalives and a user timeout, read here from the sockets themselves."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest

from playsite.store.database import KEEPALIVE_IDLE_S, KEEPALIVE_INTERVAL_S, USER_TIMEOUT_MS
from playsite.store.lease import ServingLease
from playsite.store.loopwrites import LoopStatement
from tests.support.database import migrated_url, opened_database  # noqa: F401 (migrated_url: a fixture)
from tests.support.tcp import sockets_to

pytestmark = pytest.mark.postgres


def options_of(sock: socket.socket) -> dict[str, int]:
    return {
        "keepalive": sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
        "idle": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE),
        "interval": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL),
        "user_timeout": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT),
    }


async def test_every_connection_to_postgresql_gives_up_on_a_server_that_stopped_answering(migrated_url):
    port = urlsplit(migrated_url).port
    before = sockets_to(port)
    for sock in before.values():
        sock.close()
    lease = ServingLease(migrated_url)
    async with opened_database(migrated_url, pool_size=2) as database:
        await database.run(lambda conn: conn.execute("SELECT 1").fetchall())
        assert await database.write_on_loop(LoopStatement.of("SELECT 1"), {}) == 1
        await lease.take()
        try:
            opened = {inode: sock for inode, sock in sockets_to(port).items() if inode not in before}
            try:
                # at least one of the pool's, one of the loop's and the lease's
                assert len(opened) >= 3, opened
                expected = {
                    "keepalive": 1,
                    "idle": KEEPALIVE_IDLE_S,
                    "interval": KEEPALIVE_INTERVAL_S,
                    "user_timeout": USER_TIMEOUT_MS,
                }
                assert [options_of(sock) for sock in opened.values()] == [expected] * len(opened)
            finally:
                for sock in opened.values():
                    sock.close()
        finally:
            await lease.close()
