"""Where a roll's legal-move tree is computed: in a small pool of worker processes, so the
serving process's core is left to the sockets, or in this process.

The tree is pure (rules/) and the largest single CPU cost of a turn (~0.11 ms p50, ~0.46 ms
p99 on the rules corpus: docs/rules.md).
A room asks the pool and awaits the answer. Each worker takes every tree asked for since
it last started, as one batch: a busy serving process wakes up to a finished batch rather
than to one tree, so however slowly it gets round to collecting results, the workers still
take (nearly) all the trees. Any failure of the pool (a worker that died, one that cannot
start, or a batch that takes longer than its timeout) is logged and the batch computed
here instead: a game never waits on a broken pool.
"""

from __future__ import annotations

import logging
import math

import attrs
import orjson
import trio
import trio_parallel

from playsite.histogram import Histogram
from playsite.rules import START_DFEN, Position, legal_tree, legal_tree_counted, parse_dfen
from playsite.wire import LegalMoves, MoveTree

log = logging.getLogger(__name__)

INLINE_TREE_MAX_BYTES = 48 * 1024
"""Above this many bytes of compact JSON, inline copies of the tree are null (GET .../moves has
it). Under it, an ndjson line holding the tree stays under the 64 KiB a line reader often
allows (asyncio's default), and a frame far under any WebSocket client's limit. 3.4% of the
rules corpus's rolls are over it. The cap was 2,000 complete turns before (25 KB at most):
14.8% of the rolls were over that, and each cost its player a round trip before moving and the
server an HTTP request, more than the frame would have (docs/performance.md)."""
LEAF_JSON_BYTES_MIN = len('"a1b2":{}')
"""Each complete turn ends in one leaf entry of the tree's JSON, at least this long: a tree of
more than INLINE_TREE_MAX_BYTES // LEAF_JSON_BYTES_MIN turns cannot be inlined, and is not
encoded to find that out (a rare roll has hundreds of thousands of turns)."""
BATCH_MAX = 64
"""Trees one worker takes at once."""
BATCH_TIMEOUT_S = 2.0
"""A batch not done in this long plus BATCH_TIMEOUT_PER_TREE_S per tree (the slowest known
tree takes ~6 ms) has its worker killed, and is computed in the serving process."""
BATCH_TIMEOUT_PER_TREE_S = 0.05
FAILURES_TO_GIVE_UP = 5
"""Failed batches in a row after which the pool is given up until the server restarts."""
TAKE_BACK_AFTER_S = 0.02
"""A tree that no worker has taken after this long is computed in the serving process."""


@attrs.frozen
class PackedTree:
    """What a room keeps of a roll's legal-move tree: its count of complete turns, its L and
    its JSON, never the tree as objects. A tree is hundreds of dicts, which the cyclic
    garbage collector would walk at every collection for as long as the roll is pending; its
    JSON goes into events and states as it is, and a turn is checked by playing it out against
    L (`rules.play_turn`), which needs no tree. The rare reader of the tree itself (a house
    bot, GET .../moves of a tree too big to inline) has it from the JSON, or computed again
    from the position."""

    turns: int
    """Complete turns (root-to-leaf paths); 0 for a roll without legal moves."""
    longest: int
    """L: the most dice a turn of this roll can spend (0 for a forced pass)."""
    inline_json: bytes | None
    """The tree as compact JSON, or None above INLINE_TREE_MAX_BYTES."""

    def tree(self, position: Position) -> MoveTree:
        """The tree as objects (a new copy at each call); `position` is the one it was packed
        from, with its dice."""
        if self.turns == 0:
            return {}
        if self.inline_json is not None:
            tree: MoveTree = orjson.loads(self.inline_json)
            return tree
        return legal_tree(position)

    def inline(self) -> LegalMoves | None:
        """What events and states carry as `legalMoves`: `{}` for a forced pass, the JSON
        inserted as is, or None when the tree is too big to inline."""
        if self.turns == 0:
            return {}
        return None if self.inline_json is None else orjson.Fragment(self.inline_json)

    def json(self, position: Position) -> bytes:
        """The whole tree as compact JSON, however big (`position` as for `tree`)."""
        return self.inline_json if self.inline_json is not None else orjson.dumps(self.tree(position))


def pack(position: Position) -> PackedTree:
    """The legal-move tree of `position` (dice pending), packed."""
    tree, turns, longest = legal_tree_counted(position)
    inline_json = None
    if turns * LEAF_JSON_BYTES_MIN <= INLINE_TREE_MAX_BYTES:
        data = orjson.dumps(tree)
        inline_json = data if len(data) <= INLINE_TREE_MAX_BYTES else None
    return PackedTree(turns, longest, inline_json)


def pack_all(positions: list[Position]) -> list[PackedTree]:
    """A worker's job: one batch."""
    return [pack(position) for position in positions]


class Trees:
    """Trees computed in the serving process: the fallback, and what tests on a mock clock use
    (a worker's real time would let an autojumping clock race ahead)."""

    def __init__(self) -> None:
        self.waits = Histogram()
        """A room asking for a roll's tree -> the tree, wherever it was computed: what every
        roll adds to the verdict of the turn before it (GET /metrics)."""
        self.computed_here = 0
        """Trees computed in the serving process."""

    async def compute(self, position: Position) -> PackedTree:
        started = trio.current_time()
        try:
            return await self._compute(position)
        finally:
            self.waits.observe(trio.current_time() - started)

    async def _compute(self, position: Position) -> PackedTree:
        self.computed_here += 1
        return pack(position)

    def statistics(self) -> dict[str, int]:
        return {
            "workers": 0, "busy": 0, "queued": 0, "by_workers": 0, "here": self.computed_here, "taken_back": 0,
            "fallbacks": 0,
        }


@attrs.define(eq=False)
class _Asked:
    position: Position
    answered: trio.Event = attrs.field(factory=trio.Event)
    answer: PackedTree | None = None
    taken: bool = False
    """A worker's batch holds it, or the asker took it back: nobody else computes it."""


class TreePool(Trees):
    """Trees computed by `workers` worker processes, started (and warmed) by `run`.

    A tree still waiting for a worker after `take_back_after_s`, while every worker is busy,
    is taken back and computed here. A batch's trees are answered together when the whole
    batch is done, so a late batch (its worker waiting for a CPU, or a big tree in it) makes
    the next one bigger and later still; taking back what waits keeps the queue short, for a
    little of the serving process's CPU while it lasts."""

    def __init__(self, workers: int, *, take_back_after_s: float = TAKE_BACK_AFTER_S) -> None:
        assert workers > 0
        super().__init__()
        self.workers = workers
        self.take_back_after_s = take_back_after_s
        self._ask, self._asked = trio.open_memory_channel(math.inf)
        self._unlimited = trio.CapacityLimiter(math.inf)
        """trio-parallel's own limiter, out of the way: `workers` dispatchers bound the workers."""
        self.enabled = True
        """False once the pool is given up: every tree is computed here."""
        self.warm = trio.Event()
        """Set once every worker has started (or failed to)."""
        self.busy = 0
        self.batches = 0
        """Batches the workers delivered."""
        self.computed_by_workers = 0
        # computed_here: the pool given up, a batch it failed to deliver, or taken back.
        self.taken_back = 0
        """Trees taken back from the queue after waiting `take_back_after_s` (in computed_here)."""
        self.fallbacks = 0
        """Batches the pool failed to deliver, computed in the serving process instead."""
        self._failed_in_a_row = 0

    async def run(self, *, task_status: trio.TaskStatus[TreePool] = trio.TASK_STATUS_IGNORED) -> None:
        """Start the workers and dispatch batches to them until cancelled. Boot does not wait
        for the workers: trees asked for before they are up are batched for them all the same."""
        async with trio_parallel.open_worker_context(idle_timeout=math.inf) as context:
            async with trio.open_nursery() as nursery:
                warming = [trio.Event() for _ in range(self.workers)]
                for warmed in warming:
                    nursery.start_soon(self._dispatch, context, warmed)
                task_status.started(self)
                for warmed in warming:
                    await warmed.wait()
                self.warm.set()

    async def _compute(self, position: Position) -> PackedTree:
        if not self.enabled:
            self.computed_here += 1
            return pack(position)
        asked = _Asked(position)
        self._ask.send_nowait(asked)
        with trio.move_on_after(self.take_back_after_s):
            await asked.answered.wait()
        # Taken back only while every worker is busy: a dispatcher that is free but has not
        # run yet means this process is the one behind, and computing here would slow it more.
        if not asked.taken and self.busy >= self.workers:
            asked.taken = True
            self.taken_back += 1
            self.computed_here += 1
            return pack(position)
        await asked.answered.wait()
        assert asked.answer is not None
        return asked.answer

    async def _dispatch(self, context: trio_parallel.WorkerContext, warmed: trio.Event) -> None:
        """One worker's loop: take what is asked, have the worker compute it, answer."""
        try:
            await context.run_sync(_warm_up, limiter=self._unlimited)
        except Exception:
            log.exception("a tree worker failed to start; it is started again for the first batch")
        warmed.set()
        async for first in self._asked:
            batch = [first]
            while len(batch) < BATCH_MAX:
                try:
                    batch.append(self._asked.receive_nowait())
                except trio.WouldBlock:
                    break
            batch = [asked for asked in batch if not asked.taken]  # the rest were taken back
            if not batch:
                continue
            for asked in batch:
                asked.taken = True
            answers = await self._run_batch(context, batch)
            for asked, answer in zip(batch, answers):
                asked.answer = answer
                asked.answered.set()

    async def _run_batch(self, context: trio_parallel.WorkerContext, batch: list[_Asked]) -> list[PackedTree]:
        positions = [asked.position for asked in batch]
        if self.enabled:
            self.busy += 1
            try:
                with trio.fail_after(BATCH_TIMEOUT_S + BATCH_TIMEOUT_PER_TREE_S * len(batch)):
                    answers: list[PackedTree] = await context.run_sync(
                        pack_all, positions, kill_on_cancel=True, limiter=self._unlimited
                    )
                self.computed_by_workers += len(batch)
                self.batches += 1
                self._failed_in_a_row = 0
                return answers
            except Exception as error:  # a dead or stuck worker, or one that cannot start
                self.fallbacks += 1
                self._failed_in_a_row += 1
                log.warning("tree worker failed (%s); computing its %d tree(s) in the serving process",
                            type(error).__name__, len(batch))
                if self._failed_in_a_row >= FAILURES_TO_GIVE_UP and self.enabled:
                    self.enabled = False
                    log.error("tree workers failed %d times in a row: trees are computed in the serving process"
                              " from now on", self._failed_in_a_row)
            finally:
                self.busy -= 1
        self.computed_here += len(batch)
        return pack_all(positions)

    def statistics(self) -> dict[str, int]:
        return {
            "workers": self.workers if self.enabled else 0,
            "busy": self.busy,
            "queued": self._asked.statistics().current_buffer_used,
            "by_workers": self.computed_by_workers,
            "here": self.computed_here,
            "taken_back": self.taken_back,
            "fallbacks": self.fallbacks,
        }


def _warm_up() -> int:
    """A first tree: the worker imports the rules before the first real batch."""
    return len(legal_tree(parse_dfen(START_DFEN).with_dice((1, 2, 3))))
