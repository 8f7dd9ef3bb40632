"""Benchmark: many live rooms in one trio process — turn rate, turn-to-broadcast latency, memory.

    .venv/bin/python bench/rooms.py                                  # default rows; writes the table
    .venv/bin/python bench/rooms.py --games 100,1000 --seconds 3 --paced ''   # not written unless --write
    .venv/bin/python bench/rooms.py --games 500 --think-ms 500       # seats think 0..1 s per turn

For each N, a fresh child process runs N concurrent games through the Registry/Room API
directly (no sockets, no store): Unlimited time control, seed window 0, each game with two
scripted seats and one spectator-style subscriber, all plain QueueSubscribers (capacity 64,
drop limit 16) like the WebSocket transport uses. A seat answers each DiceRolled of its own
at once with a random legal turn, so the rooms run flat out. After TURNS_PER_GAME submitted
turns the seat to move resigns and the slot starts a new game, so N games stay live.

The players are kept cheap so the figures are the rooms' and not the clients': a seat
recognises its roll from the first bytes of the frame and takes the tree from the room's
published view (what GET /games/{id}/moves serves) instead of parsing the JSON.

Measured over a window of `--seconds` after a warm-up, on the real clock:
- turns/s: submitted turns that reached the spectator (the room's forced passes excluded);
  events/s: every frame the spectators received.
- latency: from just before the SubmitTurn intent is queued on the room to the moment the
  spectator subscriber reads the TurnPlayed from its queue (p50/p99/max).
- memory per room: RSS of the child once all N games are live (each with its 3
  subscribers, 3 tasks and first roll; play starts only after this point), minus RSS
  before the first game, divided by N.
  RSS, not tracemalloc: it counts what the process really holds, allocator overhead included.
Each N runs in its own process so one run's heap never flatters the next one's RSS delta.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import attrs
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playsite.dice import SystemSeedSource  # noqa: E402
from playsite.heaptrim import resident_bytes  # noqa: E402
from playsite.rooms.admission import Admission, Purpose  # noqa: E402
from playsite.rooms.fanout import QueueSubscriber  # noqa: E402
from playsite.rooms.intents import Attach, PlayerCommand  # noqa: E402
from playsite.rooms.model import RoomSetup, SeatSetup  # noqa: E402
from playsite.rooms.registry import Registry  # noqa: E402
from playsite.tokens import new_token  # noqa: E402
from playsite.wire import PublicFace, Resign, SubmitTurn, Unlimited  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "rooms.md"
DEFAULT_GAMES = (100, 1000, 2000)
DEFAULT_SECONDS = 6.0
DEFAULT_PACED = "1000:2000"
"""One row under capacity: 1,000 games whose seats think 2 s on average (about 500 turns/s offered)."""
WARMUP_S = 1.5
TURNS_PER_GAME = 40
"""Submitted turns (both seats together) before the seat to move resigns and the game is replaced."""
CHILD_TIMEOUT_S = 120

_ROLL = re.compile(r'^\{"DiceRolled":\{"v":(\d+),"seat":"(White|Black)"')


@attrs.define
class Counters:
    measuring: bool = False
    turns: int = 0
    events: int = 0
    games_finished: int = 0
    latencies: list[float] = attrs.Factory(list)


@attrs.define
class GameSlot:
    """One game's shared state between its seats and its spectator."""

    room: object
    turns: int = 0
    sent_at: float | None = None
    """When the turn now in flight was queued; the spectator's next TurnPlayed is its echo."""


def rss_bytes() -> int:
    rss = resident_bytes()
    assert rss is not None, "this benchmark reads its RSS from /proc (Linux)"
    return rss


def seat_setup() -> SeatSetup:
    return SeatSetup(token_hash=new_token()[1], face=PublicFace(kind="Human", name=None))


def room_setup() -> RoomSetup:
    return RoomSetup(
        game_id=str(uuid.uuid4()),
        time_control=Unlimited(),
        white=seat_setup(),
        black=seat_setup(),
        await_joins=True,
        seed_window_s=0,
    )


def random_turn(tree: dict, rng: random.Random) -> tuple[str, ...]:
    moves = []
    while tree:
        move = rng.choice(list(tree))
        moves.append(move)
        tree = tree[move]
    return tuple(moves)


async def attach(room, subscriber: QueueSubscriber) -> None:
    intent = Attach(subscriber)
    if not (await room.send(intent) and await intent.reply.wait()):
        raise RuntimeError("attach refused")


async def play_seat(slot: GameSlot, subscriber: QueueSubscriber, rng: random.Random, think_s: float) -> None:
    room, seat = slot.room, subscriber.seat
    async for text in subscriber.events:
        roll = _ROLL.match(text)
        if roll is None or roll[2] != seat:
            continue
        view = room.published
        tree = view.tree
        if view.version != int(roll[1]) or not tree:
            continue  # a forced pass: the room plays it by itself
        if think_s:
            await trio.sleep(rng.uniform(0, 2 * think_s))
        if slot.turns >= TURNS_PER_GAME:
            command = Resign()
        else:
            command = SubmitTurn(random_turn(tree, rng))
            slot.turns += 1
            slot.sent_at = trio.current_time()
        intent = PlayerCommand(seat, command)
        if not await room.send(intent):
            return
        verdict = await intent.reply.wait()
        if not verdict.applied:
            raise RuntimeError(f"{seat} turn refused: {verdict.reason}")


async def spectate(slot: GameSlot, subscriber: QueueSubscriber, counters: Counters) -> None:
    async for text in subscriber.events:
        now = trio.current_time()
        if counters.measuring:
            counters.events += 1
        if slot.sent_at is not None and text.startswith('{"TurnPlayed"'):
            if counters.measuring:
                counters.turns += 1
                counters.latencies.append(now - slot.sent_at)
            slot.sent_at = None


async def run_slot(
    registry: Registry,
    rng: random.Random,
    counters: Counters,
    live: trio.Semaphore | None,
    go: trio.Event,
    think_s: float,
) -> None:
    """Play games back to back in one slot.

    The first game is created and subscribed (its first roll made), `live` released, and
    play waits for `go`: so every room exists before any of them competes for the CPU.
    """
    while True:
        room = await registry.create(room_setup(), Purpose.GENERAL, ())
        slot = GameSlot(room)
        spectator, white, black = QueueSubscriber(), QueueSubscriber("White"), QueueSubscriber("Black")
        for subscriber in (spectator, white, black):
            await attach(room, subscriber)
        if live is not None:
            live.release()
            live = None
            await go.wait()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_seat, slot, white, random.Random(rng.random()), think_s)
            nursery.start_soon(play_seat, slot, black, random.Random(rng.random()), think_s)
            nursery.start_soon(spectate, slot, spectator, counters)
        if counters.measuring:
            counters.games_finished += 1


async def measure(games: int, seconds: float, think_s: float = 0.0) -> dict:
    counters = Counters()
    rng = random.Random(20240607 + games)
    async with trio.open_nursery() as nursery:
        registry = await nursery.start(Registry(Admission(lambda participant: None), SystemSeedSource()).run)
        gc.collect()
        rss_before = rss_bytes()
        live, go = trio.Semaphore(0), trio.Event()
        started = time.perf_counter()
        for _ in range(games):
            nursery.start_soon(run_slot, registry, rng, counters, live, go, think_s)
        for _ in range(games):
            await live.acquire()
        startup_s = time.perf_counter() - started
        gc.collect()
        rss_live = rss_bytes()
        go.set()
        await trio.sleep(WARMUP_S)
        counters.measuring = True
        window_start = trio.current_time()
        await trio.sleep(seconds)
        counters.measuring = False
        window = trio.current_time() - window_start
        live_rooms = len(registry.live)
        nursery.cancel_scope.cancel()
    latencies = sorted(counters.latencies)
    return {
        "games": games,
        "think_ms": think_s * 1000,
        "live_rooms": live_rooms,
        "seconds": window,
        "startup_s": startup_s,
        "turns": counters.turns,
        "events": counters.events,
        "games_finished": counters.games_finished,
        "turns_per_s": counters.turns / window,
        "events_per_s": counters.events / window,
        "latency_p50_ms": percentile(latencies, 50) * 1000,
        "latency_p99_ms": percentile(latencies, 99) * 1000,
        "latency_max_ms": latencies[-1] * 1000 if latencies else float("nan"),
        "rss_per_room_kib": (rss_live - rss_before) / games / 1024,
        "rss_total_mib": rss_live / 2**20,
    }


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    index = min(len(values) - 1, max(0, round(q / 100 * len(values) + 0.5) - 1))
    return values[index]


def run_child(games: int, seconds: float, think_ms: float) -> dict:
    command = [sys.executable, __file__, "--child", str(games), "--seconds", str(seconds), "--think-ms", str(think_ms)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise SystemExit(f"N={games} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: list[dict], seconds: float, load_before: float) -> str:
    lines = [
        "# Rooms benchmark: many live games in one process",
        "",
        f"Machine: {os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}; 1-minute load average before the run {load_before:.2f}, "
        f"after it {os.getloadavg()[0]:.2f} (other work shares this machine).",
        "",
        f"Each row is a fresh process: N concurrent games through the Registry/Room API (no sockets, no "
        f"store), Unlimited, seed window 0, two scripted seats and one spectator subscriber per game; a game "
        f"is resigned after {TURNS_PER_GAME} turns and replaced. Window {seconds:g} s after a {WARMUP_S:g} s "
        f"warm-up, real clock. Think 0: every roll is answered at once, so the process runs flat out and a "
        f"turn mostly waits for the CPU behind the other N-1 games (latency ~ N / turns per second). A paced "
        f"row (seats think a random 0..2x mean before each turn) keeps the load under capacity, so its "
        f"latency is the room's own cost of a turn and its broadcast.",
        "",
        "Latency: SubmitTurn intent queued -> the spectator subscriber reads the TurnPlayed. "
        "Memory: RSS delta (not tracemalloc) once all N games are live and have rolled, before play starts, "
        "divided by N; it includes each game's 3 subscribers and 3 tasks.",
        "",
        "| games (N) | think (mean) | turns/s | events/s | latency p50 | latency p99 | latency max "
        "| RSS per room | RSS total | games replaced in window |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['games']:,} | {r['think_ms']:,.0f} ms | {r['turns_per_s']:,.0f} | {r['events_per_s']:,.0f} "
            f"| {fmt_ms(r['latency_p50_ms'])} | {fmt_ms(r['latency_p99_ms'])} | {fmt_ms(r['latency_max_ms'])} "
            f"| {r['rss_per_room_kib']:.1f} KiB | {r['rss_total_mib']:.0f} MiB | {r['games_finished']:,} |"
        )
    lines.append("")
    return "\n".join(lines)


def fmt_ms(value: float) -> str:
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.2f} ms"


def parse_runs(games: str, think_ms: float, paced: str) -> list[tuple[int, float]]:
    runs = [(int(n), think_ms) for n in games.split(",") if n.strip()]
    for item in filter(None, (part.strip() for part in paced.split(","))):
        n, _, think = item.partition(":")
        runs.append((int(n), float(think)))
    return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(map(str, DEFAULT_GAMES)), help="comma-separated N values")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measurement window per row")
    parser.add_argument("--think-ms", type=float, default=0.0, help="mean think time for the --games rows")
    parser.add_argument(
        "--paced", default=DEFAULT_PACED, help="extra rows as N:think_ms, comma-separated ('' for none)"
    )
    parser.add_argument("--write", action="store_true", help="write bench/results/rooms.md even for a custom run")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(trio.run(measure, args.child, args.seconds, args.think_ms / 1000)))
        return
    runs = parse_runs(args.games, args.think_ms, args.paced)
    load_before = os.getloadavg()[0]
    results = []
    for games, think_ms in runs:
        result = run_child(games, args.seconds, think_ms)
        print(
            f"N={games:>5} think {think_ms:g} ms: {result['turns_per_s']:,.0f} turns/s, "
            f"p50 {result['latency_p50_ms']:.2f} ms, p99 {result['latency_p99_ms']:.2f} ms, "
            f"{result['rss_per_room_kib']:.1f} KiB/room",
            file=sys.stderr,
            flush=True,
        )
        results.append(result)
    text = table(results, args.seconds, load_before)
    print(text)
    default_run = runs == parse_runs(",".join(map(str, DEFAULT_GAMES)), 0.0, DEFAULT_PACED)
    if (default_run and args.seconds == DEFAULT_SECONDS) or args.write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text)
        print(f"written to {RESULTS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
