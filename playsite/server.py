"""`playsite serve`: one process, one root nursery, boot in the order docs/architecture.md gives.

Configuration was validated before `trio.run`. `services.boot` opens the store, resumes the
rooms and starts every loop the configuration enables; then hypercorn serves the app until
SIGINT/SIGTERM triggers a graceful shutdown.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.config import Sockets
from hypercorn.trio import serve as hypercorn_serve
from hypercorn.typing import ASGIFramework

from playsite.app import create_app
from playsite.config import Settings
from playsite.openfiles import raise_to_hard_limit
from playsite.http import cycles, reads, wsbatch
from playsite.http.asgi import finish_sends
from playsite.http.listening import accept_queues
from playsite.http.wsfail import install as install_websocket_failing
from playsite.services import Services, boot
from playsite.stopping import Stopping
from playsite.wire import MAX_COMMAND_BYTES

log = logging.getLogger("playsite")

GRACEFUL_SHUTDOWN_S = 3
KEEP_ALIVE_TIMEOUT_S = 5
"""An idle kept-alive HTTP connection is closed after this long."""
WEBSOCKET_MESSAGE_MAX = 2 * MAX_COMMAND_BYTES
LISTEN_BACKLOG = 2048
"""Connections the kernel completes and holds while the loop is busy (the kernel caps it at
net.core.somaxconn). hypercorn's default of 100 overflows when hundreds of players arrive at
once: an overflowed handshake is retried by the client after 1, 3, 7 s..., so a burst of
arrivals took minutes to seat."""


async def main(settings: Settings, *, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
    async with trio.open_nursery() as nursery:
        services = await boot(settings, nursery)
        shutdown = trio.Event()
        nursery.start_soon(wait_for_signals, shutdown, nursery.cancel_scope)
        await serve(services, shutdown, task_status=task_status)
        # hypercorn returns once its graceful shutdown is over; stop everything else.
        nursery.cancel_scope.cancel()


async def serve(
    services: Services, shutdown: trio.Event, *, wrap: Callable[[ASGIFramework], ASGIFramework] | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the booted `services` over HTTP until `shutdown`: the one way a server is served
    (`playsite serve`, `playsite demo`). Once the port is open the collector is tuned and the
    event loop's watch armed (`_AfterBoot`). `wrap` puts an ASGI layer around the app (the
    demo's redirect to its public origin)."""
    app: ASGIFramework = create_app(services)
    settings = services.settings
    before, now = raise_to_hard_limit()
    raised = f" (raised from {before})" if now != before else ""
    log.info("open files limit %d%s: at most that many sockets and database connections", now, raised)
    after_boot = _AfterBoot(task_status, settings, services)
    await run_http(
        wrap(app) if wrap is not None else app, settings, shutdown, stopping=services.stopping, task_status=after_boot
    )
    await services.stopping.finish()  # HTTP drained; the loops, the database's included, still run


async def run_http(
    app: ASGIFramework, settings: Settings, shutdown: trio.Event, *, stopping: Stopping | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    install_websocket_failing(WEBSOCKET_MESSAGE_MAX)
    wsbatch.install()
    cycles.install()
    reads.install()
    config = _Config(settings.send_buffer_bytes, settings.send_stall_timeout_s)
    config.bind = [f"{settings.host}:{settings.port}"]
    config.accesslog = None  # URLs may carry seat tokens: never log them
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = GRACEFUL_SHUTDOWN_S
    config.keep_alive_timeout = KEEP_ALIVE_TIMEOUT_S
    config.backlog = LISTEN_BACKLOG
    # A command is at most MAX_COMMAND_BYTES; a bigger frame is refused with an Error frame,
    # one over twice that closes the socket (1009) instead of being buffered (default 16 MiB).
    config.websocket_max_message_size = WEBSOCKET_MESSAGE_MAX
    once = _RunningOnOnce()
    config.errorlog.addFilter(once)

    async def stop_serving() -> None:
        await shutdown.wait()
        if stopping is not None:
            stopping.begin()  # game sockets close 1013, streams end: the drain is short

    try:
        await hypercorn_serve(
            wsbatch.expose(finish_sends(app)), config, shutdown_trigger=stop_serving, task_status=_Announce(task_status)
        )
    finally:
        config.errorlog.removeFilter(once)


class _Config(HypercornConfig):
    """hypercorn's settings, with kernel options on the listening sockets that every accepted
    connection inherits: a fixed send buffer when one is configured, and a stall timeout.

    The stall timeout (TCP_USER_TIMEOUT) makes the kernel cut a connection whose sent bytes
    stay unacknowledged that long, a client that stopped reading (its window stays zero)
    included. A write cannot do it: hypercorn shields its socket writes from cancellation, so
    a game socket's sender would otherwise wait on such a client for as long as it lives."""

    def __init__(self, send_buffer_bytes: int, send_stall_timeout_s: int):
        super().__init__()
        self.send_buffer_bytes = send_buffer_bytes
        self.send_stall_timeout_s = send_stall_timeout_s

    def create_sockets(self) -> Sockets:
        sockets = super().create_sockets()
        # Each plain TCP address gets several accept queues (http/listening.py); hypercorn's
        # socket, bound first, proved the address free.
        insecure: list[socket.socket] = []
        for sock in sockets.insecure_sockets:
            insecure += accept_queues(sock) if sock.family in (socket.AF_INET, socket.AF_INET6) else [sock]
        sockets.insecure_sockets = insecure
        for sock in (*sockets.secure_sockets, *sockets.insecure_sockets):
            if sock.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            if self.send_buffer_bytes:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_bytes)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, self.send_stall_timeout_s * 1000)
        return sockets


class _RunningOnOnce(logging.Filter):
    """hypercorn logs "Running on <address>" for each listening socket: an address has
    several (http/listening.py), and it is said once."""

    def __init__(self) -> None:
        super().__init__()
        self.said: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith("Running on "):
            return True
        if message in self.said:
            return False
        self.said.add(message)
        return True


class _AfterBoot(trio.TaskStatus[list[str]]):
    """Once the port is open, everything boot allocated stays for the process's life: tune
    the garbage collector then (`gcwatch`), start watching the event loop's lag
    (`loopwatch`) and trimming the C heap (`heaptrim`), and tell whoever started us."""

    def __init__(self, task_status: trio.TaskStatus[list[str]], settings: Settings, services: Services):
        self.task_status = task_status
        self.settings = settings
        self.services = services

    def started(self, value: list[str]) -> None:
        if self.settings.gc_tuning:
            self.services.gc_watch.tune()
        self.services.loop_watch.arm()
        self.services.heap_trim.arm()
        self.task_status.started(value)


class _Announce(trio.TaskStatus[list[str]]):
    """Pass hypercorn's bound addresses on, each once (an address has several listening
    sockets: http/listening.py), printing them for operators and tests."""

    def __init__(self, task_status: trio.TaskStatus[list[str]]):
        self.task_status = task_status

    def started(self, value: list[str]) -> None:
        binds = list(dict.fromkeys(value))
        for bind in binds:
            log.info("listening on %s", bind)
        self.task_status.started(binds)


async def wait_for_signals(shutdown: trio.Event, root: trio.CancelScope) -> None:
    """First SIGINT/SIGTERM: graceful shutdown. A second one: stop at once."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            name = signal.Signals(signum).name
            if not shutdown.is_set():
                log.info("%s received, shutting down", name)
                shutdown.set()
            else:
                log.warning("%s received again, stopping now", name)
                root.cancel()
