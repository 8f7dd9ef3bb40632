"""Benchmark: turns per second and turn latency, memory store against PostgreSQL.

    .venv/bin/python bench/persistence.py              # run, print and write the table
    .venv/bin/python bench/persistence.py --seconds 1  # shorter windows (not written)

Each configuration runs N concurrent in-process games on the real clock, through the
Registry/Room API directly (no sockets): Unlimited time control, seed window 0, both seats
always present. Each seat is a scripted player that answers every roll of its own with a
random legal turn (a game that ends is replaced by a new one in the same slot).

Latency is one turn's round trip as the mover sees it: from queueing the SubmitTurn intent
to the room's verdict. The verdict follows the commit (publish after commit), so under
PostgreSQL it includes the version's write, and the opponent's next roll, written in the
same version batch. Forced passes are played by the server and are not counted as turns.

PostgreSQL is a private cluster started here with tools/devdb.py's `Cluster` (the suite's
throwaway settings: fsync=off, synchronous_commit=off), a fresh migrated database per
configuration, the store's defaults (pool of 8, statement_timeout 5 s). A last group repeats
required durability on the same cluster restarted with fsync and synchronous_commit on, so
the figures also show what a commit that reaches the disk costs on this machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import sys
import time
import uuid
from pathlib import Path

import psycopg
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playsite.dice import SystemSeedSource  # noqa: E402
from playsite.rooms.admission import Admission, Purpose  # noqa: E402
from playsite.rooms.fanout import QueueSubscriber  # noqa: E402
from playsite.rooms.intents import Attach, PlayerCommand  # noqa: E402
from playsite.rooms.model import BEST_EFFORT, REQUIRED, RoomSetup, SeatSetup  # noqa: E402
from playsite.rooms.registry import Registry  # noqa: E402
from playsite.store.database import Database  # noqa: E402
from playsite.store.memory import MemoryStore  # noqa: E402
from playsite.store.migrations import apply_pending, load_migrations  # noqa: E402
from playsite.store.postgres import PostgresStore  # noqa: E402
from playsite.tokens import new_token  # noqa: E402
from playsite.wire import PublicFace, SubmitTurn, Unlimited, decode_event  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "persistence.md"
GAME_COUNTS = (1, 10, 100)
SECONDS = 3.0
WARMUP_S = 0.5
DB_POOL_SIZE = 8
"""The server's default PLAY_DB_POOL_SIZE."""


def _load_devdb():
    spec = importlib.util.spec_from_file_location("devdb", ROOT / "tools" / "devdb.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


devdb = _load_devdb()


class BenchCluster(devdb.Cluster):
    """tools/devdb.py's cluster; `synced = True` restarts it with commits flushed to disk."""

    synced = False

    def start(self) -> None:
        if not self.synced:
            return super().start()
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")


# ----- one game slot -------------------------------------------------------------------


def _seat() -> SeatSetup:
    return SeatSetup(token_hash=new_token()[1], face=PublicFace(kind="Human", name=None), always_present=True)


def _setup(durability: str) -> RoomSetup:
    return RoomSetup(
        game_id=str(uuid.uuid4()),
        time_control=Unlimited(),
        white=_seat(),
        black=_seat(),
        origin="lobby",
        await_joins=False,
        seed_window_s=0,
        durability=durability,
    )


def _random_turn(tree: dict, rng: random.Random) -> tuple[str, ...]:
    moves = []
    while tree:
        move = rng.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return tuple(moves)


class Samples:
    def __init__(self, measure_from: float, stop_at: float):
        self.measure_from = measure_from
        self.stop_at = stop_at
        self.latencies_ms: list[float] = []
        self.rejected = 0
        self.games = 0

    def add(self, submitted: float, answered: float) -> None:
        if submitted >= self.measure_from and answered <= self.stop_at:
            self.latencies_ms.append((answered - submitted) * 1000)


async def _player(room, seat: str, rng: random.Random, samples: Samples) -> None:
    """Play every roll of `seat`. Cheap on purpose: the benchmark measures the server, so the
    player reads only an event's head and takes the tree from the room in process (where a
    remote client would parse it); the room is waiting for this seat's turn, so it is current."""
    subscriber = QueueSubscriber(seat)
    attach = Attach(subscriber)
    if not (await room.send(attach) and await attach.reply.wait()):
        return
    my_roll = f'{{"DiceRolled":{{"v":'
    my_seat = f'"seat":"{seat}"'
    async for text in subscriber.events:
        if text.startswith('{"GameEnded"'):
            return
        if text.startswith('{"Snapshot"'):
            state = decode_event(text).state
            mine = state.dice_pending and state.active_seat == seat
        else:
            mine = text.startswith(my_roll) and my_seat in text[:48]
        if not mine or text.endswith('"legalMoves":{}}}') or not room.tree:
            continue  # not this seat's roll, or a forced pass (the server plays it)
        intent = PlayerCommand(seat, SubmitTurn(_random_turn(room.tree, rng)))
        submitted = time.perf_counter()
        if not await room.send(intent):
            return
        verdict = await intent.reply.wait()
        answered = time.perf_counter()
        if verdict.applied:
            samples.add(submitted, answered)
        else:
            samples.rejected += 1


async def _game_slot(registry: Registry, durability: str, rng: random.Random, samples: Samples) -> None:
    with trio.move_on_at(_trio_deadline(samples.stop_at)):
        while True:
            room = await registry.create(_setup(durability), Purpose.GENERAL, ())
            samples.games += 1
            async with trio.open_nursery() as nursery:
                for seat in ("White", "Black"):
                    nursery.start_soon(_player, room, seat, random.Random(rng.random()), samples)


def _trio_deadline(perf_deadline: float) -> float:
    """A perf_counter instant as a trio deadline (the benchmark runs on the real clock)."""
    return trio.current_time() + (perf_deadline - time.perf_counter())


async def _run_games(store, durability: str, games: int, seconds: float, seed: int) -> Samples:
    start = time.perf_counter()
    samples = Samples(start + WARMUP_S, start + WARMUP_S + seconds)
    rng = random.Random(seed)
    async with trio.open_nursery() as nursery:
        registry = await nursery.start(Registry(Admission(lambda participant: None), SystemSeedSource(), store).run)
        async with trio.open_nursery() as slots:
            for _ in range(games):
                slots.start_soon(_game_slot, registry, durability, random.Random(rng.random()), samples)
        nursery.cancel_scope.cancel()  # rooms still playing are simply dropped
    return samples


# ----- configurations ------------------------------------------------------------------


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def _row(label: str, games: int, samples: Samples, seconds: float) -> str:
    values = samples.latencies_ms
    if not values:
        return f"| {label} | {games} | 0 | - | - |"
    return (
        f"| {label} | {games} | {len(values) / seconds:,.0f} | "
        f"{_percentile(values, 0.50):.2f} | {_percentile(values, 0.99):.2f} |"
    )


def _fresh_store(cluster) -> tuple[Database, PostgresStore]:
    url = cluster.create_database(f"bench_{uuid.uuid4().hex[:12]}")
    with psycopg.connect(url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    database = Database(url, pool_size=DB_POOL_SIZE)
    return database, PostgresStore(database)


async def _postgres_config(cluster, durability: str, games: int, seconds: float, seed: int) -> Samples:
    database, store = _fresh_store(cluster)
    await database.open()
    try:
        return await _run_games(store, durability, games, seconds, seed)
    finally:
        await database.close()


def run(seconds: float, counts: tuple[int, ...], synced: bool) -> str:
    rows: list[str] = []
    stats: list[str] = []
    load_before = os.getloadavg()[0]

    def record(label: str, games: int, samples: Samples) -> None:
        rows.append(_row(label, games, samples, seconds))
        stats.append(f"{label}, N={games}: {samples.games} games started in the run, {samples.rejected} turns rejected")
        print(rows[-1], file=sys.stderr, flush=True)

    for games in counts:
        record("memory (best effort)", games, trio.run(_run_games, MemoryStore(), BEST_EFFORT, games, seconds, games))
    with BenchCluster() as cluster:
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
        for durability, label in ((REQUIRED, "postgres, required"), (BEST_EFFORT, "postgres, best effort")):
            for games in counts:
                record(label, games, trio.run(_postgres_config, cluster, durability, games, seconds, games))
        if synced:
            cluster.stop()
            cluster.synced = True
            cluster.start()
            for games in counts:
                samples = trio.run(_postgres_config, cluster, REQUIRED, games, seconds, games)
                record("postgres fsync=on, required", games, samples)

    header = [
        "# Persistence benchmark: turns per second and turn latency",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}; PostgreSQL {version} on the same machine (tools/devdb.py cluster: "
        "fsync=off, synchronous_commit=off, full_page_writes=off, unless the row says fsync=on).",
        f"Each row: N concurrent in-process games (Registry/Room API, real clock), two random "
        f"players each, Unlimited time control, seed window 0; {WARMUP_S:g} s warm-up, then "
        f"{seconds:g} s measured. turns/s counts submitted turns answered in that window, all games "
        "together (forced passes excluded). Latency: SubmitTurn intent queued -> verdict received "
        f"by the mover (after the version committed). Store pool: {DB_POOL_SIZE} connections.",
        "",
        "| store | games | turns/s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    footer = [
        "",
        f"1-minute load average before the run {load_before:.2f}, after it {os.getloadavg()[0]:.2f} "
        "(the benchmark itself keeps about one core busy; more means other work shared the machine).",
        "",
        *[f"- {line}" for line in stats],
        "",
    ]
    return "\n".join(header + rows + footer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"measured seconds per row (default {SECONDS:g})")
    parser.add_argument("--games", type=int, nargs="+", default=list(GAME_COUNTS), help="concurrent game counts")
    parser.add_argument("--no-fsync-rows", action="store_true", help="skip the fsync=on group")
    parser.add_argument("--no-write", action="store_true", help="print the table without writing results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    table = run(args.seconds, tuple(args.games), not args.no_fsync_rows)
    print(table)
    print(f"(whole run: {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    defaults = args.seconds == SECONDS and tuple(args.games) == GAME_COUNTS and not args.no_fsync_rows
    if not args.no_write and defaults:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
