"""The served strength report: read from the store's rated results, computed off the event
loop, kept until the next computation (docs/bots/strength.md).

Requests only read the kept report; nothing is computed for a request. The boot starts
`run`, which looks every `CHECK_S` and recomputes when a rated game ended since the last
computation, or when the report is older than `MAX_AGE_S` (a registration changed, results
came from elsewhere), or when there is none yet: at most one computation per `CHECK_S`,
whatever the traffic. Until the first computation has finished the routes answer 503. A
failed read keeps the last report and tries again at the next check.

The results are counted where they live: PostgreSQL groups `game_results` by who played and
how it ended (a few rows per matchup, however many games); the memory store's results are
counted here. Who is a registered bot is the bot directory's word, as for the catalog.
"""

from __future__ import annotations

import logging
from collections import Counter

import trio

from playsite.bots.directory import BotDirectory
from playsite.periodic import run_every
from playsite.principals import Kind, kind_of
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.store.base import Store
from playsite.store.database import Database
from playsite.store.memory import MemoryStore
from playsite.strength.queries import read_rated_counts
from playsite.strength.report import ResultRow, StrengthReport, build_report, encode_report
from playsite.strength.stats import DEFAULT_SPRT, SprtParameters

log = logging.getLogger("playsite.strength")

CHECK_S = 30.0
"""How often the loop looks whether the report is due: the bound on how often it is computed."""
MAX_AGE_S = 600.0
"""A report is recomputed at least this often, even when no rated game ended meanwhile."""


def _side(principal: str | None) -> str | None:
    return principal if kind_of(principal) is Kind.BOT else None


class StrengthReports:
    """The report this process serves; one per boot."""

    def __init__(
        self, store: Store, database: Database | None, bots: BotDirectory, *, parameters: SprtParameters = DEFAULT_SPRT
    ):
        self.store = store
        self.database = database
        """Where the results are counted, with PostgreSQL; None: counted here from the memory store's."""
        self.bots = bots
        self.parameters = parameters
        self.report: StrengthReport | None = None
        self.body: dict | None = None
        """`report` encoded once, as `GET /strength` answers it."""
        self.computed_at: float | None = None
        """trio time of the computation that made `report`."""
        self.computations = 0
        self._stale = True
        self._computing = trio.Lock()
        """One computation at a time: a refresh that starts while another runs waits for it and
        then reads the store afresh, so the report kept is never older than one already read."""

    async def run(
        self, registry: Registry, *, check_s: float = CHECK_S, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Recompute whenever due (see the module's docstring) until cancelled."""
        registry.completion_hooks.append(self.game_ended)
        await run_every(check_s, self.refresh_if_due, name="strength report", task_status=task_status)

    async def game_ended(self, room: Room) -> None:
        """A registry completion hook: a rated game that ended makes the report stale."""
        if room.setup.rated:
            self._stale = True

    @property
    def due(self) -> bool:
        return self._stale or self.computed_at is None or trio.current_time() - self.computed_at >= MAX_AGE_S

    async def refresh_if_due(self) -> bool:
        if not self.due:
            return False
        await self.refresh()
        return True

    async def refresh(self) -> StrengthReport:
        """Compute the report now from what the store holds, and keep it."""
        async with self._computing:
            self._stale = False  # a game ending from here on is read next time
            try:
                rows = await self._read_rows()
            except BaseException:
                self._stale = True
                raise
            names = {account.principal: account.public_name for account in self.bots.registered()}
            report, body = await trio.to_thread.run_sync(self._compute, rows, names, abandon_on_cancel=True)
            self.report, self.body = report, body
            self.computed_at = trio.current_time()
            self.computations += 1
        log.debug("strength report: %d matchups, %d bots, %d games", len(report.pairwise), len(report.ranking), report.singles)
        return report

    def _compute(self, rows: list[ResultRow], names: dict[str, str]) -> tuple[StrengthReport, dict]:
        report = build_report(rows, names, self.parameters)
        return report, encode_report(report)

    async def _read_rows(self) -> list[ResultRow]:
        if self.database is not None:
            return await self.database.run(read_rated_counts)
        if not isinstance(self.store, MemoryStore):  # a store of a test's own, keeping no results
            return []
        counted = Counter(
            (_side(row.white_principal), _side(row.black_principal), row.result)
            for row in self.store.results.values()
            if row.rated
        )
        return [(white, black, result, games) for (white, black, result), games in counted.items()]
