"""Benchmark: playsite over real sockets, with tools/loadgen.py, and the transport's ceiling.

    .venv/bin/python bench/sockets.py                # the grid below, 3 runs of every row; writes bench/results/sockets.md
    .venv/bin/python bench/sockets.py --quick        # a smaller grid, once, printed only
    .venv/bin/python bench/sockets.py --rows 0,3     # the rows at 2,000 sockets, printed only
    .venv/bin/python bench/sockets.py --rows 0,3,10  # with the relay of 400 x 5's traffic beside them
    .venv/bin/python bench/sockets.py --rows 6 --repeat 1

Each game row starts a fresh `playsite serve` (memory store unless the row says PostgreSQL,
seed window 0), and loadgen's clients in separate processes: friend games with 2 seats and 3
or 4 spectators each (as the row says), seats answering after an exponential think. The
transport rows are loadgen's raw ASGI broadcast on hypercorn (no game at all): the ceiling
playsite's socket path is compared with. The PostgreSQL rows run on a private cluster
(tools/devdb.py) with required durability: a turn's verdict and broadcast wait for its commit.

The whole grid is run `--repeat` times over (row 0 to the last, then again), and each cell of
the table gives the median of a row's runs with the worst in brackets.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import statistics
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

CLIENTS = 4
"""Load-client processes. With 2, each of 5,000 sockets, the clients' own queues made part
of the tail measured (2,000 x 5: verdict p99 65.6 ms with 2 clients, 42.0 ms with 4, the same
server and the same CPU in all)."""
RELAY_ROLL_BYTES = 8000
"""The roll a seat receives in a relay row: about a DiceRolled with its tree inline in loadgen's
games (a random legal turn each time; the inline trees' JSON is ~7.9 KB on average)."""
STORE_POSTGRES = "postgres"
"""Marks a grid row served from PostgreSQL (a private cluster, tools/devdb.py, a fresh migrated
database for each run) with required durability: a turn's verdict and broadcast wait for its commit."""
GRID = [
    ["--transport-only", "--sockets", "2000", "--period-ms", "250", "--duration", "20", "--connect-rate", "400"],
    ["--transport-only", "--sockets", "10000", "--period-ms", "1000", "--duration", "20", "--connect-rate", "400"],
    ["--spawn", "--games", "100", "--spectators", "3", "--think", "1", "--duration", "20", "--connect-rate", "40"],
    ["--spawn", "--games", "400", "--spectators", "3", "--think", "1", "--duration", "30", "--connect-rate", "40"],
    ["--spawn", "--games", "400", "--spectators", "3", "--think", "1", "--duration", "30", "--connect-rate", "40",
     "--server-env", "PLAY_TREE_WORKERS=2"],
    ["--spawn", "--games", "2000", "--spectators", "3", "--think", "5", "--duration", "60", "--connect-rate", "50"],
    ["--spawn", "--games", "5000", "--spectators", "3", "--think", "10", "--duration", "60", "--connect-rate", "100"],
    ["--spawn", "--games", "3000", "--spectators", "3", "--think", "10", "--duration", "20", "--connect-rate", "100"],
    [STORE_POSTGRES, "--spawn", "--games", "200", "--spectators", "3", "--think", "2", "--duration", "20",
     "--connect-rate", "40"],
    [STORE_POSTGRES, "--spawn", "--games", "1000", "--spectators", "3", "--think", "5", "--duration", "60",
     "--connect-rate", "40"],
    ["--relay", "--games", "400", "--spectators", "3", "--think", "1", "--duration", "30", "--connect-rate", "40",
     "--frame-bytes", str(RELAY_ROLL_BYTES)],
    ["--relay", "--games", "2000", "--spectators", "3", "--think", "5", "--duration", "60", "--connect-rate", "50",
     "--frame-bytes", str(RELAY_ROLL_BYTES)],
]
"""Sockets are opened at a steady rate (--connect-rate: games or sockets per second), as
players arrive, rather than all in one burst. Game rows run with the server's default tree
workers (none on a 2-core machine). 400 x 5 has the sockets of the 2,000-socket transport row,
2,000 x 5 those of the 10,000-socket one: each game row's server CPU per delivered frame is
compared with the transport row of its socket count. The rows the targets are judged by
(2,000 x 5; 5,000 x 5 at think 10 s; PostgreSQL 1,000 x 5) are measured over 60 s: over 30 s, a
single stall of a shared machine can decide the p99. 5,000 x 5 is 25,000 sockets: the server
needs an open-files hard limit above 26,000; loadgen raises it where it may (root with
CAP_SYS_RESOURCE) and otherwise refuses that run, which the table then says. 3,000 x 5 arriving
at 100 games (500 sockets) a second is the burst row: more than the server's share of a 2-core
machine shared with the load clients handshakes as they come, so its set-up time is how a
burst of arrivals is absorbed (http/listening.py). 400 x 5 is run again with two tree workers:
the serving process's CPU per frame when the trees are computed elsewhere, as they are by
default on a machine with more than two cores (on this one the workers share the cores with
the server and the clients). The relay rows (10, 11) are the raw ASGI app given the traffic
of the game rows 3 and 5 (loadgen --relay): the same frames a turn, driven by the same kind of
clients, with no game behind them; a game row's CPU per frame is also given as a share of its
relay row's."""
QUICK = [
    ["--transport-only", "--sockets", "500", "--period-ms", "250", "--duration", "8"],
    ["--spawn", "--games", "100", "--spectators", "3", "--think", "1", "--duration", "8"],
]


def _load_devdb():
    spec = importlib.util.spec_from_file_location("devdb", ROOT / "tools" / "devdb.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fresh_database(cluster) -> list[str]:
    """The server settings of a PostgreSQL row: a new migrated database for every run."""
    url = cluster.create_database(f"bench_{uuid.uuid4().hex[:12]}")
    with psycopg.connect(url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    return ["--server-env", f"DATABASE_URL={url}", "--server-env", "GAME_DURABILITY=required"]


def loadgen(args: list[str]) -> dict | str:
    """One run's summary, or why loadgen failed: the last line it wrote to stderr (which is
    passed on as it comes: its progress lines)."""
    command = [sys.executable, str(LOADGEN), *args, "--clients", str(CLIENTS)]
    if "--spawn" in args:
        command += ["--metrics-token", "bench"]
    print("bench:", " ".join(command[2:]), file=sys.stderr, flush=True)
    last = ""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT) as process:
        assert process.stderr is not None and process.stdout is not None
        for line in process.stderr:
            sys.stderr.write(line)
            last = line.strip() or last
        out = process.stdout.read()
    if process.returncode != 0 or not out.strip():
        print(f"bench: that run failed (exit {process.returncode})", file=sys.stderr, flush=True)
        return last or f"exit {process.returncode}"
    return json.loads(out.strip().splitlines()[0])


def mean_and_p99(window: dict) -> str:
    """A server histogram over the window as `mean / <= p99 bucket`, in ms."""
    return f"{window['mean_ms']} / <= {float(window['p99_at_most_s']) * 1000:g}"


def spread(values: list, *, higher_is_worse: bool = True, digits: int | None = None) -> str:
    """`median (worst)` of one figure over a row's runs; just the figure when the runs agree
    (or there is one run); – when no run has it."""
    known = [v for v in values if v is not None]
    if not known:
        return "–"
    median = statistics.median(known)
    worst = max(known) if higher_is_worse else min(known)

    def f(value) -> str:
        return f"{value:,.{digits}f}" if digits is not None else f"{round(value, 1):,}"
    return f(median) if f(median) == f(worst) else f"{f(median)} ({f(worst)})"


def traffic(summary: dict) -> tuple:
    """What a relay row shares with the game rows it is the ceiling of."""
    return summary["games"], summary["sockets"], summary["think_s"]


def per_frame(runs: list[dict], transports: dict[int, list[dict]], relays: dict[tuple, list[dict]]) -> str:
    """Server CPU per delivered frame, in ms; for a game row, with the share of the raw
    transport's efficiency it reaches (the transport row of the same socket count, this run,
    median against median), and of the relay row of its traffic when there is one. With more
    than one run of each, the share each run reached against the ceiling measured in the same
    pass of the grid follows in brackets: two rows minutes apart drift less apart than two
    medians over a whole set does, on a machine whose speed changes by the hour."""
    mine = [s.get("server_cpu_ms_per_frame") for s in runs]
    if all(v is None for v in mine):
        return "–"
    cell = spread(mine, digits=3)
    if runs[0]["mode"] != "game":
        return cell
    median = statistics.median(v for v in mine if v is not None)
    shares = []
    for rows, name in ((transports.get(runs[0]["sockets"], []), "transport"), (relays.get(traffic(runs[0]), []), "relay")):
        ceilings = [r["server_cpu_ms_per_frame"] for r in rows if r.get("server_cpu_ms_per_frame")]
        if ceilings:
            share = f"{statistics.median(ceilings) / median:.0%} of the {name}'s"
            passes = [(r.get("server_cpu_ms_per_frame"), m) for r, m in zip(rows, mine)] if len(rows) == len(mine) else []
            if len(passes) > 1 and all(ceiling and own for ceiling, own in passes):
                share += f" (runs: {', '.join(f'{ceiling / own:.0%}' for ceiling, own in passes)})"
            shares.append(share)
    return f"{cell}: {', '.join(shares)}" if shares else cell


def row(label: str, runs: list[dict], transports: dict[int, list[dict]], relays: dict[tuple, list[dict]]) -> str:
    """One table row for one load measured `len(runs)` times: `median (worst)` in each cell; the
    server's own timings and the collector's come from the run with the median verdict p99."""
    by_p99 = sorted(runs, key=lambda s: s["verdict_ms"]["p99"] if s["verdict_ms"]["p99"] is not None else 0)
    middle = by_p99[(len(by_p99) - 1) // 2]

    def each(read) -> list:
        return [read(s) for s in runs]
    gc = middle.get("gc")
    collector = "–" if not gc else f"{gc['share_of_cpu'] * 100:.1f}% / <= {gc['pause_p99_at_most_s']} s"
    timed = middle.get("server") or {}
    in_server = "–" if not timed.get("verdict") else mean_and_p99(timed["verdict"])
    if timed.get("tree_wait"):
        in_server += f" (tree {mean_and_p99(timed['tree_wait'])})"
    database = timed.get("database") or {}
    if all(database.get(part) for part in ("wait", "transaction", "return")):
        in_server += (
            f"; database call: getting a connection {mean_and_p99(database['wait'])},"
            f" transaction {mean_and_p99(database['transaction'])}, back {mean_and_p99(database['return'])};"
            f" turns' writes through a thread {timed.get('turn_writes_by_thread', 0)}"
        )
    verdict = [spread(each(lambda s, k=k: s["verdict_ms"][k])) for k in ("p50", "p99")]
    broadcast = [spread(each(lambda s, k=k: s["broadcast_ms"][k])) for k in ("p50", "p99", "max")]
    return (
        f"| {label} | {len(runs)} | {spread(each(lambda s: s['rate_per_s']), higher_is_worse=False)} |"
        f" {' / '.join(verdict)} | {in_server} | {' / '.join(broadcast)} |"
        f" {spread(each(lambda s: s['setup_s']))} | {spread(each(lambda s: s['server_cpu_cores']), digits=2)} |"
        f" {per_frame(runs, transports, relays)} |"
        f" {spread(each(lambda s: s.get('server_workers_cpu_cores')), digits=2)} |"
        f" {spread(each(lambda s: s.get('client_cpu_cores')), digits=2)} | {collector} |"
        f" {spread(each(lambda s: s['server_rss_mib']))} |"
        f" {sum(sum(s['errors'].values()) for s in runs)} / {sum(sum(s['closes'].values()) for s in runs)} |"
    )


def label_of(args: list[str], s: dict, store: str) -> str:
    if s["mode"] == "transport":
        return f"transport only (raw ASGI): {s['sockets']:,} sockets, a 1 KB frame every {s['period_ms']} ms"
    if s["mode"] == "relay":
        return (f"relay (raw ASGI, a game's traffic): {s['games']:,} groups x {s['sockets'] // s['games']} sockets,"
                f" think {s['think_s']:g} s, a seat's roll {s['frame_bytes'] / 1000:g} KB")
    workers = next((a.split("=", 1)[1] for a in args if a.startswith("PLAY_TREE_WORKERS=")), None)
    if workers is None:
        workers = f"{default_tree_workers()} (default)"
    pool = {"0": ", no tree workers", "0 (default)": ", no tree workers (default)", "1": ", one tree worker"}.get(
        workers, f", {workers} tree workers"
    )
    arriving = f"{args[args.index('--connect-rate') + 1]} games/s" if "--connect-rate" in args else "all at once"
    return (
        f"{store}: {s['games']:,} games x {s['sockets'] // s['games']} sockets, think {s['think_s']:g} s,"
        f" arriving {arriving}{pool}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small grid, once, printed and not written")
    parser.add_argument("--no-postgres", action="store_true", help="leave out the PostgreSQL rows")
    parser.add_argument("--rows", help="only these rows of the grid, by index (e.g. 0,3 for the two at 2,000"
                        " sockets); printed, not written")
    parser.add_argument("--repeat", type=int, default=3, help="runs of every row (the grid is run this many"
                        " times over, so a drift of the machine spreads over every row)")
    args = parser.parse_args(argv)
    grid = QUICK if args.quick else GRID
    if args.rows:
        grid = [GRID[int(index)] for index in args.rows.split(",")]
    if args.quick:
        args.repeat = 1
    written = not (args.quick or args.rows or args.no_postgres)
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    runs: dict[int, list[dict]] = {index: [] for index in range(len(grid))}
    failed: dict[int, int] = {index: 0 for index in range(len(grid))}
    why: dict[int, str] = {}
    with contextlib.ExitStack() as stack:
        cluster = None
        if any(STORE_POSTGRES in g for g in grid) and not args.no_postgres:
            cluster = stack.enter_context(_load_devdb().Cluster())
        for attempt in range(1, args.repeat + 1):
            for index, grid_args in enumerate(grid):
                if STORE_POSTGRES in grid_args:
                    if cluster is None:
                        continue
                    grid_args = [a for a in grid_args if a != STORE_POSTGRES] + _fresh_database(cluster)
                print(f"bench: run {attempt} of {args.repeat}, row {index}", file=sys.stderr, flush=True)
                summary = loadgen(grid_args)
                if isinstance(summary, str):
                    failed[index] += 1
                    why[index] = summary
                else:
                    runs[index].append(summary)
                    verdict = summary.get("verdict_ms") or {}
                    print(f"bench: row {index}, run {attempt}: {summary.get('server_cpu_ms_per_frame')} ms of server"
                          f" CPU a frame, server CPU over clients' {summary.get('server_per_client_cpu')}, verdict"
                          f" p99 {verdict.get('p99')} ms, max {verdict.get('max')} ms"
                          + (f", errors {summary['errors']}" if summary.get("errors") else ""), file=sys.stderr, flush=True)
    transports: dict[int, list[dict]] = {}
    relays: dict[tuple, list[dict]] = {}
    measured: list[tuple[str, list[dict]]] = []
    lost: list[str] = []
    for index, grid_args in enumerate(grid):
        if not runs[index]:
            if failed[index]:
                lost.append(f"Every run of `{' '.join(grid_args)}` failed; the last said: {why[index]}")
            continue
        first = runs[index][0]
        if first["mode"] == "transport":
            transports[first["sockets"]] = runs[index]
        elif first["mode"] == "relay":
            relays[traffic(first)] = runs[index]
        store = "PostgreSQL, required durability" if STORE_POSTGRES in grid_args else "memory"
        label = label_of(grid_args, first, store)
        if failed[index]:
            label += f" ({failed[index]} more run{'s' if failed[index] > 1 else ''} failed)"
        measured.append((label, runs[index]))
    rows = [row(label, summary, transports, relays) for label, summary in measured]
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
        " falls in); on PostgreSQL, each database call in its three parts: getting a connection (a worker"
        " thread's pooled one, or for a turn's write one of the event loop's), the transaction (BEGIN to"
        " COMMIT answered), and getting back to the room; the rest of a verdict is the way through the"
        " sockets and both processes' turns on the CPUs. Server CPU per frame: the serving process's CPU over the frames the clients received"
        " (every message on every socket), and for a game row the share of the raw transport's"
        " efficiency it reaches (the transport row with as many sockets, measured in this run), and of the"
        " relay row's: the raw ASGI app answering the same traffic (the same games, sockets and think, two"
        " frames a turn to every socket of a group) with no game behind it; in brackets, each run's share"
        " against the ceiling row of its own pass of the grid."
        " GC: the collector's CPU as a share of the serving process's, and the bucket its"
        " pause p99 falls in (from the server's GET /metrics). RSS of the serving process at its peak."
        " Each row was run `runs` times (the whole grid over again each time): a cell is the median of"
        " the runs, with the worst in brackets when they differ (the lowest rate, the highest of the"
        " rest); the server's own timings and the collector's are those of the run with the median"
        " verdict p99.",
        "",
        "| load | runs | turns/s (transport: messages/s) | verdict p50 / p99 ms | in the server: verdict mean / p99"
        " (the next roll's tree) ms | broadcast p50 / p99 / max ms |"
        " set-up of all sockets s | server CPU | server CPU per frame ms | tree workers CPU | clients CPU | GC share / pause p99 |"
        " server RSS MiB | errors / closed sockets |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        *[f"{line}\n" for line in lost],
        f"1-minute load average before the run {load_before:.2f}, after it {os.getloadavg()[0]:.2f}.",
        "",
    ])
    print(table)
    print(f"(whole run: {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if written:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        # The A/B sections written by hand below the grid (from the first `## `) are kept.
        kept = RESULTS.read_text().partition("\n## ") if RESULTS.exists() else ("", "", "")
        RESULTS.write_text(table + ("\n## " + kept[2] if kept[1] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
