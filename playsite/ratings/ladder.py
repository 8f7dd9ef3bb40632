"""The ladder scheduler: server-chosen, rated games between registered bots on the ladder.

Every `period_s` one round runs:

1. candidates: registered bots with `on_ladder`, each with its free ladder slots —
   `ladder_allowance` minus its current *general* occupancy, and never more than its free
   total capacity (a bot already busy with challenges or catalog games gets fewer or none);
2. `choose_pairings` picks disjoint pairs (each bot at most one new ladder game per round);
3. each pair is admitted and started with `create_game_with_bots` (origin "ladder", rated,
   purpose general, `LADDER_CONTROL`). A refused admission (the bot got busy meanwhile)
   just skips that pair; any other failure is logged and skipped — a round never kills the
   scheduler, the next round tries again.

Pairing policy (docs/ladder.md): the bot that has waited longest since its last ladder game
(or since the scheduler first saw it) is paired first, with the next-longest waiter; equal
waits are broken by rating proximity, then at random. A paired bot's wait restarts, an
unpaired one keeps its place, so every eligible bot reaches the head of the queue within a
few rounds: no starvation, also with odd counts (the odd one out is first next round).
White goes to the bot that has had fewer ladder Whites than Blacks; equal: random.
The state is process-local and starts empty at boot.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Iterable, Sequence

import attrs
import trio

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.bots.games import BotGames
from playsite.periodic import run_every
from playsite.ratings.book import RatingBook
from playsite.rooms.admission import Admission, AdmissionRefused, Purpose
from playsite.wire import Fischer

log = logging.getLogger("playsite.ladder")

LADDER_ORIGIN = "ladder"
LADDER_CONTROL = Fischer(180, 2)
"""Every ladder game: 3 minutes plus 2 seconds a turn, one control so ratings compare."""
LADDER_PERIOD_S = 10.0
"""Seconds between rounds: how soon a freed slot is filled again."""


@attrs.frozen
class Candidate:
    """A bot as the pairing sees it."""

    id: str
    free: int
    """Ladder games it may start now (0: not paired this round)."""
    rating: float = 1500.0
    waiting_since: float = -math.inf
    """When its last ladder game started (or it was first seen); smaller waited longer."""
    colour_balance: int = 0
    """Ladder Whites minus Blacks so far; the lower one gets White."""


def choose_pairings(
    candidates: Iterable[Candidate], *, rng: random.Random | None = None
) -> list[tuple[Candidate, Candidate]]:
    """Disjoint (white, black) pairs among the candidates with a free slot.

    Never a bot with itself (ids are deduplicated, the first entry wins), never a bot
    without a free slot, each bot at most once. Longest wait first; see the module doc.
    """
    rng = rng or random.Random()
    seen: dict[str, Candidate] = {}
    for candidate in candidates:
        if candidate.free > 0 and candidate.id not in seen:
            seen[candidate.id] = candidate
    shuffled = list(seen.values())
    rng.shuffle(shuffled)  # the final, random tie-break (sort is stable)
    queue = sorted(shuffled, key=lambda c: c.waiting_since)
    pairs = []
    while len(queue) >= 2:
        first = queue.pop(0)
        longest = queue[0].waiting_since
        tied = [c for c in queue if c.waiting_since == longest]
        partner = min(tied, key=lambda c: abs(c.rating - first.rating))
        queue.remove(partner)
        pairs.append(_colours(first, partner, rng))
    return pairs


def _colours(a: Candidate, b: Candidate, rng: random.Random) -> tuple[Candidate, Candidate]:
    if a.colour_balance != b.colour_balance:
        return (a, b) if a.colour_balance < b.colour_balance else (b, a)
    return (a, b) if rng.random() < 0.5 else (b, a)


def free_ladder_slots(account: BotAccount, admission: Admission) -> int:
    """Ladder allowance minus general occupancy, capped by the free total capacity."""
    occupancy = admission.occupancy(account.principal)
    by_allowance = account.ladder_allowance - occupancy.get(Purpose.GENERAL, 0)
    by_capacity = account.max_concurrent_games - sum(occupancy.values())
    return max(0, min(by_allowance, by_capacity))


class Ladder:
    """The scheduler's memory between rounds: waits and colour balances per bot."""

    def __init__(self, games: BotGames, bots: BotDirectory, book: RatingBook, *, rng: random.Random | None = None):
        self.games = games
        self.bots = bots
        self.book = book
        self.rng = rng or random.Random()
        self.waiting_since: dict[str, float] = {}
        self.colour_balance: dict[str, int] = {}
        self.started = 0
        """Ladder games started by this process (for tests and logs)."""

    def candidates(self) -> list[Candidate]:
        now = trio.current_time()
        admission = self.games.registry.admission
        result = []
        for account in self.bots.registered():
            if not account.on_ladder:
                continue
            result.append(
                Candidate(
                    id=account.id,
                    free=free_ladder_slots(account, admission),
                    rating=self.book.rating_of(account.id).rating,
                    waiting_since=self.waiting_since.setdefault(account.id, now),
                    colour_balance=self.colour_balance.get(account.id, 0),
                )
            )
        on_ladder = {c.id for c in result}
        for gone in [bot_id for bot_id in self.waiting_since if bot_id not in on_ladder]:
            del self.waiting_since[gone]  # leaving the ladder forfeits the place in the queue
        return result

    async def round(self) -> int:
        """Pair and start games once; returns how many started."""
        await self.book.refresh()
        started = 0
        for white, black in choose_pairings(self.candidates(), rng=self.rng):
            if await self._start(white, black):
                started += 1
        return started

    async def _start(self, white: Candidate, black: Candidate) -> bool:
        bots = self.bots
        first, second = bots.get(white.id), bots.get(black.id)
        if first is None or second is None or not all(a.registered and a.on_ladder for a in (first, second)):
            return False  # left the ladder (or vanished) while earlier pairs were started
        try:
            await self.games.start(
                white=first, black=second, time_control=LADDER_CONTROL, rated=True, origin=LADDER_ORIGIN
            )
        except AdmissionRefused as refused:
            log.debug("ladder: %s vs %s skipped: %s", white.id, black.id, refused)
            return False
        except Exception:
            log.exception("ladder: starting %s vs %s failed; skipped this round", white.id, black.id)
            return False
        now = trio.current_time()
        for bot_id, delta in ((white.id, 1), (black.id, -1)):
            self.waiting_since[bot_id] = now
            self.colour_balance[bot_id] = self.colour_balance.get(bot_id, 0) + delta
        self.started += 1
        return True


async def run_ladder(
    ladder: Ladder, *, period_s: float = LADDER_PERIOD_S, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """The supervised scheduler: a round now and every `period_s`, until cancelled."""
    await run_every(period_s, ladder.round, name="ladder", task_status=task_status)


def pair_ids(pairs: Sequence[tuple[Candidate, Candidate]]) -> list[tuple[str, str]]:
    return [(white.id, black.id) for white, black in pairs]
