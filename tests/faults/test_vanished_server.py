"""A PostgreSQL host that vanishes without closing its connections (a failover to another
machine, a network cut, a host switched off): no answer and no error ever reach a call waiting
on one of them. Its caller gives up after its timeout; the connection it held must not stay
held for ever, or a pool soon has none left.

The host here is a forwarder to the suite's PostgreSQL in a network namespace of its own, on a
veth link: the test takes the link down, kills the forwarder (whatever it sends then is lost
with the link), brings the link up and starts a new forwarder at the same address, as a standby
taking over would. Needs root with CAP_NET_ADMIN and iproute2 (`ip`); real clock, like every
PostgreSQL test."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import trio

from playsite.store.database import Database, DatabaseUnavailable
from tests.support.tcp import unacknowledged_segments

FORWARDER = Path(__file__).with_name("forwarder.py")
PORT = 5432
RECOVERY_BOUND_S = 45
"""Longer than the connections' keepalive settings need (docs/persistence.md: ~10-30 s); without
them the pool's only connection stays held and no call succeeds at all."""


def _namespaces_allowed() -> bool:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    name = f"psvprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True).returncode == 0
    if made:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return made


pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not _namespaces_allowed(), reason="needs root with CAP_NET_ADMIN and iproute2 (ip netns)"),
]


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


class Host:
    """The namespace, its link, and the forwarder in it."""

    def __init__(self, name: str, octet: int, socket_path: str) -> None:
        self.name = name
        self.link = f"{name}h"
        """The link's end in the test's own namespace."""
        self.peer = f"{name}n"
        """Its end in the host's namespace."""
        self.address = f"10.213.{octet}.2"
        self.socket_path = socket_path
        self.forwarder: subprocess.Popen[str] | None = None

    def start_forwarder(self) -> None:
        self.forwarder = subprocess.Popen(
            ["ip", "netns", "exec", self.name, sys.executable, str(FORWARDER), self.address, str(PORT), self.socket_path],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.forwarder.stdout is not None and self.forwarder.stdout.readline().strip() == "listening"

    def kill_forwarder(self) -> None:
        if self.forwarder is not None:
            self.forwarder.kill()
            self.forwarder.wait()
            self.forwarder = None

    def vanish_and_come_back(self) -> None:
        """Every connection to the host dies without a word reaching the other side; then the
        address answers again, from a new forwarder that knows none of them."""
        # Both ends down: with no route left, what the dying forwarder sends is dropped where
        # it is made (one end down only, the other end's kernel kept a packet or two until the
        # link came back).
        ip("link", "set", self.link, "down")
        ip("-n", self.name, "link", "set", self.peer, "down")
        self.kill_forwarder()
        ip("-n", self.name, "link", "set", self.peer, "up")
        ip("link", "set", self.link, "up")
        self.start_forwarder()


def free_subnet() -> int:
    """A 10.213.N.0/24 no route of this machine uses yet (another test process may hold one)."""
    for step in range(250):
        octet = (os.getpid() + step) % 250 + 1
        used = subprocess.run(["ip", "route", "show", f"10.213.{octet}.0/24"], capture_output=True, text=True)
        if not used.stdout.strip():
            return octet
    raise AssertionError("no free 10.213.N.0/24 subnet")


@contextlib.contextmanager
def vanishing_host(cluster) -> Iterator[Host]:
    name = f"psv{os.getpid()}"
    octet = free_subnet()
    host = Host(name, octet, str(Path(cluster.root) / f".s.PGSQL.{cluster.port}"))
    prefix = f"10.213.{octet}"
    ip("netns", "add", name)
    try:
        ip("link", "add", host.link, "type", "veth", "peer", "name", host.peer, "netns", name)
        ip("addr", "add", f"{prefix}.1/24", "dev", host.link)
        ip("link", "set", host.link, "up")
        ip("-n", name, "addr", "add", f"{prefix}.2/24", "dev", host.peer)
        ip("-n", name, "link", "set", host.peer, "up")
        ip("-n", name, "link", "set", "lo", "up")
        host.start_forwarder()
        yield host
    finally:
        host.kill_forwarder()
        subprocess.run(["ip", "netns", "del", name], capture_output=True)  # takes the veth pair with it
        subprocess.run(["ip", "link", "del", host.link], capture_output=True)


def sleeping(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%%'").fetchone()
    return row is not None and row[0] > 0


async def test_a_connection_to_a_host_that_vanished_is_given_up_and_replaced(pg_cluster, database_url):
    with vanishing_host(pg_cluster) as host:
        url = f"postgresql://postgres@{host.address}:{PORT}{urlsplit(database_url).path}"
        database = Database(url, pool_size=1, statement_timeout_ms=60_000)
        await database.open()
        try:
            async with trio.open_nursery() as nursery:

                async def stranded_call() -> None:
                    with trio.move_on_after(3):  # its caller gives up, as a room's write does
                        await database.run(lambda conn: conn.execute("SELECT pg_sleep(5)").fetchall())

                nursery.start_soon(stranded_call)
                # Until the query is at the server and acknowledged: the call now waits for its
                # answer with nothing left to send (were anything unacknowledged, its next
                # retransmission would reach the new host, whose reset would end the call at once).
                while not await trio.to_thread.run_sync(sleeping, database_url) or unacknowledged_segments(PORT):
                    await trio.sleep(0.05)
                await trio.to_thread.run_sync(host.vanish_and_come_back)
            # The caller gave up; the pool's only connection is still held by the call's thread,
            # waiting for an answer that will never come, until the kernel gives the connection up.
            gave_up = time.monotonic()
            while True:
                try:
                    with trio.fail_after(3):
                        assert await database.run(lambda conn: conn.execute("SELECT 1").fetchall()) == [(1,)]
                    break
                except (trio.TooSlowError, DatabaseUnavailable):
                    assert time.monotonic() - gave_up < RECOVERY_BOUND_S, "the vanished host's connection is still held"
                    await trio.sleep(0.5)
        finally:
            with trio.move_on_after(10):
                await database.close()
