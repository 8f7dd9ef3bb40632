#!/usr/bin/env python
"""playsite's load generator: many live games over real sockets, measured from outside.

    .venv/bin/python tools/loadgen.py --spawn --games 200 --spectators 3 --think 5 --duration 60
    .venv/bin/python tools/loadgen.py --url http://127.0.0.1:8080 --server-pid 1234 --games 50
    .venv/bin/python tools/loadgen.py --transport-only --sockets 2000 --period-ms 250 --duration 30
    .venv/bin/python tools/loadgen.py --relay --games 400 --spectators 3 --think 1 --frame-bytes 8000

Game mode: each game is a friend game (`POST /games`, Unlimited) with its two seats and
`--spectators` spectators on the game socket. A seat answers its roll after a random think
(exponential, mean `--think` s) with a random legal turn; when a game ends another is created,
so `--games` stay live. Measured, after the sockets are set up:
- verdict latency: the seat sends its turn -> the seat reads its own TurnPlayed;
- broadcast latency: the seat sends its turn -> each spectator reads that TurnPlayed (the
  spectators of a game live in the same client process as its seats: one clock);
- turns/s, setup time of all sockets, errors, socket closes by code, and the server's CPU,
  RSS and open files from /proc (with `--spawn`, or `--server-pid`);
- with `--metrics-token`, from the server's GET /metrics over the same window: the collector's
  share and pauses, and the server's own timing of a verdict and of its wait for the next tree.
The games are split over `--clients` processes (a client's own CPU must not be the limit).

Transport-only mode measures the framework's ceiling without any game: it serves a raw ASGI
app on hypercorn that sends one ~1 KB frame to every connected socket each `--period-ms`, and
reports delivered messages/s and delivery latency. Relay mode (`--relay`) gives that raw app
a game's traffic instead: `--games` groups of two seats and `--spectators` spectators, a seat
sending a short text after its think and every socket of its group receiving two frames for it
(the turn, and a roll that is `--frame-bytes` long for the seats), measured as game mode is
(turns/s, verdict, broadcast). It is the ceiling for the game rows: the same frames, driven
by the same kind of clients, with no game behind them.

Everything is bounded: `--duration` of measuring after a `--setup-timeout`; a progress line
every 5 s on stderr; the summary as JSON on stdout (`--markdown` adds a table row).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import multiprocessing
import os
import queue as queue_module
import random
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import orjson
import trio
from prometheus_client.parser import text_string_to_metric_families
from wsclient import Closed, Refused, Socket

from playsite.gcwatch import run_gc_watch

ROOT = Path(__file__).resolve().parents[1]
PROGRESS_S = 5.0
CONNECT_TIMEOUT_S = 60
CLIENT_GC_FULL_INTERVAL_S = 86_400
"""A load client never pauses for a full collection during a run."""
WINDOW_RELEASE_TIMEOUT_S = 60
"""How long a client whose window is over waits for the others before closing its sockets."""
KEEPALIVE_EXPIRY_S = 2.0
"""How long an idle HTTP connection is kept for reuse: well under the server's keep-alive timeout."""
CONNECT_ERRORS = (OSError, trio.BrokenResourceError, trio.TooSlowError, Refused)
SAMPLE_MAX = 200_000
"""Latencies kept per client (uniformly thinned beyond this)."""
TICK_S = 0.1
"""How often a client's loop-lag ticker asks to be woken."""
LATE_S = 0.1
"""A wake-up (or a collection) later (longer) than this is counted as a stall."""


# ----- statistics -------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


class Samples:
    def __init__(self) -> None:
        self.values: list[float] = []
        self.count = 0

    def add(self, value: float) -> None:
        self.count += 1
        if len(self.values) < SAMPLE_MAX:
            self.values.append(value)
        elif random.random() < SAMPLE_MAX / self.count:
            self.values[random.randrange(SAMPLE_MAX)] = value


class LoopClock:
    """A client process's own stalls over the window: how late its event loop woke a ticker due
    every TICK_S, and how long its collector paused it. A verdict late on the client's side
    shows here; one late on the server's side shows in the server's own loop lag."""

    def __init__(self) -> None:
        self.window_start: float | None = None
        self.worst_lag_s = 0.0
        self.worst_lag_at_s: float | None = None
        """When the worst wake-up came, in seconds from the window's start."""
        self.late = 0
        self.ticks = 0
        self.gc_worst_s = 0.0
        self.gc_worst_at_s: float | None = None
        self.gc_long = 0
        self._gc_started: float | None = None
        self.tune_s = 0.0
        """How long tuning the collector took (a full collection of all the client holds)."""

    def open_window(self) -> None:
        self.window_start = time.perf_counter()

    def close_window(self) -> None:
        self.window_start = None

    def _at(self, moment: float) -> float | None:
        return None if self.window_start is None else round(moment - self.window_start, 2)

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        if self._gc_started is None or self.window_start is None:
            return
        pause = time.perf_counter() - self._gc_started
        self.gc_long += pause > LATE_S
        if pause > self.gc_worst_s:
            self.gc_worst_s, self.gc_worst_at_s = pause, self._at(self._gc_started)

    async def run(self) -> None:
        gc.callbacks.append(self._on_gc)
        try:
            while True:
                due = time.perf_counter() + TICK_S
                await trio.sleep(TICK_S)
                now = time.perf_counter()
                if self.window_start is None:
                    continue
                lag = now - due
                self.ticks += 1
                self.late += lag > LATE_S
                if lag > self.worst_lag_s:
                    self.worst_lag_s, self.worst_lag_at_s = lag, self._at(due)
        finally:
            gc.callbacks.remove(self._on_gc)

    def report(self) -> dict:
        return {
            "loop_lag_max_ms": round(self.worst_lag_s * 1000, 1), "loop_lag_max_at_s": self.worst_lag_at_s,
            "loop_lags_over_100ms": self.late, "ticks": self.ticks,
            "gc_pause_max_ms": round(self.gc_worst_s * 1000, 1), "gc_pause_max_at_s": self.gc_worst_at_s,
            "gc_pauses_over_100ms": self.gc_long, "tune_ms": round(self.tune_s * 1000, 1),
        }


def refusal_kind(text: str) -> str:
    """An error kind for a `Rejected` or `Error` frame a seat read: its type and its reason up to
    the first colon ("Rejected: illegal turn", "Rejected: not your turn"), so a run's errors say
    what was refused without a kind per move."""
    kind, body = next(iter(orjson.loads(text).items()))
    return f"{kind}: {str(body.get('reason', '')).split(':', 1)[0][:60]}"


class Stats:
    def __init__(self) -> None:
        self.turns = 0
        self.frames = 0
        """Messages received in the window, on every socket."""
        self.verdict_worst_s = 0.0
        self.verdict_worst_at_s: float | None = None
        """When the slowest verdict's turn was sent, in seconds from the window's start."""
        self.window_start = 0.0
        self.verdict = Samples()
        self.broadcast = Samples()
        self.errors: dict[str, int] = {}
        self.closes: dict[str, int] = {}
        self.sockets_open = 0
        self.sockets_ready = 0
        self.games_created = 0
        self.measuring = False

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def verdict_seen(self, sent_at: float) -> None:
        """A seat read its own turn back, sent at `sent_at` (perf_counter)."""
        if self.measuring:
            verdict = time.perf_counter() - sent_at
            self.verdict.add(verdict)
            self.turns += 1
            if verdict > self.verdict_worst_s:
                self.verdict_worst_s = verdict
                self.verdict_worst_at_s = round(sent_at - self.window_start, 2)

    def closed(self, code) -> None:
        self.closes[str(code)] = self.closes.get(str(code), 0) + 1


# ----- the /proc view of the server -------------------------------------------------------------


def _stat_fields(pid) -> list[str] | None:
    """/proc/<pid>/stat after the command name: state, ppid, ..., utime (11), stime (12)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


class ProcView:
    def __init__(self, pid: int | None):
        self.pid = pid
        self.ticks = os.sysconf("SC_CLK_TCK")
        self._children: dict[int, float] = {}
        """The last CPU seen of every child process: one that exits (a tree worker replaced)
        keeps counting what it used until it was last seen."""

    def _cpu_of(self, fields: list[str]) -> float:
        return (int(fields[11]) + int(fields[12])) / self.ticks  # utime + stime

    def cpu_s(self) -> float | None:
        fields = None if self.pid is None else _stat_fields(self.pid)
        return None if fields is None else self._cpu_of(fields)

    def children_cpu_s(self) -> float:
        """CPU of the server's child processes (its tree workers), the exited ones included."""
        if self.pid is None:
            return 0.0
        for entry in os.listdir("/proc"):
            fields = _stat_fields(entry) if entry.isdigit() else None
            if fields is not None and int(fields[1]) == self.pid:
                self._children[int(entry)] = self._cpu_of(fields)
        return sum(self._children.values())

    def rss_mib(self) -> float | None:
        if self.pid is None:
            return None
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def fds(self) -> int | None:
        if self.pid is None:
            return None
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return None


async def connect(url: str) -> Socket:
    with trio.fail_after(CONNECT_TIMEOUT_S):
        return await Socket.connect(url)


# ----- game mode: one client process ------------------------------------------------------------


def random_turn(tree: dict, rng: random.Random) -> list[str]:
    moves = []
    while tree:
        move = rng.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return moves


class Game:
    def __init__(self) -> None:
        self.sent_at: float | None = None
        """When the last turn was sent (the seats and spectators of the game share it)."""
        self.over = trio.Event()


async def play_games(conf: dict, stats: Stats, slot: int, ready: trio.Event) -> None:
    """Keep one game live: create it, seat and watch it, and start another when it ends."""
    rng = random.Random(conf["seed"] * 100_003 + slot)
    first = True
    # Idle connections are dropped well before the server's keep-alive timeout (5 s), so a
    # request never goes out on a connection the server is closing at that moment.
    limits = httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY_S)
    async with httpx.AsyncClient(base_url=conf["url"], timeout=30, limits=limits) as http:
        while True:
            try:
                created = await http.post("/games", json={"timeControl": {"Unlimited": {}}})
            except httpx.HTTPError:
                stats.error("create: transport")
                await trio.sleep(1)
                continue
            if created.status_code != 201:
                stats.error(f"create: {created.status_code}")
                await trio.sleep(1)
                continue
            stats.games_created += 1
            body = created.json()
            game = Game()
            sockets = 2 + conf["spectators"]
            opened = trio.Semaphore(0)
            async with trio.open_nursery() as nursery:
                for seat in ("White", "Black"):
                    token = body["seats"][seat.lower()]["token"]
                    url = f"{conf['ws']}/games/{body['gameId']}/ws?token={token}&guest={_uuid(rng)}"
                    nursery.start_soon(seat_socket, conf, stats, game, url, seat, http, body["gameId"], rng, opened)
                for _ in range(conf["spectators"]):
                    url = f"{conf['ws']}/games/{body['gameId']}/ws?mode=spectator"
                    nursery.start_soon(spectator_socket, stats, game, url, opened)
                if first:
                    for _ in range(sockets):
                        await opened.acquire()
                    first = False
                    ready.set()
                await game.over.wait()
                nursery.cancel_scope.cancel()


def _uuid(rng: random.Random) -> str:
    return "%08x-%04x-4%03x-8%03x-%012x" % (
        rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12), rng.getrandbits(12), rng.getrandbits(48)
    )


async def seat_socket(conf, stats: Stats, game: Game, url: str, seat: str, http, game_id: str, rng, opened) -> None:
    try:
        async with await connect(url) as ws:
            stats.sockets_open += 1
            snapshot = True
            try:
                while True:
                    text = await ws.receive()
                    stats.frames += stats.measuring
                    if snapshot:
                        snapshot = False
                        opened.release()
                        stats.sockets_ready += 1
                        event = orjson.loads(text)["Snapshot"]
                        state = event["state"]
                        if state["dicePending"] and state["activeSeat"] == seat:
                            await answer(conf, stats, game, ws, state.get("legalMoves"), http, game_id, rng)
                        continue
                    if text.startswith('{"DiceRolled"'):
                        if f'"seat":"{seat}"' in text[:60]:  # the other seat's tree is not parsed
                            event = orjson.loads(text)["DiceRolled"]
                            await answer(conf, stats, game, ws, event.get("legalMoves"), http, game_id, rng)
                    elif text.startswith('{"TurnPlayed"'):
                        played = f'"seat":"{seat}"' in text[:40] and '"moves":[]' not in text  # not a forced pass
                        if played and game.sent_at is not None:
                            stats.verdict_seen(game.sent_at)
                    elif text.startswith('{"GameEnded"'):
                        game.over.set()
                        return
                    elif text.startswith('{"Rejected"') or text.startswith('{"Error"'):
                        stats.error(refusal_kind(text))
            finally:
                stats.sockets_open -= 1
    except Closed as closed:
        stats.closed(closed.code)
        game.over.set()
    except CONNECT_ERRORS as error:
        stats.error(f"seat socket: {type(error).__name__}")
        game.over.set()


async def answer(conf, stats: Stats, game: Game, ws, tree, http, game_id: str, rng) -> None:
    """Think, then send a random legal turn (a roll without moves passes by itself)."""
    if tree is None:
        try:
            response = await _get(http, f"/games/{game_id}/moves")
        except httpx.HTTPError as error:
            stats.error(f"moves: {type(error).__name__}")
            return
        try:
            tree = orjson.loads(response.content)["legalMoves"]
        except (ValueError, KeyError):
            stats.error(f"moves: HTTP {response.status_code}")
            return
    if not tree:
        return
    # Thinking must not hold the socket: the reader goes on while the turn is prepared.
    turn = json.dumps({"SubmitTurn": {"moves": random_turn(tree, rng)}}, separators=(",", ":"))
    trio.lowlevel.spawn_system_task(_send_later, game, ws, turn, _think(conf, rng))


def _think(conf: dict, rng: random.Random) -> float:
    """A seat's think before it answers: exponential, of mean `--think` s."""
    return rng.expovariate(1 / conf["think"]) if conf["think"] > 0 else 0


async def _get(http: httpx.AsyncClient, path: str) -> httpx.Response:
    """GET, once more if the connection broke before an answer (a kept-alive connection the
    server closed as the request left): a GET can be repeated, as browsers do."""
    try:
        return await http.get(path)
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
        return await http.get(path)


async def _send_later(game: Game, ws, text: str, think: float) -> None:
    """A seat's text (a turn, or a relay seat's), sent after its think; `sent_at` is when it left."""
    await trio.sleep(think)
    game.sent_at = time.perf_counter()
    try:
        await ws.send(text)
    except (Closed, trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError):
        pass


async def spectator_socket(stats: Stats, game: Game, url: str, opened) -> None:
    try:
        async with await connect(url) as ws:
            stats.sockets_open += 1
            first = True
            try:
                while True:
                    text = await ws.receive()
                    stats.frames += stats.measuring
                    if first:
                        first = False
                        opened.release()
                        stats.sockets_ready += 1
                    elif text.startswith('{"TurnPlayed"'):
                        if stats.measuring and game.sent_at is not None and '"moves":[]' not in text:
                            stats.broadcast.add(time.perf_counter() - game.sent_at)
                    elif text.startswith('{"GameEnded"'):
                        return
            finally:
                stats.sockets_open -= 1
    except Closed as closed:
        stats.closed(closed.code)
    except CONNECT_ERRORS as error:
        stats.error(f"spectator socket: {type(error).__name__}")


async def report_setup(out, client: int, sockets_ready, set_up: trio.Event) -> None:
    """While the sockets are being set up: how many are ready, every PROGRESS_S."""
    while True:
        with trio.move_on_after(PROGRESS_S):
            await set_up.wait()
            return
        out.put({"kind": "setup", "client": client, "sockets": sockets_ready()})


async def game_client(conf: dict, out, slot_main=play_games) -> None:
    """A client process of game mode (each slot a game, `play_games`) or of relay mode (each
    slot a group, `relay_group`)."""
    stats = Stats()
    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        collector = await nursery.start(run_gc_watch, CLIENT_GC_FULL_INTERVAL_S)
        clock = LoopClock()
        nursery.start_soon(clock.run)
        readies = []
        for slot in range(conf["games"]):
            ready = trio.Event()
            readies.append(ready)
            nursery.start_soon(slot_main, conf, stats, slot, ready)
            if conf["connect_rate"]:
                await trio.sleep(1 / conf["connect_rate"])
        set_up = trio.Event()
        nursery.start_soon(report_setup, out, conf["client"], lambda: stats.sockets_ready, set_up)
        with trio.move_on_after(conf["setup_timeout"]):
            for ready in readies:
                await ready.wait()
        set_up.set()
        setup_s = time.perf_counter() - started
        # Tuned (a full collection, then everything frozen) before saying ready, never after:
        # the last client's full collection would otherwise stall it as the window opens.
        tuning = time.perf_counter()
        collector.tune()
        clock.tune_s = time.perf_counter() - tuning
        out.put({"kind": "ready", "setup_s": setup_s, "ready": sum(r.is_set() for r in readies)})
        await trio.to_thread.run_sync(conf["go"].wait)  # every client measures the same window
        stats.measuring = True
        measured_from = stats.window_start = time.perf_counter()
        clock.open_window()
        end = measured_from + conf["duration"]
        while time.perf_counter() < end:
            await trio.sleep(min(PROGRESS_S, end - time.perf_counter()))
            out.put({"kind": "progress", "turns": stats.turns, "sockets": stats.sockets_open, "errors": sum(stats.errors.values())})
        stats.measuring = False
        clock.close_window()
        window = time.perf_counter() - measured_from
        await end_of_window(conf, out)
        nursery.cancel_scope.cancel()
    out.put({
        "kind": "result", "setup_s": setup_s, "window_s": window, "turns": stats.turns, "frames": stats.frames,
        "client": conf["client"], "clock": clock.report(),
        "verdict_max_at_s": stats.verdict_worst_at_s,
        "verdict": stats.verdict.values, "broadcast": stats.broadcast.values, "errors": stats.errors,
        "closes": stats.closes, "games_created": stats.games_created,
    })


# ----- relay mode: a game's traffic without the game ----------------------------------------------


class RelayGroup(Game):
    def __init__(self) -> None:
        super().__init__()
        self.whole = trio.Event()
        """Every socket of the group is open: the first seat sends the first turn."""


async def relay_group(conf: dict, stats: Stats, slot: int, ready: trio.Event) -> None:
    """Keep one relay group live: two seats and `spectators` spectators on one path; each seat
    answers a roll for it after a think, as a game's seat does."""
    rng = random.Random(conf["seed"] * 100_003 + slot)
    group = RelayGroup()
    url = f"{conf['ws']}/g/{conf['client']}-{slot}"
    opened = trio.Semaphore(0)
    async with trio.open_nursery() as nursery:
        for seat in (0, 1):
            nursery.start_soon(relay_seat, conf, stats, group, f"{url}?seat={seat}", seat, rng, opened)
        for _ in range(conf["spectators"]):
            nursery.start_soon(relay_spectator, stats, group, f"{url}?seat=-", opened)
        for _ in range(2 + conf["spectators"]):
            await opened.acquire()
        ready.set()
        group.whole.set()


async def relay_seat(conf, stats: Stats, group: RelayGroup, url: str, seat: int, rng, opened) -> None:
    try:
        async with await connect(url) as ws:
            stats.sockets_open += 1
            stats.sockets_ready += 1
            opened.release()
            mine = f'"to":{seat}'
            if seat == 0:
                await group.whole.wait()
                _relay_later(conf, group, ws, seat, rng)
            while True:
                text = await ws.receive()
                stats.frames += stats.measuring
                if text.startswith('{"by"'):  # a turn
                    if orjson.loads(text)["by"] == seat and group.sent_at is not None:
                        stats.verdict_seen(group.sent_at)
                elif mine in text[:30]:  # a roll for this seat (only the seats' rolls are padded)
                    _relay_later(conf, group, ws, seat, rng)
    except Closed as closed:
        stats.closed(closed.code)
    except CONNECT_ERRORS as error:
        stats.error(f"seat socket: {type(error).__name__}")


def _relay_later(conf, group: RelayGroup, ws, seat: int, rng) -> None:
    trio.lowlevel.spawn_system_task(_send_later, group, ws, f'{{"by":{seat}}}', _think(conf, rng))


async def relay_spectator(stats: Stats, group: RelayGroup, url: str, opened) -> None:
    try:
        async with await connect(url) as ws:
            stats.sockets_open += 1
            stats.sockets_ready += 1
            opened.release()
            while True:
                text = await ws.receive()
                stats.frames += stats.measuring
                if stats.measuring and text.startswith('{"by"') and group.sent_at is not None:
                    stats.broadcast.add(time.perf_counter() - group.sent_at)
    except Closed as closed:
        stats.closed(closed.code)
    except CONNECT_ERRORS as error:
        stats.error(f"spectator socket: {type(error).__name__}")


# ----- transport-only mode ----------------------------------------------------------------------


def transport_server_main(port: int, period_ms: int, frame_bytes: int, relay: bool = False) -> None:
    """A raw ASGI app on hypercorn. Broadcast: every connected socket gets one frame per period.
    Relay: the sockets of a path are a group (two seats, the rest spectators); a text from any
    of them is answered with two frames to every socket of the group, as a turn is in a game:
    a small one (the turn) and a roll, `frame_bytes` long for the seats and small for the
    spectators. No game, no rules, no store: what the traffic of a game costs the framework."""
    from hypercorn.config import Config
    from hypercorn.trio import serve

    from playsite.config import Settings

    sockets: set = set()
    padding = "x" * max(0, frame_bytes - 40)
    groups: dict[str, dict] = {}
    """A relay group's path -> its sockets' outboxes (with whether each is a seat) and its turns."""

    def relay_turn(group: dict, text: str) -> None:
        sent = orjson.loads(text)
        group["turns"] += 1
        n = group["turns"]
        turn = orjson.dumps({"by": sent["by"], "n": n}).decode()
        roll = orjson.dumps({"n": n, "to": n % 2, "pad": padding}).decode()
        roll_watched = orjson.dumps({"n": n, "to": n % 2}).decode()
        for channel, seat in list(group["members"].items()):
            try:
                channel.send_nowait(turn)
                channel.send_nowait(roll if seat else roll_watched)
            except trio.WouldBlock:
                pass

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        outbox_in, outbox = trio.open_memory_channel(64)
        group = None
        if relay:
            group = groups.setdefault(scope["path"], {"members": {}, "turns": 0})
            group["members"][outbox_in] = scope["query_string"] != b"seat=-"
        else:
            sockets.add(outbox_in)
        try:
            async with trio.open_nursery() as nursery:
                async def pump():
                    async for text in outbox:
                        await send({"type": "websocket.send", "text": text})
                nursery.start_soon(pump)
                while (message := await receive())["type"] != "websocket.disconnect":
                    if group is not None and message.get("text"):
                        relay_turn(group, message["text"])
                nursery.cancel_scope.cancel()
        finally:
            sockets.discard(outbox_in)
            if group is not None:
                del group["members"][outbox_in]
                if not group["members"]:
                    del groups[scope["path"]]

    async def broadcast():
        while True:
            await trio.sleep(period_ms / 1000)
            text = json.dumps({"t": time.time(), "pad": padding})
            for channel in list(sockets):
                try:
                    channel.send_nowait(text)
                except trio.WouldBlock:
                    pass

    async def main():
        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.accesslog = None
        config.errorlog = None
        config.backlog = 2048  # as playsite's server: a burst of arrivals is held, not dropped
        async with trio.open_nursery() as nursery:
            # The collector as playsite's server runs it (docs/metrics.md): tuned once the port is open.
            watch = await nursery.start(run_gc_watch, Settings.from_environ({}).gc_full_interval_s)
            if not relay:
                nursery.start_soon(broadcast)
            await nursery.start(serve, app, config)
            watch.tune()

    trio.run(main)


async def transport_client(conf: dict, out) -> None:
    latencies = Samples()
    received = 0
    measuring = False
    closes: dict[str, int] = {}
    errors: dict[str, int] = {}
    ready = 0

    async def one():
        nonlocal received, ready
        try:
            async with await connect(conf["ws"] + "/") as ws:
                ready += 1
                while True:
                    text = await ws.receive()
                    if measuring:
                        received += 1
                        latencies.add(time.time() - json.loads(text)["t"])
        except Closed as closed:
            code = str(closed.code)
            closes[code] = closes.get(code, 0) + 1
        except CONNECT_ERRORS as error:
            kind = f"connect: {type(error).__name__}"  # counted, like the game client's: a run never dies of it
            errors[kind] = errors.get(kind, 0) + 1

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        collector = await nursery.start(run_gc_watch, CLIENT_GC_FULL_INTERVAL_S)
        clock = LoopClock()
        nursery.start_soon(clock.run)
        for _ in range(conf["sockets"]):
            nursery.start_soon(one)
            if conf["connect_rate"]:
                await trio.sleep(1 / conf["connect_rate"])
        set_up = trio.Event()
        nursery.start_soon(report_setup, out, conf["client"], lambda: ready, set_up)
        with trio.move_on_after(conf["setup_timeout"]):
            while ready < conf["sockets"]:
                await trio.sleep(0.05)
        set_up.set()
        setup_s = time.perf_counter() - started
        collector.tune()  # before saying ready, as the game client
        out.put({"kind": "ready", "setup_s": setup_s, "ready": ready})
        await trio.to_thread.run_sync(conf["go"].wait)
        measuring = True
        t0 = time.perf_counter()
        clock.open_window()
        end = t0 + conf["duration"]
        while time.perf_counter() < end:
            await trio.sleep(min(PROGRESS_S, end - time.perf_counter()))
            out.put({"kind": "progress", "turns": received, "sockets": ready, "errors": sum(errors.values())})
        measuring = False
        clock.close_window()
        window = time.perf_counter() - t0
        await end_of_window(conf, out)
        nursery.cancel_scope.cancel()
    out.put({"kind": "result", "setup_s": setup_s, "window_s": window, "turns": received, "frames": received,
             "client": conf["client"], "clock": clock.report(), "verdict_max_at_s": None, "verdict": [],
             "broadcast": latencies.values, "errors": errors, "closes": closes, "games_created": 0})


async def end_of_window(conf: dict, out) -> None:
    """Say the window is over, and keep the sockets open until every client has said so and
    the coordinator has read the server: closing thousands of sockets is work for the server
    (and its collector) that is no part of the measured load."""
    out.put({"kind": "measured"})
    await trio.to_thread.run_sync(conf["release"].wait, WINDOW_RELEASE_TIMEOUT_S)


def client_main(mode: str, conf: dict, out) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    # The client's own collector must not be what is measured: parsed trees are thousands of
    # young dicts, and every collection walks the state of thousands of sockets. While the
    # sockets are set up, collections are rare; once they are, the client's collector runs as
    # the server's does (playsite/gcwatch.py: what exists frozen, the young collected every
    # 0.125 s), so each pause walks only what is young (a 100,000-allocation threshold let a
    # collection walk up to 100,000 objects while every socket of the client waited).
    gc.set_threshold(100_000, 50, 1000)
    if mode == "relay":
        trio.run(functools.partial(game_client, slot_main=relay_group), conf, out)
    else:
        trio.run(game_client if mode == "game" else transport_client, conf, out)


# ----- the parent -------------------------------------------------------------------------------


def scrape_metrics(base: str, token: str | None) -> dict[tuple[str, str | None], float] | None:
    """Every sample of the server's GET /metrics (PLAY_METRICS_TOKEN), summed over its labels
    but a histogram's `le`, as {(name, le): value}; None without a token or an answer."""
    if not token:
        return None
    try:
        answer = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        answer.raise_for_status()
        families = list(text_string_to_metric_families(answer.text))
    except (httpx.HTTPError, ValueError):
        return None
    found: dict[tuple[str, str | None], float] = {}
    for family in families:
        for sample in family.samples:
            key = (sample.name, sample.labels.get("le"))
            found[key] = found.get(key, 0.0) + sample.value
    return found


def grown(before: dict, after: dict, name: str, le: str | None = None) -> float:
    """How much a scraped sample grew over the window."""
    return after.get((name, le), 0.0) - before.get((name, le), 0.0)


def histogram_window(before: dict, after: dict, name: str) -> dict | None:
    """A server histogram over the measured window: how many, their mean, and the bucket
    bounds p50 and p99 fall under (a Prometheus histogram knows no more than its buckets)."""
    count = grown(before, after, f"{name}_count")
    if count <= 0:
        return None
    bounds = sorted((le for (sample, le) in after if sample == f"{name}_bucket" and le != "+Inf"), key=float)

    def at_most(share: float) -> str:
        return next((le for le in bounds if grown(before, after, f"{name}_bucket", le) >= share * count), "+Inf")

    return {
        "count": int(count),
        "mean_ms": round(1000 * grown(before, after, f"{name}_sum") / count, 1),
        "p50_at_most_s": at_most(0.5),
        "p99_at_most_s": at_most(0.99),
    }


def gc_summary(before: dict | None, after: dict | None, cpu_s: float | None) -> dict | None:
    """Collections, their share of the server's CPU, and the pause p99 bound, over the window."""
    if before is None or after is None:
        return None
    pauses = histogram_window(before, after, "playsite_gc_pause_seconds")
    gc_cpu = grown(before, after, "playsite_gc_cpu_seconds_total")
    return {
        "collections": 0 if pauses is None else pauses["count"],
        "collected_objects": int(grown(before, after, "playsite_gc_collected_objects_total")),
        "seconds": round(grown(before, after, "playsite_gc_pause_seconds_sum"), 3),
        "cpu_seconds": round(gc_cpu, 3),
        "share_of_cpu": None if not cpu_s else round(gc_cpu / cpu_s, 3),
        "pause_p99_at_most_s": None if pauses is None else pauses["p99_at_most_s"],
    }


def server_latencies(before: dict | None, after: dict | None) -> dict | None:
    """What the server itself timed over the window: a command taken by its room -> its
    verdict, the part of it spent waiting for the next roll's tree, and the trees computed (and
    how many of them the serving process took back from the pool); on PostgreSQL, each database
    call's three parts (a connection, the transaction, the way back), and the turns' writes that
    found the event loop's connections busy and took a worker thread."""
    if before is None or after is None:
        return None
    database = {
        part: histogram_window(before, after, f"playsite_database_{part}_seconds")
        for part in ("wait", "transaction", "return")
    }
    return {
        "verdict": histogram_window(before, after, "playsite_turn_verdict_seconds"),
        "tree_wait": histogram_window(before, after, "playsite_tree_wait_seconds"),
        "trees": int(grown(before, after, "playsite_trees_total")),
        "trees_taken_back": int(grown(before, after, "playsite_trees_taken_back_total")),
        "database": database if any(database.values()) else None,
        "turn_writes_by_thread": int(grown(before, after, "playsite_database_turn_writes_by_thread_total")),
    }


def server_loop_lag(before: dict | None, after: dict | None) -> dict | None:
    """The serving process's own event-loop lag over the window (playsite/loopwatch.py): its
    wake-ups, the bucket p99 falls in, how many were later than LATE_S, and the worst one when
    it is the worst since the process started (else only that it was not)."""
    if before is None or after is None:
        return None
    lags = histogram_window(before, after, "playsite_event_loop_lag_seconds")
    if lags is None:
        return None
    late = lags["count"] - grown(before, after, "playsite_event_loop_lag_seconds_bucket", str(LATE_S))
    worst_before = before.get(("playsite_event_loop_lag_max_seconds", None), 0.0)
    worst_after = after.get(("playsite_event_loop_lag_max_seconds", None), 0.0)
    return {
        "wakeups": lags["count"], "p99_at_most_s": lags["p99_at_most_s"], "over_100ms": int(late),
        "max_ms": round(worst_after * 1000, 1) if worst_after > worst_before else None,
        "max_before_window_ms": round(worst_before * 1000, 1),
    }


def machine_counters() -> dict[str, float]:
    """The machine's CPU (all, idle, steal: /proc/stat jiffies) and swapping (/proc/vmstat)."""
    found: dict[str, float] = {}
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        ticks = [int(f) for f in fields]
        found["cpu"] = sum(ticks[:8])
        found["idle"] = ticks[3] + ticks[4]
        found["steal"] = ticks[7] if len(ticks) > 7 else 0
        for line in Path("/proc/vmstat").read_text().splitlines():
            name, value = line.split()
            if name in ("pswpin", "pswpout", "pgmajfault"):
                found[name] = int(value)
    except (OSError, ValueError, IndexError):
        pass
    return found


def machine_window(before: dict[str, float], after: dict[str, float]) -> dict:
    """The machine over the window: busy and stolen CPU (cores), pages swapped, major faults."""
    cores = os.cpu_count() or 1
    total = after.get("cpu", 0) - before.get("cpu", 0)
    if total <= 0:
        return {}
    share = lambda name: (after.get(name, 0) - before.get(name, 0)) / total * cores  # noqa: E731
    return {
        "busy_cores": round(cores - share("idle"), 2), "steal_cores": round(share("steal"), 2),
        "swapped_pages": int(after.get("pswpin", 0) + after.get("pswpout", 0) - before.get("pswpin", 0) - before.get("pswpout", 0)),
        "major_faults": int(after.get("pgmajfault", 0) - before.get("pgmajfault", 0)),
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen | multiprocessing.Process, timeout: float = 60) -> None:
    stop = time.monotonic() + timeout
    while time.monotonic() < stop:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        alive = process.poll() is None if isinstance(process, subprocess.Popen) else process.is_alive()
        if not alive:
            raise SystemExit("the server exited before listening")
        time.sleep(0.1)
    raise SystemExit(f"the server did not listen within {timeout} s")


def spawn_server(port: int, extra_env: dict[str, str], log_path: str | None = None) -> subprocess.Popen:
    env = {
        **os.environ,
        "PLAY_HOST": "127.0.0.1",
        "PLAY_PORT": str(port),
        "PLAY_HOUSE_BOTS": "false",
        "DICE_SEED_WINDOW_MS": "0",
        "PLAY_LOG_LEVEL": "warning",
        "PLAY_GAME_CREATIONS_PER_MINUTE": "100000",
        "PLAY_SOCKET_CONNECTS_PER_MINUTE": "100000",
        "PLAY_SOCKETS_PER_ADDRESS": "1000000",
        "PLAY_SPECTATORS_PER_ADDRESS": "100000",
        "PLAY_UNJOINED_GAMES_MAX": "1000000",
        **extra_env,
    }
    log = open(log_path or os.devnull, "wb")  # the server's lines, its persistence telemetry among them
    return subprocess.Popen([sys.executable, "-m", "playsite", "serve"], env=env, stdout=log, stderr=log, cwd=ROOT)


OPEN_FILES_HEADROOM = 1024
"""Files a server needs besides its sockets: the listener, logs, database connections, workers."""


def ensure_open_files(args: argparse.Namespace) -> str | None:
    """Make room for the run's sockets under this process's open-files limit, which the server
    spawned here and the clients inherit (the server raises its soft limit to the hard one;
    the clients share the sockets). Raising the hard limit needs privileges: without them a
    run that cannot fit is refused before it starts, saying what to raise."""
    sockets = args.sockets if args.transport_only else args.games * (2 + args.spectators)
    if args.url:  # the server is not ours: only the clients' share counts here
        sockets = -(-sockets // args.clients)
    needed = sockets + OPEN_FILES_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return None
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, max(hard, needed)))
    except (ValueError, OSError):
        return (f"{sockets:,} sockets need {needed:,} open files; this shell's limit is {soft:,} (hard {hard:,}):"
                f" run it with a higher limit (`ulimit -n {needed}`, as root `ulimit -Hn {needed}` first)")
    return None


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def run(args: argparse.Namespace) -> dict:
    server = None
    pid = args.server_pid
    if args.transport_only or args.relay:
        port = free_port()
        server = multiprocessing.Process(
            target=transport_server_main, args=(port, args.period_ms, args.frame_bytes, args.relay)
        )
        server.start()
        pid = server.pid
        wait_listening(port, server)
        base = f"http://127.0.0.1:{port}"
    elif args.spawn:
        port = free_port()
        extra = dict(item.split("=", 1) for item in args.server_env)
        if args.metrics_token:
            extra["PLAY_METRICS_TOKEN"] = args.metrics_token
        server = spawn_server(port, extra, args.server_log)
        pid = server.pid
        wait_listening(port, server)
        base = f"http://127.0.0.1:{port}"
    else:
        base = args.url.rstrip("/")
    proc = ProcView(pid)
    mode = "transport" if args.transport_only else "relay" if args.relay else "game"
    counts = split(args.sockets if args.transport_only else args.games, args.clients)
    out = multiprocessing.Queue()
    go = multiprocessing.Event()
    release = multiprocessing.Event()
    clients = []
    for index, count in enumerate(counts):
        conf = {
            "url": base, "ws": base.replace("http", "ws", 1), "games": count, "sockets": count,
            "spectators": args.spectators, "think": args.think, "duration": args.duration,
            "setup_timeout": args.setup_timeout, "seed": args.seed + index, "client": index,
            "connect_rate": args.connect_rate / args.clients if args.connect_rate else 0,
            "go": go,
            "release": release,
        }
        client = multiprocessing.Process(target=client_main, args=(mode, conf, out))
        client.start()
        clients.append(client)
    results, readies, progress = [], [], {}
    setting_up: dict[int, int] = {}
    total_sockets = args.sockets if args.transport_only else args.games * (2 + args.spectators)
    metrics_before = metrics_after = None
    machine_before: dict[str, float] = {}
    machine_after: dict[str, float] = {}
    cpu_start = cpu_end = None
    client_cpu_start = client_cpu_end = workers_cpu_start = workers_cpu_end = 0.0
    measured_at = None
    measured = 0
    peak_rss, peak_fds = 0.0, 0
    deadline = time.monotonic() + args.setup_timeout + args.duration + 120
    try:
        while len(results) < len(clients):
            try:
                message = out.get(timeout=1)
            except queue_module.Empty:
                message = None
            rss, fds = proc.rss_mib(), proc.fds()
            proc.children_cpu_s()  # seen often, a worker that exits keeps most of its CPU counted
            peak_rss = max(peak_rss, rss or 0)
            peak_fds = max(peak_fds, fds or 0)
            if time.monotonic() > deadline:
                raise SystemExit("the clients did not finish in time")
            if message is None:
                continue
            if message["kind"] == "ready":
                readies.append(message)
                if len(readies) == len(clients):
                    metrics_before = scrape_metrics(base, args.metrics_token)
                    machine_before = machine_counters()
                    cpu_start, measured_at = proc.cpu_s(), time.monotonic()
                    client_cpu_start = sum(ProcView(c.pid).cpu_s() or 0 for c in clients)
                    workers_cpu_start = proc.children_cpu_s()
                    go.set()
                    ready = sum(r["ready"] for r in readies)
                    print(f"[loadgen] set up in {max(r['setup_s'] for r in readies):.1f} s ({ready} of "
                          f"{sum(counts)} {'sockets' if args.transport_only else 'games'} ready); measuring "
                          f"{args.duration:.0f} s", file=sys.stderr)
            elif message["kind"] == "setup":
                setting_up[message["client"]] = message["sockets"]
                if message["client"] == 0:
                    print(f"[loadgen] setting up: {sum(setting_up.values())} of {total_sockets} sockets ready, "
                          f"server RSS {rss or 0:.0f} MiB", file=sys.stderr)
            elif message["kind"] == "progress":
                progress[id(message)] = message
                print(f"[loadgen] {'messages' if args.transport_only else 'turns'} so far {message['turns']}, "
                      f"sockets {message['sockets']}, errors {message['errors']}, server RSS {rss or 0:.0f} MiB",
                      file=sys.stderr)
            elif message["kind"] == "measured":
                measured += 1
                if measured == len(clients):  # every window is over; no socket is closed yet
                    cpu_end, measured_end = proc.cpu_s(), time.monotonic()
                    machine_after = machine_counters()
                    client_cpu_end = sum(ProcView(c.pid).cpu_s() or 0 for c in clients)
                    workers_cpu_end = proc.children_cpu_s()
                    metrics_after = scrape_metrics(base, args.metrics_token)
                    release.set()
            elif message["kind"] == "result":
                results.append(message)
    finally:
        for client in clients:
            client.join(timeout=30)
            if client.is_alive():
                client.kill()
        if server is not None:
            if isinstance(server, subprocess.Popen):
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    server.kill()
            else:
                server.kill()
                server.join()
    window = max(r["window_s"] for r in results)
    verdict = [v for r in results for v in r["verdict"]]
    broadcast = [v for r in results for v in r["broadcast"]]
    errors: dict[str, int] = {}
    closes: dict[str, int] = {}
    for r in results:
        for key, value in r["errors"].items():
            errors[key] = errors.get(key, 0) + value
        for key, value in r["closes"].items():
            closes[key] = closes.get(key, 0) + value
    cpu = None
    if cpu_start is not None and cpu_end is not None and measured_at is not None:
        cpu = (cpu_end - cpu_start) / max(1e-9, measured_end - measured_at)
    ms = lambda seconds: None if seconds is None else round(seconds * 1000, 1)  # noqa: E731
    frames_per_s = sum(r["frames"] for r in results) / window
    slowest = max(results, key=lambda r: max(r["verdict"], default=0.0))
    summary = {
        "mode": mode,
        "frame_bytes": args.frame_bytes if args.transport_only or args.relay else None,
        "games": None if args.transport_only else args.games,
        "sockets": args.sockets if args.transport_only else args.games * (2 + args.spectators),
        "think_s": None if args.transport_only else args.think,
        "period_ms": args.period_ms if args.transport_only else None,
        "clients": args.clients,
        "setup_s": round(max(r["setup_s"] for r in results), 1),
        "window_s": round(window, 1),
        "rate_per_s": round(sum(r["turns"] for r in results) / window, 1),
        "verdict_ms": {"p50": ms(percentile(verdict, 50)), "p99": ms(percentile(verdict, 99)), "max": ms(max(verdict, default=None))},
        "broadcast_ms": {"p50": ms(percentile(broadcast, 50)), "p99": ms(percentile(broadcast, 99)), "max": ms(max(broadcast, default=None))},
        "server_cpu_cores": None if cpu is None else round(cpu, 2),
        "server_rss_mib": round(peak_rss) if peak_rss else None,
        "server_workers_cpu_cores": None if cpu is None else round((workers_cpu_end - workers_cpu_start) / window, 2),
        "client_cpu_cores": None if cpu is None else round((client_cpu_end - client_cpu_start) / window, 2),
        "server_fds": peak_fds or None,
        "errors": errors,
        "closes": closes,
        "games_created": sum(r["games_created"] for r in results),
        "load_average": os.getloadavg()[0],
        "gc": gc_summary(metrics_before, metrics_after, None if cpu is None else cpu * (measured_end - measured_at)),
        "server": server_latencies(metrics_before, metrics_after),
        "frames_per_s": round(frames_per_s, 1),
        "server_cpu_ms_per_frame": None if cpu is None or not frames_per_s else round(cpu / frames_per_s * 1000, 4),
        # The clients do the same work for any build of the server: this ratio, unlike the CPU per
        # frame, cancels a shared machine's drift when two builds are compared (docs/performance.md).
        "server_per_client_cpu": None if cpu is None or client_cpu_end == client_cpu_start
        else round(cpu * window / (client_cpu_end - client_cpu_start), 3),
        "stalls": {
            "verdict_max_sent_at_s": slowest.get("verdict_max_at_s"),
            "verdict_max_client": slowest.get("client"),
            "server_loop_lag": server_loop_lag(metrics_before, metrics_after),
            "clients": [{"client": r["client"], **r["clock"]} for r in sorted(results, key=lambda r: r["client"])],
            "machine": machine_window(machine_before, machine_after),
        },
    }
    return summary


def markdown_row(s: dict) -> str:
    def f(value, unit=""):
        return "–" if value is None else f"{value:,}{unit}" if isinstance(value, int) else f"{value}{unit}"
    if s["mode"] == "transport":
        shape = f"transport only: {s['sockets']:,} sockets, a frame every {s['period_ms']} ms"
    elif s["mode"] == "relay":
        shape = (f"transport only, relayed: {s['games']:,} groups x {s['sockets'] // s['games']} sockets,"
                 f" think {s['think_s']} s")
    else:
        shape = f"{s['games']:,} games x {2 + (s['sockets'] // s['games'] - 2)} sockets, think {s['think_s']} s"
    return (
        f"| {shape} | {f(s['rate_per_s'])} | {f(s['verdict_ms']['p50'])} / {f(s['verdict_ms']['p99'])} ms"
        f" | {f(s['broadcast_ms']['p50'])} / {f(s['broadcast_ms']['p99'])} / {f(s['broadcast_ms']['max'])} ms"
        f" | {f(s['setup_s'])} s | {f(s['server_cpu_cores'])} | {f(s['server_rss_mib'])} MiB"
        f" | {sum(s['errors'].values())} / {sum(s['closes'].values())} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running playsite (give --server-pid to read its CPU and memory)")
    where.add_argument("--spawn", action="store_true", help="start `playsite serve` (memory store) for the run")
    where.add_argument("--transport-only", action="store_true", help="no game: a raw ASGI broadcast server")
    where.add_argument("--relay", action="store_true",
                       help="no game: a raw ASGI server relaying a game's traffic (--games groups of 2 seats and"
                            " --spectators, --think, seats' rolls --frame-bytes long)")
    parser.add_argument("--server-pid", type=int)
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="with --spawn: a setting for the server (repeatable), e.g. DATABASE_URL=...")
    parser.add_argument("--server-log", metavar="PATH",
                        help="with --spawn: write the server's output here (default: discarded)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=3)
    parser.add_argument("--think", type=float, default=5.0, help="mean think time per turn, seconds")
    parser.add_argument("--sockets", type=int, default=1000, help="transport-only: sockets")
    parser.add_argument("--period-ms", type=int, default=1000, help="transport-only: one frame per socket this often")
    parser.add_argument("--frame-bytes", type=int, default=1000,
                        help="transport-only: every frame; relay: the roll a seat receives")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured after set-up")
    parser.add_argument("--setup-timeout", type=float, default=180.0)
    parser.add_argument("--connect-rate", type=float, default=0, help="games (or sockets) started per second; 0: all at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--metrics-token", help="read the server's GC pauses and its own latencies from GET /metrics with this token"
                        " (with --spawn it is given to the server)")
    parser.add_argument("--markdown", action="store_true", help="also print the summary as a table row")
    args = parser.parse_args(argv)
    if args.games < 1 or args.clients < 1 or args.duration <= 0:
        parser.error("--games, --clients and --duration must be positive")
    if problem := ensure_open_files(args):
        parser.error(problem)
    # Stopped from outside (`timeout`, a bench's deadline): the server it spawned and the
    # clients are stopped too, by run()'s `finally`, instead of being left behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("[loadgen] stopped by SIGTERM"))
    summary = run(args)
    print(json.dumps(summary))
    if args.markdown:
        print(markdown_row(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
