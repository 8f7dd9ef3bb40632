"""The showcase table's state machine and its winning claim sequence.

Phases: `unavailable` -> (reconcile) -> `open` -> (the first claim commits) -> `live` ->
(the game ends) -> `finishing` -> (released) -> `open`. The phase is never remembered across
a restart: `run` recomputes it from durable records (the `showcase_table` row, the resumed
rooms, the archive) before the boot goes on to open the port.

One trio lock serialises claims and reconciliations in this process (service.md: admission
state lives in the one serving process), so exactly one claim finds the table `open`; the
claim's transaction is fenced in the database as well (the colour it seated, no current
game), so a table that moved on meanwhile can never get a second game.

Reconciliation, in order:
0. the colour is advanced past the newest showcase game if its durable creation did not
   advance it (its claim transaction failed: `queries.settle_colour`);
1. no PostgreSQL store -> `unavailable` (maintenance);
2. several active showcase rooms -> `unavailable`, logged as an operator alert (split brain);
3. one active showcase room -> adopted, `live` (the colour is advanced if its claim never
   committed);
4. a showcase room whose ending is still being written -> `finishing`;
5. a pointer at a game that is no longer live -> cleared once its archive row exists (a crash
   between the terminal commit and the clear); a pointer at a game still active in the
   database but not resumed -> `unavailable`;
6. the featured bot's readiness probe (registered, webhook push on, the unsigned echo
   answered within 5 s) -> `open`, else `unavailable` (bot_unavailable).
"""

from __future__ import annotations

import enum
import logging
import math
import uuid
from collections.abc import Callable
from typing import TypeVar

import attrs
import psycopg
import trio

from playsite import principals
from playsite.bots.directory import BotDirectory
from playsite.games.creation import human_seat
from playsite.refusals import Refused
from playsite.rooms.admission import AdmissionRefused, Purpose
from playsite.rooms.intents import Abort, PlayerCommand
from playsite.rooms.model import REQUIRED, RoomSetup, SeatSetup
from playsite.rooms.registry import CreationFailed, Registry
from playsite.rooms.room import Room
from playsite.showcase import queries
from playsite.store.database import Database, DatabaseUnavailable
from playsite.tokens import new_token
from playsite.webhooks.registrations import Webhooks
from playsite.webhooks.sealing import Sealer, SecretUnreadable, open_stored, seal_stored
from playsite.wire import BLACK, WHITE, Fischer, SubmitSeed

log = logging.getLogger("playsite.showcase")

READINESS_PERIOD_S = 15.0
"""While not live, the table reconciles this often: a dead bot closes it, a recovered one reopens it."""
PROBE_TIMEOUT_S = 5.0
CLAIM_GRACE_S = 30.0
"""The winner must open the game socket within this, or is resigned as a dropped connection is."""
STORE_WAIT_S = 3.0
"""How long a claim or a reconciliation waits on the database before counting it unavailable."""
SEED_RECORDED_S = 1.0
"""How long a winner's answer waits for the room to record its entropy (a loaded room may take a
moment; the seed still counts if it comes later, before the first roll)."""
TIME_CONTROL = Fischer(300, 3)
ORIGIN = "showcase"
T = TypeVar("T")
TOKEN_COLUMN = "showcase_claims.seat_token"
"""What a winner's sealed seat token is bound to, besides its claim (actor and key)."""


class TablePhase(enum.Enum):
    UNAVAILABLE = "unavailable"
    OPEN = "open"
    LIVE = "live"
    FINISHING = "finishing"


@attrs.frozen
class Claimed:
    game_id: str
    seat: str
    seat_token: str


@attrs.frozen
class Spectating:
    reason: str  # already_claimed | game_ended
    game_id: str


class ShowcaseUnavailable(Refused):
    """The table cannot take claims now; `why`: what keeps it closed (a reason or a failure)."""

    def __init__(self, why: str):
        super().__init__("showcase_unavailable", "the showcase table cannot take claims now")
        self.why = why


def idempotency_conflict() -> Refused:
    """The same Idempotency-Key came back with another fingerprint."""
    return Refused("idempotency_conflict", "this Idempotency-Key was used for another claim")


class ShowcaseTable:
    def __init__(
        self, *, bot_id: str, database: Database | None, registry: Registry, bots: BotDirectory, webhooks: Webhooks,
        seed_window_s: float, sealer: Sealer | None = None,
    ) -> None:
        self.sealer = sealer
        """Seals the winners' seat tokens at rest (PLAY_SECRETS_KEY); None: stored as they are."""
        self.bot_id = bot_id
        self.database = database
        """None without PostgreSQL: the table never opens."""
        self.registry = registry
        self.bots = bots
        self.webhooks = webhooks
        self.seed_window_s = seed_window_s
        self.phase = TablePhase.UNAVAILABLE
        self.reason = "maintenance"
        self.current_game: str | None = None
        self.next_color: str = WHITE
        self._lock = trio.Lock()
        self._wake = trio.Event()

    # ----- the readiness loop ---------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[ShowcaseTable] = trio.TASK_STATUS_IGNORED) -> None:
        """Reconcile once (before the port opens), then every READINESS_PERIOD_S while not
        live, and at once when a showcase game completes."""
        self.registry.completion_hooks.append(self.on_completion)
        await self.reconcile()
        task_status.started(self)
        while True:
            period = math.inf if self.phase is TablePhase.LIVE else READINESS_PERIOD_S
            with trio.move_on_after(period):
                await self._wake.wait()
            self._wake = trio.Event()
            if self.phase is not TablePhase.LIVE:
                await self.reconcile()

    async def on_completion(self, room: Room) -> None:
        """Registry completion hook: runs after the room's terminal write committed, the room
        was deregistered and its admission released. The loop then reconciles (clears the
        pointer once the archive row is there, probes the bot, reopens)."""
        if room.setup.origin != ORIGIN:
            return
        if room.game_id == self.current_game and self.phase is TablePhase.LIVE:
            self.phase = TablePhase.FINISHING
        self._wake.set()

    async def reconcile(self) -> TablePhase:
        async with self._lock:
            try:
                await self._reconcile()
            except (DatabaseUnavailable, trio.TooSlowError) as error:
                self._close("maintenance", f"the database is unavailable: {error}")
            except psycopg.Error as error:
                # Reachable, but it refused the read or the repair (a trigger, a read-only
                # standby, a constraint): the table stays closed and the loop tries again.
                self._close("maintenance", f"the database refused the reconciliation: {type(error).__name__}: {error}")
            return self.phase

    async def _reconcile(self) -> None:
        if self.database is None:
            self._close("maintenance", "the showcase needs the PostgreSQL store")
            return
        row = await self._run(lambda conn: queries.settle_colour(conn, self._bot_principal))
        self.next_color = row.next_human_color
        rooms = [room for room in list(self.registry.live.values()) if room.setup.origin == ORIGIN]
        active = [room for room in rooms if not room.ended]
        if len(active) > 1:
            log.error(
                "ALERT showcase: %d active showcase games (%s); the table stays closed until an operator resolves it",
                len(active), ", ".join(room.game_id for room in active),
            )
            self._close("maintenance", "several active showcase games")
            return
        if active:
            room = active[0]
            human = next(seat for seat, principal in room.principals.items() if principal != self._bot_principal)
            row = await self._run(lambda conn: queries.adopt(conn, room.game_id, human))
            self.next_color, self.current_game = row.next_human_color, room.game_id
            self._set(TablePhase.LIVE)
            return
        if rooms:  # ended, its terminal write still being retried
            self.current_game = rooms[0].game_id
            self._set(TablePhase.FINISHING)
            return
        if (pointed := row.current_game) is not None:
            status = await self._run(lambda conn: queries.game_status(conn, pointed))
            if status == "active":
                self._close("maintenance", f"showcase game {pointed} is active but was not resumed")
                return
            if not await self._run(lambda conn: queries.clear_pointer(conn, pointed)):
                self._close("maintenance", f"the pointer at showcase game {pointed} could not be cleared")
                return
            log.info("showcase: released game %s", pointed)
        self.current_game = None
        if not await self._probe():
            self._close("bot_unavailable", f"the featured bot {self.bot_id} is not ready")
            return
        self._set(TablePhase.OPEN)

    async def _probe(self) -> bool:
        bot = self.bots.get(self.bot_id)
        if bot is None or not bot.registered or not self.webhooks.enabled:
            return False
        with trio.move_on_after(PROBE_TIMEOUT_S):
            try:
                return await self.webhooks.probe(self.bot_id)
            except Exception as error:  # a probe that fails in any way is a bot that is not ready
                log.info("showcase: probe failed: %s", type(error).__name__)
                return False
        return False

    # ----- claims ---------------------------------------------------------------------------

    async def claim(self, *, actor: str, guest_id: object, entropy: str | None, key: uuid.UUID) -> Claimed | Spectating:
        """Claimed (the winner, or a replay while the game is on) or Spectating; raises
        `Refused` (`idempotency_conflict`) or ShowcaseUnavailable."""
        fingerprint = queries.fingerprint(actor, guest_id, entropy)
        if self.database is None:
            raise ShowcaseUnavailable("maintenance")  # no PostgreSQL: the table never opens
        async with self._lock:
            try:
                record = await self._run(lambda conn: queries.find_claim(conn, actor, key))
            except (DatabaseUnavailable, trio.TooSlowError, psycopg.Error):
                raise ShowcaseUnavailable("the database is unavailable") from None
            if record is not None:
                if record.fingerprint != fingerprint:
                    raise idempotency_conflict()
                room = self.registry.get(record.game_id)
                on = room is not None and not room.ended
                if record.seat is not None and record.seat_token is not None:
                    if on:
                        try:
                            token = open_stored(self.sealer, record.seat_token, f"{actor}:{key}", TOKEN_COLUMN)
                        except SecretUnreadable:
                            raise ShowcaseUnavailable("the claim's seat token cannot be opened") from None
                        return Claimed(record.game_id, record.seat, token)
                    return Spectating("game_ended", record.game_id)
                return Spectating(record.reason if on and record.reason else "game_ended", record.game_id)
            phase, _ = self.public_phase()
            if phase is TablePhase.LIVE and self.current_game:
                return await self._lose(actor, key, fingerprint, Spectating("already_claimed", self.current_game))
            if self.current_game and phase in (TablePhase.FINISHING, TablePhase.UNAVAILABLE):
                # Unavailable with a game: its writes are stalled, and if it has ended (its
                # terminal write is the stalled one) that is what a loser is told.
                current = self.registry.get(self.current_game)
                ended = phase is TablePhase.FINISHING or (current is not None and current.ended)
                reason = "game_ended" if ended else "already_claimed"
                return await self._lose(actor, key, fingerprint, Spectating(reason, self.current_game))
            if phase is not TablePhase.OPEN:
                raise ShowcaseUnavailable(self.reason)
            return await self._win(actor, entropy, key, fingerprint)

    async def _lose(self, actor: str, key: uuid.UUID, fingerprint: bytes, outcome: Spectating) -> Spectating:
        """A losing claim is recorded before it is answered, so its key replays it; when that
        cannot be written, it is not answered either (503: the retry gets a recorded outcome)."""
        try:
            await self._run(
                lambda conn: queries.record_losing_claim(
                    conn, actor=actor, key=key, print_=fingerprint, game_id=outcome.game_id, reason=outcome.reason
                )
            )
        except (DatabaseUnavailable, trio.TooSlowError, psycopg.Error):
            raise ShowcaseUnavailable("the database is unavailable") from None
        return outcome

    async def _win(self, actor: str, entropy: str | None, key: uuid.UUID, fingerprint: bytes) -> Claimed:
        bot = self.bots.get(self.bot_id)
        if bot is None or not bot.registered:
            self._close("bot_unavailable", f"the featured bot {self.bot_id} is not registered")
            raise ShowcaseUnavailable("bot_unavailable")
        seated = self.next_color
        token, human = human_seat(actor)
        machine = SeatSetup(token_hash=new_token()[1], face=bot.face, principal=bot.principal, always_present=True)
        setup = RoomSetup(
            game_id=str(uuid.uuid4()),
            time_control=TIME_CONTROL,
            white=human if seated == WHITE else machine,
            black=machine if seated == WHITE else human,
            rated=False,
            origin=ORIGIN,
            await_joins=False,
            claim_grace_s=CLAIM_GRACE_S,
            seed_window_s=self.seed_window_s,
            durability=REQUIRED,
            purpose=Purpose.SHOWCASE.value,
            participants=(bot.principal,),
        )
        try:
            room = await self.registry.create(setup, Purpose.SHOWCASE, setup.participants)
        except (AdmissionRefused, CreationFailed) as error:
            log.warning("showcase: claim refused, nothing changed: %s", error)
            raise ShowcaseUnavailable("the game could not be created") from None
        doubt: list[bool] = []
        try:
            await self._run(
                lambda conn: queries.commit_claim(
                    conn, seated=seated, game_id=room.game_id, actor=actor, key=key, print_=fingerprint,
                    token=seal_stored(self.sealer, token, f"{actor}:{key}", TOKEN_COLUMN),
                ),
                in_doubt=lambda: doubt.append(True),
            )
        except (DatabaseUnavailable, trio.TooSlowError, queries.ClaimFenceRefused, psycopg.Error) as error:
            if doubt and await self._landed(room.game_id):
                log.warning("showcase: the claim of game %s committed, its answer lost on the way", room.game_id)
                return await self._claimed(room, seated, token, entropy)
            # Any failure, an outage or not (a trigger, a read-only standby): the game just
            # created is aborted at once, so it frees the bot's seat, and the table fails closed.
            # The creation was durable, so the colour moves on all the same: in memory now, and
            # in the row at the next reconciliation (`queries.settle_colour`).
            log.error("showcase: the claim of game %s did not commit (%s); aborting it", room.game_id, error)
            self.next_color = BLACK if seated == WHITE else WHITE
            await room.send(Abort("showcase claim not committed"))
            self._close("maintenance", "a claim could not be committed")
            raise ShowcaseUnavailable("the claim could not be committed") from None
        return await self._claimed(room, seated, token, entropy)

    async def _landed(self, game_id: str) -> bool:
        """A claim's COMMIT was sent and its answer lost: whether it stands, read back before
        anything is decided. False also when the read fails: the game is then aborted, which is
        safe either way (a claim that stands then points at an ended game, and its retry is told so)."""
        log.warning("showcase: the claim of game %s may have committed (its answer was lost); reading back", game_id)
        try:
            return await self._run(lambda conn: queries.claim_landed(conn, game_id))
        except (DatabaseUnavailable, trio.TooSlowError, psycopg.Error) as error:
            log.error("showcase: whether the claim of game %s committed is unknown (%s)", game_id, error)
            return False

    async def _claimed(self, room: Room, seated: str, token: str, entropy: str | None) -> Claimed:
        """The claim of `room` is committed: the table is live, and the winner's entropy seeds its dice."""
        self.current_game = room.game_id
        self.next_color = BLACK if seated == WHITE else WHITE
        self._set(TablePhase.LIVE)
        log.info("showcase: game %s claimed, the human plays %s", room.game_id, seated)
        if entropy is not None:
            # The winner's entropy is its seat's dice seed, handed over once the claim is
            # committed. However long the commit took, it is in time: the first roll waits for
            # the winner's seat to be taken, and only the credential answered below can take it.
            # The answer waits for the room to record it (a moment; at most a second).
            seed = PlayerCommand(seated, SubmitSeed(entropy))
            if await room.send(seed):
                with trio.move_on_after(SEED_RECORDED_S):
                    await seed.reply.wait()
        return Claimed(room.game_id, seated, token)

    # ----- what the public sees -------------------------------------------------------------

    def public_phase(self) -> tuple[TablePhase, str]:
        """The phase as answered. A live game that has ended is `finishing` from that moment,
        while its terminal write is still being tried; a game whose writes are stalled (an
        intermediate or the terminal one) makes the table `unavailable` until they recover."""
        if self.phase in (TablePhase.LIVE, TablePhase.FINISHING) and self.current_game:
            room = self.registry.get(self.current_game)
            if room is not None and room.persistence_stalled:
                return TablePhase.UNAVAILABLE, "maintenance"
            if self.phase is TablePhase.LIVE and room is not None and room.ended:
                return TablePhase.FINISHING, ""
        return self.phase, self.reason

    # ----- helpers --------------------------------------------------------------------------

    @property
    def _bot_principal(self) -> str:
        return principals.bot(self.bot_id)

    async def _run(self, work: Callable[[psycopg.Connection], T], *, in_doubt: Callable[[], None] | None = None) -> T:
        """`work(conn)` in one transaction; trio.TooSlowError past STORE_WAIT_S (the attempt is
        then abandoned: it never commits, unless its COMMIT was already sent, and then
        `in_doubt` is called)."""
        if self.database is None:
            raise DatabaseUnavailable("the showcase needs the PostgreSQL store")
        with trio.fail_after(STORE_WAIT_S):
            return await self.database.run(work, in_doubt=in_doubt)

    def _set(self, phase: TablePhase) -> None:
        if phase is not self.phase:
            log.info("showcase: %s -> %s", self.phase.value, phase.value)
        self.phase = phase
        self.reason = ""

    def _close(self, reason: str, detail: str) -> None:
        if self.phase is not TablePhase.UNAVAILABLE or self.reason != reason:
            log.warning("showcase: unavailable (%s): %s", reason, detail)
        self.phase = TablePhase.UNAVAILABLE
        self.reason = reason

