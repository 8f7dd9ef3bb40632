"""Admin authority: which `PLAY_ADMINS` allow-list is in force (service.md, "Admin authority").

Each instance serving `/admin/...` writes the digest of its parsed allow-list (its
*generation*) every `HEARTBEAT_S`; a generation is live for `LIVE_S` after its last beat, on
the database clock. An admin request proceeds only when exactly one generation is live and it
is this instance's, with the caller in its list. During a deploy that changes the list, the old
process's beats keep its generation live for up to `LIVE_S` after it stopped: until then
two generations are live and every admin request is refused (403 `admin_required`), failing
closed. A process whose own beats stop reaching the database loses its authority the same way.

Once an instance's generation is the only live one, it scrubs pending webhook setups that
admins staged under any other generation (`WebhookManagement.scrub_foreign_admin_setups`);
nothing else may.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable

import psycopg
import trio

from playsite.store.database import Database

log = logging.getLogger("playsite.accounts")

HEARTBEAT_S = 5.0
LIVE_S = 20
"""service.md Limits: every 5 s; live for 20 s."""
FORGET_AFTER = "1 hour"
"""Rows of instances gone this long are deleted by the next beat."""


def generation_digest(admins: Iterable[str | uuid.UUID]) -> str:
    """The allow-list's generation: a digest of its sorted account ids (the ids themselves are
    not secret, but the table needs only to compare lists)."""
    text = "playsite-admins-v1\n" + "\n".join(sorted(str(uuid.UUID(str(a))) for a in admins))
    return hashlib.sha256(text.encode()).hexdigest()


def live_generations(conn: psycopg.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT DISTINCT digest FROM admin_generations WHERE beat_at > clock_timestamp() - make_interval(secs => %s)"
        " ORDER BY 1",
        (LIVE_S,),
    ).fetchall()
    return [row[0] for row in rows]


class AdminAuthority:
    """This instance's allow-list and its heartbeat."""

    def __init__(self, database: Database, admins: Iterable[str | uuid.UUID], *, instance_id: uuid.UUID | None = None):
        self.database = database
        self.admins = frozenset(str(uuid.UUID(str(a))) for a in admins)
        self.digest = generation_digest(self.admins)
        self.instance_id = instance_id or uuid.uuid4()
        self.on_sole: list[Callable[[], Awaitable[object]]] = []
        """Async callables run after a beat that found this generation the only live one."""
        self.withdrawn = False
        """The row is taken away (`withdraw`): no beat writes it again."""
        self._writing = trio.Lock()  # a beat and the withdrawal, one at a time: no beat after it

    def is_admin(self, account_id: str | uuid.UUID) -> bool:
        """In this instance's list (authority also needs `sole`)."""
        return str(account_id) in self.admins

    def sole(self, conn: psycopg.Connection) -> bool:
        """Exactly one generation is live, and it is ours."""
        return live_generations(conn) == [self.digest]

    def admits(self, conn: psycopg.Connection, account_id: str | uuid.UUID) -> bool:
        return self.is_admin(account_id) and self.sole(conn)

    def beat(self, conn: psycopg.Connection) -> bool:
        """Write our generation's beat; True when ours is then the only live generation."""
        conn.execute(
            """INSERT INTO admin_generations (instance_id, digest, beat_at) VALUES (%s, %s, now())
               ON CONFLICT (instance_id) DO UPDATE SET digest = EXCLUDED.digest, beat_at = now()""",
            (self.instance_id, self.digest),
        )
        conn.execute("DELETE FROM admin_generations WHERE beat_at < now() - %s::interval", (FORGET_AFTER,))
        return self.sole(conn)

    async def run(self, *, task_status: trio.TaskStatus[AdminAuthority] = trio.TASK_STATUS_IGNORED) -> None:
        """Beat every HEARTBEAT_S until withdrawn or cancelled (the first beat before
        `started`). A clean stop withdraws the row while the database is still open (boot
        registers `withdraw` with the server's stop, stopping.py); cancelled without that,
        the row is taken away here if the database still answers."""
        try:
            await self._beat_once()
            task_status.started(self)
            while not self.withdrawn:
                await trio.sleep(HEARTBEAT_S)
                await self._beat_once()
        finally:
            if not self.withdrawn:
                with trio.CancelScope(shield=True), trio.move_on_after(2):
                    try:
                        await self.withdraw()
                    except Exception as error:  # the row then simply ages out
                        log.info("admin heartbeat: row not removed at stop: %s", type(error).__name__)

    async def withdraw(self) -> None:
        """Take this instance's row away, for good: a clean stop does not hold its generation
        live, and a restart with another list is not refused for LIVE_S."""
        async with self._writing:
            self.withdrawn = True
            await self.database.run(
                lambda conn: conn.execute("DELETE FROM admin_generations WHERE instance_id = %s", (self.instance_id,))
            )

    async def _beat_once(self) -> None:
        async with self._writing:
            if self.withdrawn:
                return
            try:
                sole = await self.database.run(self.beat)
            except Exception as error:  # a missed beat fails closed by itself (LIVE_S)
                log.warning("admin heartbeat failed: %s", type(error).__name__)
                return
        if sole:
            for work in list(self.on_sole):
                try:
                    await work()
                except Exception as error:
                    log.warning("admin heartbeat: follow-up failed: %s", type(error).__name__)
