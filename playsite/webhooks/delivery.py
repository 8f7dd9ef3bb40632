"""Webhook push: the room's events reach a bot seat as signed `yourTurn` POSTs.

Each bot seat whose bot has a webhook registration gets a dispatcher: a bounded,
non-blocking QueueSubscriber attached to the room (like every transport) and a task in
the room's nursery that reads it. Whenever that seat has dice with legal moves (its
DiceRolled, or the Snapshot at attach), the dispatcher POSTs

    {"type":"yourTurn","gameId":...,"seat":...,"state":<GET /games/{id} body>}

through the pinned transport, signed with `X-DiceChess-Timestamp` (Unix seconds) and
`X-DiceChess-Signature` (hex HMAC-SHA256 of "<ts>.<body>" under the registration's
secret). The answer `{"moves": [...]}` is the turn. Before it enters the room, the
dispatcher re-checks under the bot's fence that the registration it was sent under is
still current; if not, the answer is recorded `stale_registration` and dropped.

Reliability is the clock: a bot that does not answer just lets its clock run. Within one
turn a delivery is retried at most twice, and only when nothing reached the bot's code
(unreachable, or a 502/503/504 from whatever stands in front of it).

The room knows nothing of this: to it a dispatcher is a spectator-like subscriber, and a
turn is the same `PlayerCommand(seat, SubmitTurn(moves))` any transport sends.
"""

from __future__ import annotations

import json
import logging

import attrs
import trio

from playsite import principals
from playsite.bots.directory import BotDirectory
from playsite.periodic import run_every
from playsite.rooms.fanout import QueueSubscriber
from playsite.rooms.intents import Attach, PlayerCommand
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.transports.pinned import RESPONSE_BODY_MAX, OutboundFailure, UrlRefused, post_pinned, resolve_and_pin
from playsite.webhooks.registrations import SIGNATURE_HEADER, TIMESTAMP_HEADER, Webhooks, sign, signed_headers  # noqa: F401 (re-exported)
from playsite.webhooks.store import APPLIED, DECLINED, STALE_REGISTRATION, Delivery, Registration
from playsite.wire import MAX_TURN_MOVES, WHITE, Active, DiceRolled, Seat, Snapshot, SubmitTurn, WireError, decode_event

log = logging.getLogger("playsite.webhooks")

TURN_ANSWER_CAP_S = 120.0
"""The longest a delivery waits for an answer, whatever the clock (Unlimited games, hung endpoints)."""
TURN_ANSWER_MIN_S = 1.0
"""Even a nearly flagged seat gets this long (the room decides the flag, not the dispatcher)."""
ATTEMPTS_PER_TURN = 3
"""One delivery and at most two retries within a turn."""
RETRY_BACKOFF_S = (0.5, 1.5)
RETRYABLE_STATUSES = frozenset({502, 503, 504})
"""Answers of a gateway in front of the bot (cold start, deploy): its code never saw the turn."""

RECORD_TIMEOUT_S = 2.0
"""A stats write that takes longer is abandoned (stats never hold up a game)."""
SWEEP_PERIOD_S = 0.5
"""How often the safety net looks for live games of registered bots without a dispatcher."""

_NUDGE = ""
"""Offered into a dispatcher's own queue when its bot's registration changed (never an event)."""


def your_turn_body(game_id: str, seat: str, state_text: str) -> str:
    """The envelope, with the room's already-encoded public state spliced in (encoded once)."""
    return f'{{"type":"yourTurn","gameId":{json.dumps(game_id)},"seat":{json.dumps(seat)},"state":{state_text}}}'


@attrs.frozen
class Attempt:
    outcome: str
    reason: str
    latency_ms: int
    moves: tuple[str, ...] | None = None
    """The turn the bot answered (only with outcome 'applied' pending the room's verdict)."""

    @property
    def retryable(self) -> bool:
        return self.outcome == "unreachable" or self.outcome in {f"http_{s}" for s in RETRYABLE_STATUSES}


def read_moves(body: bytes) -> tuple[str, ...] | None:
    """The moves of a `{"moves": [...]}` answer, or None when it is not one."""
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(answer, dict):
        return None
    moves = answer.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_TURN_MOVES:
        return None
    if not all(isinstance(move, str) and 0 < len(move) <= 8 for move in moves):
        return None
    return tuple(moves)


async def deliver_once(webhooks: Webhooks, registration: Registration, body: str, timeout_s: float) -> Attempt:
    """One signed POST of `body` under `registration`, classified as a stats outcome."""
    started = trio.current_time()

    def took() -> int:
        return max(0, round((trio.current_time() - started) * 1000))

    if registration.unusable:
        log.warning("webhook delivery not sent: bot=%s %s", registration.bot_id, registration.unusable)
        return Attempt("unreachable", "the server cannot read this webhook's secret: register the webhook again", took())
    try:
        target = await resolve_and_pin(registration.url, webhooks.policy, webhooks.resolver)
    except UrlRefused as refused:
        return Attempt("unreachable", f"the URL is refused now: {refused.reason}", took())
    headers = signed_headers(registration.secret, body, webhooks.wall_clock())
    try:
        answer = await post_pinned(
            target, body.encode(), headers, timeout_s=max(0.05, timeout_s), verify=webhooks.verify
        )
    except OutboundFailure as failure:
        if failure.kind == "timed_out":
            return Attempt("timed_out", f"no answer within {timeout_s:.1f} s", took())
        log.info("webhook delivery unreachable: bot=%s host=%s %s", registration.bot_id, target.host, failure.detail)
        return Attempt("unreachable", "the endpoint could not be reached", took())
    if not 200 <= answer.status < 300:
        return Attempt(f"http_{answer.status}", f"the endpoint answered HTTP {answer.status}", took())
    if answer.oversized:
        return Attempt("oversized_body", f"the answer is larger than {RESPONSE_BODY_MAX} bytes", took())
    moves = read_moves(answer.body)
    if moves is None:
        return Attempt("garbled", 'the answer is not {"moves": ["<uci>", ...]}', took())
    if not moves:
        return Attempt(DECLINED, "the bot declined to move (empty moves)", took())
    return Attempt(APPLIED, "delivered and applied", took(), moves)


class Dispatcher:
    """Delivers one bot seat's turns in one room until the game ends."""

    def __init__(self, dispatch: WebhookDispatch, room: Room, seat: str, bot_id: str) -> None:
        self.dispatch = dispatch
        self.webhooks = dispatch.webhooks
        self.room = room
        self.seat = seat
        self.bot_id = bot_id
        # Spectator-like (seat None): a webhook holds no connection, so it must not count
        # as the seat being present or absent; nor is it anyone watching the game (play-through
        # s72: the featured bot's game said "1 watching" with nobody there).
        self.subscriber = QueueSubscriber(None, watching=False)
        self.turn_version: int | None = None
        """Version of the committed event that gave this seat dice with moves, while it stands."""
        self.turn_clock_ms: int | None = None
        self.tried: tuple[int, int] | None = None
        """(version, registration_id) last delivered: each pair is delivered once."""

    def nudge(self) -> None:
        """The registration changed: look at the pending turn again (a new registration gets it)."""
        self.subscriber.offer(_NUDGE)

    async def run(self) -> None:
        try:
            async with self.webhooks.fence(self.bot_id):
                if await self.webhooks.current_under_fence(self.bot_id) is None:
                    return  # unregistered meanwhile; a new registration attaches again
            attach = Attach(self.subscriber)
            if not await self.room.send(attach) or not await attach.reply.wait():
                return
            async for text in self.subscriber.events:
                if text != _NUDGE:
                    self._follow(text)
                if self.turn_version is not None:
                    await self._deliver_turn(self.turn_version)
        except Exception:
            # A fault here must never take the room (and its nursery) down with it.
            log.exception("webhook dispatcher failed: game=%s seat=%s", self.room.game_id, self.seat)
        finally:
            self.dispatch.forget(self)
            self.subscriber.close()  # the room drops a closed subscriber at its next broadcast

    def _follow(self, text: str) -> None:
        try:
            event = decode_event(text)
        except WireError:
            return
        if isinstance(event, Snapshot):
            state = event.state
            mine = isinstance(state.status, Active) and state.dice_pending and state.active_seat == self.seat
            actionable, clocks = mine and state.legal_moves != {}, state.clocks
        elif isinstance(event, DiceRolled):
            actionable, clocks = event.seat == self.seat and event.legal_moves != {}, event.clocks
        else:
            actionable, clocks = False, None
        if actionable:
            self.turn_version = event.v
            if clocks is None:
                self.turn_clock_ms = None
            else:
                self.turn_clock_ms = clocks.white_ms if self.seat == WHITE else clocks.black_ms
        elif self.turn_version is not None and event.v > self.turn_version:
            self.turn_version = None

    def _turn_pending(self, version: int) -> bool:
        # The room's state is the committed state of `version` only while no later version
        # exists; a later one arrives as its own event after its commit.
        return not self.room.ended and self.room.version == version and self.turn_version == version

    async def _deliver_turn(self, version: int) -> None:
        while self._turn_pending(version):
            registration = await self.webhooks.current(self.bot_id)
            if registration is None or self.tried == (version, registration.registration_id):
                return
            self.tried = (version, registration.registration_id)
            body = your_turn_body(self.room.game_id, self.seat, self.room.state_text())
            if not await self._deliver_under(registration, version, body):
                return
            # The answer was stale: if the turn still stands, the current registration gets it.

    async def _deliver_under(self, registration: Registration, version: int, body: str) -> bool:
        """Deliver (with bounded retries) under one registration; True if that registration is no
        longer current (the caller then delivers the standing turn under the current one)."""
        budget = TURN_ANSWER_CAP_S
        if self.turn_clock_ms is not None:
            budget = min(budget, max(TURN_ANSWER_MIN_S, self.turn_clock_ms / 1000))
        deadline = trio.current_time() + budget
        for attempt_number in range(ATTEMPTS_PER_TURN):
            sent = trio.current_time()
            try:
                attempt = await deliver_once(self.webhooks, registration, body, deadline - trio.current_time())
            except trio.Cancelled:
                # The game ended while the bot had not answered (its clock ran out first, most
                # often: a budget is never longer than the clock): that attempt counts too. A
                # game still on was cut by the server's stop, which is not the bot's doing (and
                # the database may be closing): it counts nothing.
                if self.room.ended:
                    waited = trio.current_time() - sent
                    await self._record(registration, "timed_out", round(waited * 1000),
                                       f"no answer before the game ended ({waited:.1f} s)")
                raise
            outcome, reason = await self._settle(registration, attempt)
            await self._record(registration, outcome, attempt.latency_ms, reason)
            if outcome == STALE_REGISTRATION:
                return True
            if not attempt.retryable or attempt_number + 1 >= ATTEMPTS_PER_TURN:
                return False
            pause = RETRY_BACKOFF_S[min(attempt_number, len(RETRY_BACKOFF_S) - 1)]
            if trio.current_time() + pause + TURN_ANSWER_MIN_S / 2 >= deadline:
                return False
            await trio.sleep(pause)
            if not self._turn_pending(version):
                return False
            if await self.webhooks.current(self.bot_id) != registration:
                return True  # replaced or deleted meanwhile: the current registration (if any) takes over
        return False

    async def _record(self, registration: Registration, outcome: str, latency_ms: int, reason: str) -> None:
        delivery = Delivery(
            bot_id=self.bot_id,
            registration_id=registration.registration_id,
            at=self.webhooks.wall_clock(),
            outcome=outcome,
            latency_ms=latency_ms,
            reason=reason,
        )
        # Shielded: the turn that ends a game ends the room's nursery too, and its delivery
        # still counts.
        with trio.CancelScope(shield=True), trio.move_on_after(RECORD_TIMEOUT_S):
            await self.webhooks.record(delivery)

    async def _settle(self, registration: Registration, attempt: Attempt) -> tuple[str, str]:
        """Under the fence: drop a stale answer, or hand the turn to the room. (outcome, reason)"""
        command = None
        async with self.webhooks.fence(self.bot_id):
            current = await self.webhooks.current_under_fence(self.bot_id)
            if current is None or current.registration_id != registration.registration_id:
                return STALE_REGISTRATION, (
                    f"an answer for a registration that was replaced or deleted ({attempt.outcome})"
                )
            if attempt.moves:
                command = PlayerCommand(self.seat, SubmitTurn(attempt.moves))
                if not await self.room.send(command):
                    return "refused", "the room refused the moves: the game is over"
        if command is None:
            return attempt.outcome, attempt.reason
        # A turn that ends the game may be answered before we wait, and the room's end then
        # cancels us: an answer already there is read without a cancellable checkpoint.
        with trio.CancelScope(shield=command.reply.ready):
            verdict = await command.reply.wait()
        if verdict.applied:
            return APPLIED, attempt.reason
        return "refused", f"the room refused the moves: {verdict.reason}"


class WebhookDispatch:
    """Which (game, seat) has a dispatcher; attaches them and tells them about registration changes."""

    def __init__(self, webhooks: Webhooks, registry: Registry, bots: BotDirectory, *, enabled: bool) -> None:
        self.webhooks = webhooks
        self.registry = registry
        self.bots = bots
        self.enabled = enabled
        self.attached: dict[tuple[str, str], Dispatcher] = {}
        webhooks.listeners.append(self.registration_changed)

    def attach(self, room: Room, *, only_bot: str | None = None) -> list[Seat]:
        """Start a dispatcher for each registered-bot seat of `room` that has none; the seats started."""
        if not self.enabled or room.ended:
            return []
        started = []
        for seat, principal in room.principals.items():
            account = self.bots.by_principal(principal or "")
            if only_bot is not None and (account is None or account.id != only_bot):
                continue
            if account is None or not account.registered or (room.game_id, seat) in self.attached:
                continue
            dispatcher = Dispatcher(self, room, seat, account.id)
            if not room.spawn(dispatcher.run):
                break  # the room's task is not running
            self.attached[(room.game_id, seat)] = dispatcher
            started.append(seat)
        return started

    def forget(self, dispatcher: Dispatcher) -> None:
        key = (dispatcher.room.game_id, dispatcher.seat)
        if self.attached.get(key) is dispatcher:
            del self.attached[key]

    async def sweep(self) -> int:
        """Attach to every live game of a registered bot that has no dispatcher yet (creation
        paths that did not call the hook, resumed games). Returns how many were started."""
        started = 0
        for room in list(self.registry.live.values()):
            for seat, principal in room.principals.items():
                account = self.bots.by_principal(principal or "")
                if account is None or not account.registered or (room.game_id, seat) in self.attached:
                    continue
                if await self.webhooks.current(account.id) is not None:
                    started += len(self.attach(room, only_bot=account.id))
        return started

    async def run_sweeps(
        self, *, period_s: float = SWEEP_PERIOD_S, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The supervised safety net behind the creation hook, started once by the boot."""
        await run_every(period_s, self.sweep, name="webhook sweep", task_status=task_status)

    def attach_to_live_games(self) -> int:
        """After `registry.resume_all()`: dispatchers for every resumed game. Returns how many started."""
        return sum(len(self.attach(room)) for room in list(self.registry.live.values()))

    def registration_changed(self, bot_id: str) -> None:
        principal = principals.bot(bot_id)
        for room in list(self.registry.live.values()):
            for seat, holder in room.principals.items():
                if holder != principal:
                    continue
                dispatcher = self.attached.get((room.game_id, seat))
                if dispatcher is not None:
                    dispatcher.nudge()
                else:
                    self.attach(room, only_bot=bot_id)
