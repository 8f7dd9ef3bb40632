"""Benchmark: what a turn's write to PostgreSQL costs the serving process.

    .venv/bin/python bench/store_writes.py               # 3 runs of every row; writes the table
    .venv/bin/python bench/store_writes.py --runs 1      # printed, not written

Under required durability every turn waits for its write (`PostgresStore.save_game`): the
game row with its whole snapshot (the turn history included) and its two seats, in one
transaction sent from the event loop (`Database.write_on_loop`; it ran in a worker thread
before). The serving process pays for each write in its own CPU (the driver, and with a
thread its hand-offs and the fight for the GIL with the event loop) besides what PostgreSQL
pays, and that share decides how many games one process carries (docs/performance.md).

Each row: G games write versions 1..V each, all games at once (every game's next version
waits for its last, as a room's do), through the store's own `Database` (up to 8
connections for these writes, the default) on a private cluster (tools/devdb.py; fsync off,
like the test suite's). A version's snapshot holds that many turns of history, so the snapshots grow as a
game's do. Measured: writes a second, and the process's CPU (user + system, all threads) a
write. Each row runs `--runs` times; the table gives the median and, in brackets, the worst.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import platform
import resource
import statistics
import sys
import time
import uuid
from pathlib import Path

import psycopg
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playsite.store.base import GameWrite  # noqa: E402
from playsite.store.database import Database  # noqa: E402
from playsite.store.lease import current_epoch  # noqa: E402
from playsite.store.migrations import apply_pending, load_migrations  # noqa: E402
from playsite.store.postgres import PostgresStore  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "store_writes.md"
ROWS = [(1, 300), (40, 60), (400, 6)]
"""(games at once, versions each)."""

TURN = {
    "seat": "White",
    "dice": [1, 2, 3],
    "moves": ["e2e4", "g1f3", "b1c3"],
    "fenAfter": "rnbqkbnr/pppppppp/8/8/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 1 1 1",
}
WHITE_HASH = hashlib.sha256(b"white").digest()
BLACK_HASH = hashlib.sha256(b"black").digest()


def _load_devdb():
    spec = importlib.util.spec_from_file_location("devdb", ROOT / "tools" / "devdb.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def game_write(game_id: str, version: int) -> GameWrite:
    snapshot = {"gameId": game_id, "version": version, "history": [dict(TURN) for _ in range(version)]}
    return GameWrite(
        game_id=game_id,
        version=version,
        status="active",
        origin="friend",
        durability="required",
        rated=False,
        snapshot=snapshot,
        seats={"White": (WHITE_HASH, f"guest:{game_id}"), "Black": (BLACK_HASH, None)},
    )


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def one_run(url: str, games: int, versions: int) -> dict:
    database = Database(url)
    await database.open()
    # fenced on the serving lease's epoch, as a serving process's writes are
    database.serving_epoch = await database.run(current_epoch)
    store = PostgresStore(database)
    # The writes are made before the clock starts: the snapshots are the room's, not the store's, work.
    writes = [[game_write(str(uuid.uuid4()), v) for v in range(1, versions + 1)] for _ in range(games)]

    async def game(versions_of_one: list[GameWrite]) -> None:
        for write in versions_of_one:
            await store.save_game(write)

    cpu_before, started = cpu_seconds(), time.perf_counter()
    async with trio.open_nursery() as nursery:
        for versions_of_one in writes:
            nursery.start_soon(game, versions_of_one)
    cpu, elapsed = cpu_seconds() - cpu_before, time.perf_counter() - started
    await database.close()
    count = games * versions
    return {"per_s": count / elapsed, "cpu_us": cpu / count * 1e6}


def table(rows: list[tuple[int, int, list[dict]]], load: tuple[float, float]) -> str:
    lines = [
        "# Store writes benchmark: a turn's write to PostgreSQL, as the serving process pays it",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()},"
        f" {platform.machine()}; 1-minute load average before the run {load[0]:.2f}, after it {load[1]:.2f}."
        " PostgreSQL (a private cluster, fsync off) shares the machine; its own CPU is not counted.",
        "",
        "G games write versions 1..V each, all at once, each game's next version after its last, through"
        " `PostgresStore.save_game` (up to 8 connections, driven by the event loop). A version's snapshot"
        " holds that many turns of history."
        " CPU: the benchmark process's user + system time, all threads, over the writes. Median of the runs,"
        " the worst in brackets.",
        "",
        "| games at once (G) | versions each (V) | runs | writes/s | process CPU a write |",
        "|---:|---:|---:|---:|---:|",
    ]
    for games, versions, runs in rows:
        rates = [r["per_s"] for r in runs]
        cpus = [r["cpu_us"] for r in runs]
        lines.append(
            f"| {games:,} | {versions:,} | {len(runs)} | {statistics.median(rates):,.0f} ({min(rates):,.0f})"
            f" | {statistics.median(cpus):,.0f} µs ({max(cpus):,.0f} µs) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of every row (the table is written only with 3 or more)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    measured: list[tuple[int, int, list[dict]]] = [(g, v, []) for g, v in ROWS]
    with _load_devdb().Cluster() as cluster:
        for run in range(1, args.runs + 1):
            for games, versions, runs in measured:
                url = cluster.create_database(f"writes_{uuid.uuid4().hex[:12]}")
                with psycopg.connect(url, autocommit=True) as conn:
                    apply_pending(conn, load_migrations())
                result = trio.run(one_run, url, games, versions)
                runs.append(result)
                print(f"store_writes: run {run}, {games} x {versions}: {result['per_s']:,.0f} writes/s,"
                      f" {result['cpu_us']:,.0f} µs of CPU a write", file=sys.stderr, flush=True)
    text = table(measured, (load_before, os.getloadavg()[0]))
    print(text)
    if args.runs >= 3:
        RESULTS.write_text(text)


if __name__ == "__main__":
    main()
