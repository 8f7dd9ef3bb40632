"""Benchmark: playsite over real sockets, with tools/loadgen.py, and the transport's ceiling.

    .venv/bin/python bench/sockets.py            # the grid below; writes bench/results/sockets.md
    .venv/bin/python bench/sockets.py --quick    # a smaller grid, printed only
    .venv/bin/python bench/sockets.py --rows 0,3 # the rows at 2,000 sockets, printed only

Each game row starts a fresh `playsite serve` (memory store unless the row says PostgreSQL,
seed window 0), and loadgen's clients in separate processes: friend games with 2 seats and 3
or 4 spectators each (as the row says), seats answering after an exponential think. The transport row is loadgen's
raw ASGI broadcast on hypercorn (no game at all): the ceiling playsite's socket path is
compared with. The PostgreSQL row runs on a private cluster (tools/devdb.py) with required
durability: a turn's verdict and broadcast wait for its commit.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "sockets.md"
LOADGEN = ROOT / "tools" / "loadgen.py"
sys.path.insert(0, str(ROOT))

from playsite.config import default_tree_workers  # noqa: E402
from playsite.store.migrations import apply_pending, load_migrations  # noqa: E402

TWO_WORKERS = ["--server-env", "PLAY_TREE_WORKERS=2"]
CLIENTS = 4
"""Load-client processes. With 2, each of 5,000 sockets, the clients' own queues made part
of the tail measured (2,000 x 5: verdict p99 65.6 ms with 2 clients, 42.0 ms with 4, the same
server and the same CPU in all)."""
GRID = [
    ["--transport-only", "--sockets", "2000", "--period-ms", "250", "--duration", "20", "--connect-rate", "400"],
    ["--transport-only", "--sockets", "10000", "--period-ms", "1000", "--duration", "20", "--connect-rate", "400"],
    ["--spawn", "--games", "100", "--spectators", "3", "--think", "1", "--duration", "20", "--connect-rate", "40"],
    ["--spawn", "--games", "400", "--spectators", "3", "--think", "1", "--duration", "30", "--connect-rate", "40"],
    ["--spawn", "--games", "500", "--spectators", "3", "--think", "5", "--duration", "30", "--connect-rate", "40"],
    ["--spawn", "--games", "1000", "--spectators", "4", "--think", "2.5", "--duration", "60", "--connect-rate", "40"],
    ["--spawn", "--games", "1000", "--spectators", "4", "--think", "2.5", "--duration", "30", "--connect-rate", "40",
     *TWO_WORKERS],
    ["--spawn", "--games", "1000", "--spectators", "4", "--think", "2.3", "--duration", "60", "--connect-rate", "40"],
    ["--spawn", "--games", "2000", "--spectators", "3", "--think", "5", "--duration", "60", "--connect-rate", "50"],
]
"""Sockets are opened at a steady rate (--connect-rate: games or sockets per second), as
players arrive, rather than all in one burst. Game rows run with the server's default tree
workers (none on a 2-core machine) unless they say otherwise. 400 x 5 has the sockets of the
2,000-socket transport row, 2,000 x 5 those of the 10,000-socket one: each game row's server
CPU per delivered frame is compared with the transport row of its socket count. The rows the targets are
judged by (1,000 x 6, also at think 2.3 s for more than 400 turns/s offered, and 2,000 x 5) are
measured over 60 s: over 30 s, a single stall of this shared machine can decide the p99 (at
2,000 x 5, 30 s windows gave 92-375 ms). The 2,000 games arrive at 50 a second (set-up at
least 40 s)."""
POSTGRES_ROW = ["--spawn", "--games", "200", "--spectators", "3", "--think", "2", "--duration", "20",
                "--connect-rate", "40"]
QUICK = [
    ["--transport-only", "--sockets", "500", "--period-ms", "250", "--duration", "8"],
    ["--spawn", "--games", "100", "--spectators", "3", "--think", "1", "--duration", "8"],
]


def _load_devdb():
    spec = importlib.util.spec_from_file_location("devdb", ROOT / "tools" / "devdb.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def loadgen(args: list[str]) -> dict:
    command = [sys.executable, str(LOADGEN), *args, "--clients", str(CLIENTS)]
    if "--spawn" in args:
        command += ["--metrics-token", "bench"]
    print("bench:", " ".join(command[2:]), file=sys.stderr, flush=True)
    finished = subprocess.run(command, stdout=subprocess.PIPE, text=True, cwd=ROOT, check=True)
    return json.loads(finished.stdout.strip().splitlines()[0])


def mean_and_p99(window: dict) -> str:
    """A server histogram over the window as `mean / <= p99 bucket`, in ms."""
    return f"{window['mean_ms']} / <= {float(window['p99_at_most_s']) * 1000:g}"


def per_frame(s: dict, transports: dict[int, dict]) -> str:
    """Server CPU per delivered frame, in ms; for a game row, with the share of the raw
    transport's efficiency it reaches (the transport row of the same socket count, this run)."""
    mine = s.get("server_cpu_ms_per_frame")
    if mine is None:
        return "–"
    transport = transports.get(s["sockets"])
    if s["mode"] == "transport" or transport is None or not transport.get("server_cpu_ms_per_frame"):
        return f"{mine:.3f}"
    return f"{mine:.3f} ({transport['server_cpu_ms_per_frame'] / mine:.0%} of the transport's)"


def row(label: str, s: dict, transports: dict[int, dict]) -> str:
    def f(value):
        return "–" if value is None else f"{value:,}"
    verdict, broadcast, gc = s["verdict_ms"], s["broadcast_ms"], s.get("gc")
    collector = "–" if not gc else f"{gc['share_of_cpu'] * 100:.1f}% / <= {gc['pause_p99_at_most_s']} s"
    timed = s.get("server") or {}
    in_server = "–" if not timed.get("verdict") else mean_and_p99(timed["verdict"])
    if timed.get("tree_wait"):
        in_server += f" (tree {mean_and_p99(timed['tree_wait'])})"
    return (
        f"| {label} | {f(s['rate_per_s'])} | {f(verdict['p50'])} / {f(verdict['p99'])} | {in_server} | {f(broadcast['p50'])} /"
        f" {f(broadcast['p99'])} / {f(broadcast['max'])} | {f(s['setup_s'])} | {f(s['server_cpu_cores'])} |"
        f" {per_frame(s, transports)} |"
        f" {f(s.get('server_workers_cpu_cores'))} | {f(s.get('client_cpu_cores'))} | {collector} |"
        f" {f(s['server_rss_mib'])} | {sum(s['errors'].values())} / {sum(s['closes'].values())} |"
    )


def label_of(args: list[str], s: dict, store: str) -> str:
    if s["mode"] == "transport":
        return f"transport only (raw ASGI): {s['sockets']:,} sockets, a 1 KB frame every {s['period_ms']} ms"
    workers = next((a.split("=", 1)[1] for a in args if a.startswith("PLAY_TREE_WORKERS=")), None)
    if workers is None:
        workers = f"{default_tree_workers()} (default)"
    pool = {"0": ", no tree workers", "0 (default)": ", no tree workers (default)", "1": ", one tree worker"}.get(
        workers, f", {workers} tree workers"
    )
    return f"{store}: {s['games']:,} games x {s['sockets'] // s['games']} sockets, think {s['think_s']:g} s{pool}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small grid, printed and not written")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--rows", help="only these rows of the grid, by index (e.g. 0,3 for the two at 2,000"
                        " sockets); printed, not written")
    args = parser.parse_args(argv)
    grid = QUICK if args.quick else GRID
    if args.rows:
        grid = [GRID[int(index)] for index in args.rows.split(",")]
        args.quick = args.no_postgres = True
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    measured: list[tuple[str, dict]] = []
    transports: dict[int, dict] = {}
    for grid_args in grid:
        summary = loadgen(grid_args)
        if summary["mode"] == "transport":
            transports[summary["sockets"]] = summary
        measured.append((label_of(grid_args, summary, "memory"), summary))
        print(row(*measured[-1], transports), file=sys.stderr, flush=True)
    if not args.quick and not args.no_postgres:
        devdb = _load_devdb()
        with devdb.Cluster() as cluster:
            url = cluster.create_database(f"bench_{uuid.uuid4().hex[:12]}")
            with psycopg.connect(url, autocommit=True) as conn:
                apply_pending(conn, load_migrations())
            env = ["--server-env", f"DATABASE_URL={url}", "--server-env", "GAME_DURABILITY=required"]
            summary = loadgen(POSTGRES_ROW + env)
            measured.append((label_of(POSTGRES_ROW, summary, "PostgreSQL, required durability"), summary))
            print(row(*measured[-1], transports), file=sys.stderr, flush=True)
    rows = [row(label, summary, transports) for label, summary in measured]
    table = "\n".join([
        "# Sockets benchmark: playsite over real sockets (tools/loadgen.py)",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}; the server,"
        f" {CLIENTS} load-client processes (and PostgreSQL) share it. Each game has 2 seats and the rest of its sockets"
        " (the row says how many) are spectators on the game socket; seats answer after an exponential think of the given mean. Verdict: a seat sends its turn ->"
        " it reads its own TurnPlayed. Broadcast: the same send -> each spectator reads that TurnPlayed."
        " CPU in cores (utime+stime over the measured window): the serving process, its tree workers, the"
        " load clients. In the server: the room's own timing of a command -> its verdict, and the part of it"
        " spent waiting for the next roll's legal-move tree (mean, and the bucket of GET /metrics its p99"
        " falls in); the rest of a verdict is the way through the sockets and both processes' turns on the"
        " CPUs. Server CPU per frame: the serving process's CPU over the frames the clients received"
        " (every message on every socket), and for a game row the share of the raw transport's"
        " efficiency it reaches (the transport row with as many sockets, measured in this run)."
        " GC: the collector's CPU as a share of the serving process's, and the bucket its"
        " pause p99 falls in (from the server's GET /metrics). RSS of the serving process at its peak.",
        "",
        "| load | turns/s (transport: messages/s) | verdict p50 / p99 ms | in the server: verdict mean / p99"
        " (the next roll's tree) ms | broadcast p50 / p99 / max ms |"
        " set-up of all sockets s | server CPU | server CPU per frame ms | tree workers CPU | clients CPU | GC share / pause p99 |"
        " server RSS MiB | errors / closed sockets |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"1-minute load average before the run {load_before:.2f}, after it {os.getloadavg()[0]:.2f}.",
        "",
    ])
    print(table)
    print(f"(whole run: {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if not args.quick:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        # The A/B sections written by hand below the grid (from the first `## `) are kept.
        kept = RESULTS.read_text().partition("\n## ") if RESULTS.exists() else ("", "", "")
        RESULTS.write_text(table + ("\n## " + kept[2] if kept[1] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
