"""Rematch and continuation: the service that carries out commands on an opportunity,
commits successors, and recovers them.

    rematches.read(source, seat)                       # the caller's private state
    rematches.command(source, seat, request_id, action)  # apply one command, get the state
    rematches.continuation(source_id)                  # the public projection

A command is one transaction that locks the source's opportunity row (`queries.lock`), so
the first accept, decline, cancel or expiry wins across every request. The second consent
leaves the opportunity `starting`; the successor is then committed by a task of the
service's own nursery (not of the request: a client that goes away cannot cancel it):
inherited settings checked, one fresh colour draw, then ONE transaction that writes the
successor's first version, its link and the `matched` phase, fenced on `starting`. Only once
the room is hosted (readable) does anyone see `matched`. A scan every few seconds closes a
`starting` left without a task, hosts a committed successor this process is not running,
and prunes request records; at boot, `recover` closes every unfinished `offered` or
`starting` opportunity for good (`restart`).
"""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import attrs
import psycopg
import trio

from playsite.accounts import queries as accounts_store
from playsite.rematch import queries
from playsite.rematch.opportunity import (
    OFFER_WINDOW_S,
    ClosedReason,
    InvalidTransition,
    Opportunity,
    Phase,
    RematchClosed,
)
from playsite.rematch.source import Source, source_of, source_of_result
from playsite.principals import Kind, id_of
from playsite.refusals import Refused
from playsite.rooms.admission import Purpose
from playsite.rooms.durable import dump_setup, load_setup, load_state
from playsite.rooms.model import RoomSetup, SeatSetup
from playsite.rooms.registry import Registry
from playsite.store.base import GameWrite
from playsite.store.database import Database, DatabaseUnavailable
from playsite.store.postgres import PostgresStore
from playsite.tokens import new_token
from playsite.webhooks.sealing import Sealer, open_stored, seal_stored
from playsite.wire import SEATS, PublicFace, Seat, encode_time_control
from playsite.wire.instant import encode_epoch

log = logging.getLogger("playsite.rematch")

JOIN_WINDOW_S = 15.0
"""service.md: a successor's first-join window, from its commit."""
STORE_WAIT_S = 5.0
"""A store call a command waits on longer than this is answered 503 (the outcome may be either)."""
COMMIT_WAIT_S = 3.0
"""How long a request that made (or found) `starting` waits for the successor before it
answers `starting` (the client polls on)."""
SCAN_PERIOD_S = 5.0
STALE_STARTING_S = 10.0
"""A `starting` with no commit task in this process for this long is picked up by the scan."""
SCAN_BATCH = 100
MODE = "classic"
T = TypeVar("T")


class SourceNotFound(Refused):
    """No game with this id."""

    def __init__(self, game_id: str):
        super().__init__("game_not_found", f"no game {game_id}")


class SettingsUnavailable(Exception):
    """The successor cannot copy its source's settings any more (a rated game's account is
    gone): it is not made, and the opportunity closes (`technical_failure`)."""


class Unavailable(DatabaseUnavailable):
    """The store did not answer in time or failed (a commit may still have happened); the
    edge answers it as any unavailable store, 503 `temporarily_unavailable`."""


@attrs.frozen
class Read:
    """What a state is computed from: the source, its opportunity as stored (None: untouched),
    and its successor row."""

    source: Source
    opportunity: Opportunity | None
    successor: queries.Successor | None


class Rematches:
    def __init__(
        self,
        database: Database,
        store: PostgresStore,
        registry: Registry,
        *,
        seed_window_s: float,
        durability: str,
        accounts_enabled: bool,
        wall: Callable[[], float] = time.time,
        sealer: Sealer | None = None,
    ) -> None:
        self.sealer = sealer
        """Seals the successor seats' tokens at rest (PLAY_SECRETS_KEY); None: stored as they are."""
        self.database = database
        self.store = store
        self.registry = registry
        self.seed_window_s = seed_window_s
        self.durability = durability
        self.accounts_enabled = accounts_enabled
        self.wall = wall
        """The server's clock for every deadline (seconds since the epoch; tests give their own)."""
        self._commits: dict[str, trio.Event] = {}
        """Sources whose successor is being committed by this process -> set when done."""
        self._nursery: trio.Nursery | None = None

    # ----- the loops ----------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[Rematches] = trio.TASK_STATUS_IGNORED) -> None:
        """Recover at boot (before the port opens), then supervise commits and run the scan."""
        await self.recover()
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started(self)
            while True:
                await trio.sleep(SCAN_PERIOD_S)
                try:
                    await self.scan()
                except (DatabaseUnavailable, trio.TooSlowError, Unavailable) as error:
                    log.warning("rematch scan skipped: %s", error)

    async def recover(self) -> None:
        """service.md, Rematch opportunity rule 7: every `offered` or `starting` opportunity
        without a committed successor is closed for good. (A committed successor that never
        began is aborted by its own room when it is resumed: no result, no rating, the source
        not reopened.)"""
        closed = await self._run(lambda conn: queries.close_unfinished(conn, self.wall(), OFFER_WINDOW_S))
        for source, reason in closed:
            log.info("rematch of %s closed at boot (%s)", source, reason)

    async def scan(self) -> None:
        """The bounded scan: `starting` left without a commit task, committed successors not
        hosted, expired request records."""
        stale = await self._run(lambda conn: queries.stale_starting(conn, STALE_STARTING_S, SCAN_BATCH))
        for game_id in stale:
            if game_id not in self._commits:
                # An accepted command whose commit is not running: finish it (once more; a
                # commit that fails closes the opportunity, technical_failure).
                try:
                    self._start_commit(await self.source(game_id))
                except (SourceNotFound, Unavailable) as error:
                    log.error("rematch of %s: its source cannot be read (%r)", game_id, error)
        for snapshot in await self._run(lambda conn: queries.unhosted_successors(conn, SCAN_BATCH)):
            game_id = snapshot["setup"]["gameId"]
            if self.registry.get(game_id) is None:
                await self._host(snapshot)
        await self._run(queries.prune)

    async def _host(self, snapshot: dict) -> None:
        """Register a committed successor this process is not running (its registration
        failed): the room runs to the same absolute join deadline, so a late registration
        ends in a technical abort, never a new window and never a forfeit for our delay."""
        try:
            await self.registry.adopt(snapshot)
            log.warning("rematch successor %s hosted by the scan", snapshot["setup"]["gameId"])
        except Exception:
            log.exception("rematch successor %s could not be hosted; retried by the next scan", snapshot["setup"]["gameId"])

    # ----- reads --------------------------------------------------------------------------

    async def source(self, game_id: str) -> Source:
        """The game as a rematch source; SourceNotFound when there is no such game."""
        room = self.registry.get(game_id)
        if room is not None:
            return source_of(room.state(), ended=room.completed)
        data = await self._store(lambda: self.store.ended_game(game_id))
        if data is None:
            # Retention may have dropped the games row; the results row stays, and so does
            # any link to a successor: the source is still answered for.
            result = await self._store(lambda: self.store.ended_result(game_id))
            if result is None:
                raise SourceNotFound(game_id)
            return source_of_result(result)
        return source_of(load_state(data), ended=True)

    async def _read(self, source: Source) -> Read:
        def work(conn: psycopg.Connection) -> tuple[Opportunity | None, queries.Successor | None]:
            return queries.read(conn, source.game_id), queries.successor(conn, source.game_id)

        opportunity, successor = await self._run(work)
        return Read(source, opportunity, successor)

    async def read(self, source: Source, seat: Seat) -> dict:
        """The private state of `seat`, a participant of `source` (authorised by the caller)."""
        if not source.ended:
            raise Refused("invalid_transition")
        return await self._state(await self._read(source), seat)

    async def continuation(self, source: Source) -> dict:
        """The public projection: waiting, matched (once the successor is readable) or closed."""
        now = self.wall()
        body: dict = {"sourceGameId": source.game_id, "serverNow": encode_epoch(now)}
        if not source.ended:
            body["phase"] = "waiting" if source.eligible or _unsettled(source) else "closed"
            return body
        if not source.eligible:
            body["phase"] = "closed"
            return body
        read = await self._read(source)
        opportunity = self._current(read).at(now)
        if opportunity.phase is Phase.MATCHED:
            if await self._readable(opportunity.successor_game_id):
                body.update(phase="matched", nextGameId=opportunity.successor_game_id)
            else:
                body["phase"] = "waiting"  # committed, registration still recovering: no deadline
        elif opportunity.phase is Phase.CLOSED:
            body["phase"] = "closed"
        else:
            body["phase"] = "waiting"
            if opportunity.deadline is not None:
                body["deadlineAt"] = encode_epoch(opportunity.deadline)
        return body

    # ----- commands -----------------------------------------------------------------------

    async def command(self, source: Source, seat: Seat, request_id: uuid.UUID, action: str) -> dict:
        """Apply `action` for `seat` under `request_id`; the canonical state after it, or
        `Refused` carrying the error and that state."""
        if not source.ended:
            raise Refused("invalid_transition")
        if not source.eligible:
            read = await self._read(source)
            raise Refused("rematch_closed", state=await self._state(read, seat))
        inherited_ok = await self._settings_admissible(source) if action in ("accept", "propose") else True

        def work(conn: psycopg.Connection) -> tuple[str | None, bool]:
            earlier = queries.find_request(conn, source.game_id, seat, request_id)
            if earlier is not None:  # a replay: its answer again (the read below finds any commit to finish)
                return ("request_id_conflict" if earlier.action != action else earlier.error_code), False
            stored = queries.lock(conn, source.game_id, source.end)
            now = self.wall()
            current = stored.at(now)
            error = None
            try:
                after = current.apply(seat, action, now)
            except InvalidTransition:
                after, error = current, "invalid_transition"
            except RematchClosed:
                after, error = current, "rematch_closed"
            if after.phase is Phase.STARTING and not inherited_ok:
                after, error = current, "settings_unavailable"  # the consent is not taken; nothing changes
            if after != stored:
                queries.save(conn, after)
            queries.record_request(conn, source.game_id, seat, request_id, action, error)
            return error, after.phase is Phase.STARTING

        # The consent and the start of the successor's commit are one step: a request cancelled
        # in between (its client gone) would leave `starting` to the scan, 10-15 s later. So the
        # transaction is shielded (it is bounded by STORE_WAIT_S), and the commit task started
        # before the next checkpoint.
        with trio.CancelScope(shield=True):
            error, starting = await self._run(work)
        if starting:
            self._start_commit(source)
        read = await self._read(source)
        if self._current(read).phase is Phase.STARTING:
            await self._await_successor(source)
            read = await self._read(source)
        state = await self._state(read, seat)
        if error is not None:
            raise Refused(error, state=state)
        return state

    async def _settings_admissible(self, source: Source) -> bool:
        """service.md, Rematch opportunity rule 14: the successor copies the source's settings
        or is not made. A rated game needs both participants to be active accounts still (and
        sign-in to be on)."""
        if not source.rated:
            return True
        if not self.accounts_enabled:
            return False
        ids = []
        for seat in SEATS:
            account_id = id_of(source.seats[seat].principal, Kind.USER)
            if account_id is None:
                return False
            ids.append(uuid.UUID(account_id))
        accounts = await self._run(lambda conn: [accounts_store.find(conn, account_id) for account_id in ids])
        return all(account is not None and account.active for account in accounts)

    async def _await_successor(self, source: Source) -> None:
        """Start (once) the commit of `source`'s successor in the service's nursery and wait
        for it a little; the request answers `starting` if it takes longer."""
        done = self._start_commit(source)
        with trio.move_on_after(COMMIT_WAIT_S):
            await done.wait()

    def _start_commit(self, source: Source) -> trio.Event:
        """The commit task of `source`'s successor, started unless one is running already."""
        done = self._commits.get(source.game_id)
        if done is None:
            done = self._commits[source.game_id] = trio.Event()
            assert self._nursery is not None, "the rematch service is not running"
            self._nursery.start_soon(self._commit_successor, source, done)
        return done

    async def _commit_successor(self, source: Source, done: trio.Event) -> None:
        try:
            await self._create_successor(source)
        except queries.SuccessorFenceRefused as refused:
            # no longer starting: another attempt committed the successor (the scan's retry of a
            # commit it read as stale just before this one landed), or the opportunity closed.
            # Nothing failed, and nothing is left to close.
            log.info("rematch of %s: no second successor (%s)", source.game_id, refused)
        except Exception as error:
            # Did it commit after all (an answer lost on the way back)? A committed successor wins.
            log.error("rematch of %s: the successor could not be created: %r", source.game_id, error)
            try:
                if await self._run(lambda conn: queries.close_if_starting(conn, source.game_id, ClosedReason.TECHNICAL_FAILURE)):
                    log.error("rematch of %s closed (technical_failure)", source.game_id)
            except (DatabaseUnavailable, trio.TooSlowError, Unavailable):
                pass  # the scan closes it later
        finally:
            self._commits.pop(source.game_id, None)
            done.set()

    async def _create_successor(self, source: Source) -> None:
        """service.md, Rematch opportunity rule 17: the inherited settings checked again (the
        consent was taken earlier, and a commit the scan retries may come much later), one
        colour draw, then one transaction (fenced, unique per source, admission reserved
        before it is sent), then the room is hosted behind its startup gate."""
        if not await self._settings_admissible(source):
            raise SettingsUnavailable(f"the settings of {source.game_id} can no longer be honoured")
        swap = secrets.randbelow(2) == 1  # a fresh, independent 50/50 draw
        white_moves_to = Seat.BLACK if swap else Seat.WHITE
        principal_at = {
            white_moves_to: source.seats[Seat.WHITE].principal,
            white_moves_to.other(): source.seats[Seat.BLACK].principal,
        }
        tokens, seats = {}, {}
        for seat in SEATS:
            tokens[seat], digest = new_token()
            seats[seat] = SeatSetup(token_hash=digest, face=PublicFace(kind="Human", name=None), principal=principal_at[seat])
        setup = RoomSetup(
            game_id=str(uuid.uuid4()),
            time_control=source.time_control,
            white=seats[Seat.WHITE],
            black=seats[Seat.BLACK],
            rated=source.rated,
            origin="rematch",
            await_joins=True,
            join_window_s=JOIN_WINDOW_S,
            seed_window_s=self.seed_window_s,
            durability=self.durability,
            predecessor=source.game_id,
            # provisional: the commit fixes it once it holds the fence (`settle` below)
            join_deadline_at=encode_epoch(self.wall() + JOIN_WINDOW_S),
        )
        sealed = {seat: seal_stored(self.sealer, token, source.game_id, _token_column(seat)) for seat, token in tokens.items()}

        async def commit(write: GameWrite) -> RoomSetup:
            settled: list[RoomSetup] = []

            def settle() -> tuple[float, GameWrite]:
                # "15 s from commit": stamped inside the transaction, after any wait for the
                # fence, so no wait for a thread, a connection or a lock comes out of the window
                deadline = self.wall() + JOIN_WINDOW_S
                # from the setup the room was built with (the registry's limits, the first-move
                # one among them, are in it), never from this function's own copy of it
                built = load_setup(write.snapshot["setup"])
                settled.append(attrs.evolve(built, join_deadline_at=encode_epoch(deadline)))
                return deadline, attrs.evolve(write, snapshot={**write.snapshot, "setup": dump_setup(settled[-1])})

            await self._run(
                lambda conn: queries.commit_successor(
                    conn, source_game_id=source.game_id, game_id=write.game_id, settle=settle,
                    white_moves_to=white_moves_to, tokens=sealed, epoch=self.database.serving_epoch,
                )
            )
            return settled[-1]

        room = await self.registry.create(setup, Purpose.GENERAL, (), commit=commit)
        log.info("rematch of %s: successor %s committed", source.game_id, room.game_id)

    # ----- the private state --------------------------------------------------------------

    def _current(self, read: Read) -> Opportunity:
        if read.opportunity is not None:
            return read.opportunity
        return Opportunity.after(read.source.game_id, read.source.end)

    async def _state(self, read: Read, seat: Seat) -> dict:
        source = read.source
        now = self.wall()
        opportunity = self._current(read).at(now)
        if not source.eligible:
            reason = ClosedReason.TECHNICAL_FAILURE if source.technical_abort else ClosedReason.EXPIRED
            opportunity = attrs.evolve(opportunity, phase=Phase.CLOSED, closed_reason=reason)
        phase = opportunity.phase
        if phase is Phase.MATCHED and not await self._readable(opportunity.successor_game_id):
            phase = Phase.STARTING  # committed; matched only once the same room is readable
        body: dict = {
            "sourceGameId": source.game_id,
            "phase": phase.value,
            "serverNow": encode_epoch(now),
        }
        if phase in (Phase.AVAILABLE, Phase.OFFERED) and opportunity.deadline is not None:
            body["deadlineAt"] = encode_epoch(opportunity.deadline)
        body["myConsent"] = phase in (Phase.STARTING, Phase.MATCHED) or opportunity.consented(seat)
        body["allowedActions"] = list(opportunity.allowed_actions(seat, now)) if source.eligible else []
        body["settings"] = {"timeControl": encode_time_control(source.time_control), "rated": source.rated, "mode": MODE}
        if phase is Phase.MATCHED and read.successor is not None:
            successor = read.successor
            body["nextGameId"] = successor.game_id
            body["joinDeadlineAt"] = encode_epoch(successor.join_deadline_at)
            mine = successor.seat_moved_from(seat)
            if (stored := successor.tokens[mine]) is not None:
                token = open_stored(self.sealer, stored, source.game_id, _token_column(mine))
                body["join"] = {"seat": str(mine), "token": token}
        if phase is Phase.CLOSED and opportunity.closed_reason is not None:
            body["closedReason"] = opportunity.closed_reason.value
        return body

    async def _readable(self, game_id: str | None) -> bool:
        """The successor can be read as live state (hosted here) or as history (ended)."""
        if game_id is None:
            return False
        if self.registry.get(game_id) is not None:
            return True
        return await self._run(lambda conn: queries.game_status(conn, game_id)) == "ended"

    # ----- helpers ------------------------------------------------------------------------

    async def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        """`work(conn)` in one transaction; Unavailable past STORE_WAIT_S, on a database
        failure (the attempt is then abandoned and never commits) or when the database refuses
        the work (a trigger, a read-only standby: rolled back, so nothing committed either)."""
        try:
            with trio.fail_after(STORE_WAIT_S):
                return await self.database.run(work)
        except (DatabaseUnavailable, trio.TooSlowError, psycopg.Error) as error:
            raise Unavailable(str(error) or type(error).__name__) from None

    async def _store(self, read: Callable[[], Awaitable[T]]) -> T:
        try:
            with trio.fail_after(STORE_WAIT_S):
                return await read()
        except (DatabaseUnavailable, trio.TooSlowError, psycopg.Error) as error:
            raise Unavailable(str(error) or type(error).__name__) from None




def _unsettled(source: Source) -> bool:
    """An ongoing friend game whose seats are not both taken yet may still become eligible."""
    return source.why_not == "a seat was never taken"


def _token_column(seat: Seat) -> str:
    """What a successor seat's sealed token is bound to, besides its source game."""
    return f"rematch_successors.{str(seat).lower()}_token"
