"""The game a room plays: its working state and every transition, synchronous.

Every transition takes `now` (trio's clock, read by the room) and none awaits, so a game
can be driven and tested without trio. What a transition says goes into `events`: each
event is encoded once per audience and numbered with the version it makes; the room
(`rooms/room.py`, the async shell around a game) writes the version, then broadcasts those
texts, then answers the requesters. Rolling the dice is the one step in two halves
(`roll_dice`, then `settle_roll` with the roll's tree), because the tree may be computed in
a worker process.

The game knows seats and principals, never a subscriber, a socket or the store.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import attrs

from playsite.dice import Fairness, SeedVerdict
from playsite.dice import Seat as DiceSeat
from playsite.rooms.clock import GameClock
from playsite.rooms.counters import RoomCounters
from playsite.rooms.intents import Verdict
from playsite.rooms.model import (
    DISCONNECT_GRACE_S,
    RECONNECT_WINDOW_S,
    ClockState,
    Ending,
    RoomPhase,
    RoomSetup,
    RoomState,
    SeatSetup,
    WallClock,
    effective_rated,
    seat_to_move,
    seconds_between,
    utc_now,
)
from playsite.rooms.trees import PackedTree, pack
from playsite.rooms.view import PublicView, Turn
from playsite.rules import IllegalTurn, Position, Termination, format_dfen, play_turn
from playsite.wire import (
    BLACK,
    SEATS,
    WHITE,
    Abort,
    AbortCause,
    AnswerDraw,
    ClientSeedsView,
    Command,
    DiceRolled,
    DrawDeclined,
    Event,
    GameEnded,
    HistoryTurn,
    MoveTree,
    Players,
    PublicGameState,
    Rejected,
    RematchStartup,
    Resign,
    Seat,
    SubmitSeed,
    SubmitTurn,
    TurnPlayed,
    encode_event,
)
from playsite.wire import Active as ActiveStatus
from playsite.wire import Ended as EndedStatus

PRESENT_PHASES = (RoomPhase.SEEDING, RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER)
"""The phases in which an absent seat's disconnect grace runs."""
TURN_PHASES = (RoomPhase.PLAYING, RoomPhase.DRAW_ANSWER)
"""The phases in which the seat to move is on the clock."""
_EARLY_ABORTS: dict[Termination, AbortCause] = {
    Termination.RESIGN: "resign",
    Termination.TIMEOUT: "timeout",
    Termination.DISCONNECT: "disconnect",
}
"""The endings that abort a game before both seats have played a turn, as the abort's cause."""


def _dice_seat(seat: Seat) -> DiceSeat:
    """`seat` as the dice procedure spells it (the dice import nothing of the wire)."""
    return "White" if seat is WHITE else "Black"


@attrs.define
class SeatState:
    setup: SeatSetup
    principal: str | None
    connections: int = 0
    joined: bool = False
    grace_until: float | None = None
    reconnect_until: float | None = None
    """After a restart: until when this seat, whose player was here before it, is on its way back."""


class Game:
    def __init__(
        self,
        setup: RoomSetup,
        fairness: Fairness,
        *,
        wall_clock: WallClock = utc_now,
        counters: RoomCounters | None = None,
    ) -> None:
        self.wall_clock = wall_clock
        """Stamps the creation and the ending; injected so tests can control it."""
        self.counters = counters if counters is not None else RoomCounters()
        """What this game adds to its registry's counts (metrics)."""
        if setup.created_at is None:
            setup = attrs.evolve(setup, created_at=wall_clock())
        self.setup = setup
        self.fairness = fairness
        self.seats = {seat: SeatState(setup.seat(seat), setup.seat(seat).principal) for seat in SEATS}
        self.names: dict[Seat, str] = {}
        """Public names of account seats, learnt when their owner takes the seat. Not durable:
        after a restart a name shows again when its owner reconnects."""
        self.position = setup.start
        self.rolled: tuple[int, ...] = ()
        self.packed: PackedTree | None = None
        """The tree of the pending roll (None when no dice are pending)."""
        self._dfen_of: tuple[Position, str] | None = None
        """The last position formatted, and its DFEN: a turn's events, state and snapshot all
        show the same one."""
        self.roll_due: float | None = None
        """When the active seat was given a roll whose dice and tree are still to be made
        (`roll_dice`, `settle_roll`, before the version commits)."""
        self.ply = 0
        self.version = 0
        self.history: list[HistoryTurn] = []
        self.played: set[Seat] = set()
        self.clock = GameClock.for_control(setup.time_control)
        self.phase = RoomPhase.AWAITING_JOINS
        self.activated = False
        """Whether the game began (a successor that never did shows `rematchStartup: aborted`)."""
        self.ending: Ending | None = None
        self.draw_offer_from: Seat | None = None
        self.draw_blocked: set[Seat] = set()
        self.idle_since: float | None = None
        """When the seat to move got its turn (the idle forfeit of Unlimited games counts from it)."""
        self.seed_deadline: float | None = None
        self.join_deadline: float | None = None
        self.events: list[tuple[str, str]] = []
        """(text for seats, text for spectators) of each event of the version being written."""
        self.dirty = False
        """The version being written changes something durable that no event shows."""
        self.refused: Seat | None = None
        """The seat whose refused command the pending version is (a Rejected and nothing else)."""

    # ----- durable state --------------------------------------------------------------------

    def state(self) -> RoomState:
        """Everything durable about the game now (what `durable` and `writes` work from)."""
        clock = None
        if self.clock is not None:
            clock = ClockState(remaining_ms=dict(self.clock.remaining_ms), running=self.clock.running)
        return RoomState(
            setup=self.setup,
            version=self.version,
            phase=self.phase,
            position=self.position,
            rolled=self.rolled,
            ply=self.ply,
            fairness=self.fairness,
            principals={seat: state.principal for seat, state in self.seats.items()},
            history=tuple(self.history),
            played=frozenset(self.played),
            clock=clock,
            draw_offer_from=self.draw_offer_from,
            draw_blocked=frozenset(self.draw_blocked),
            ending=self.ending,
            joined=frozenset(seat for seat, state in self.seats.items() if state.joined),
            activated=self.activated,
        )

    def restore(self, state: RoomState, now: float) -> None:
        """Put the game back into `state`; a clock that was running restarts at `now`."""
        self.fairness = state.fairness
        self.version = state.version
        self.phase = state.phase
        self.position = state.position
        self.rolled = state.rolled
        self.ply = state.ply
        for seat, principal in state.principals.items():
            self.seats[seat].principal = principal
            self.seats[seat].joined = seat in state.joined
        self.activated = state.activated
        self.history = list(state.history)
        self.played = set(state.played)
        if self.clock is not None and state.clock is not None:
            self.clock.remaining_ms = dict(state.clock.remaining_ms)
            self.clock.running = self.clock.started_at = None
            if state.clock.running is not None:
                self.clock.start(state.clock.running, now)
                self.clock.remaining_ms = dict(state.clock.remaining_ms)  # PerMove: keep what was left
        self.draw_offer_from = state.draw_offer_from
        self.draw_blocked = set(state.draw_blocked)
        self.ending = state.ending
        self.packed = None
        self.roll_due = None
        if self.phase is RoomPhase.PLAYING and self.position.dice:
            self.packed = pack(self.position)

    @property
    def changed(self) -> bool:
        """Whether there is a version to write (events, or a durable change no event shows)."""
        return bool(self.events) or self.dirty

    def take_events(self) -> list[tuple[str, str]]:
        """The events of the version just written, handed over once; the next version starts."""
        events, self.events = self.events, []
        self.dirty = False
        self.refused = None
        return events

    def discard_events(self) -> None:
        """The version being written is given up (its write was exhausted)."""
        self.events = []
        self.refused = None

    # ----- what the public is told ----------------------------------------------------------

    @property
    def ended(self) -> bool:
        return self.phase is RoomPhase.ENDED

    @property
    def active_seat(self) -> Seat:
        return seat_to_move(self.position)

    @property
    def tree(self) -> MoveTree | None:
        """The tree of the pending roll (a new copy at each read)."""
        return None if self.packed is None else self.packed.tree(self.position)

    @property
    def players(self) -> Players:
        if not self.names:
            return self.setup.players
        white, black = (
            attrs.evolve(self.setup.seat(seat).face, name=self.names[seat]) if seat in self.names
            else self.setup.seat(seat).face
            for seat in (WHITE, BLACK)
        )
        return Players(white=white, black=black)

    @property
    def rated(self) -> bool:
        """Rated as the public is told now (`model.effective_rated`)."""
        return effective_rated(
            self.setup.rated, {seat: state.principal for seat, state in self.seats.items()}, ended=self.ended
        )

    def view(self, now: float) -> PublicView:
        """The working state as the public will read it once it is committed."""
        return PublicView(
            state=self._public_state(now),
            history=tuple(self.history),
            packed=self.packed if self.phase is RoomPhase.PLAYING else None,
            turn=Turn(seat=self.active_seat, phase=self.phase),
            principals={seat: state.principal for seat, state in self.seats.items()},
            running=self.clock.copy() if self.clock is not None and self.clock.running is not None else None,
        )

    def _public_state(self, now: float) -> PublicGameState:
        inline_tree = self.packed.inline() if self.packed is not None else None
        return PublicGameState(
            version=self.version,
            dfen=self._dfen(self.position),
            active_seat=self.active_seat,
            dice_pending=self.phase is RoomPhase.PLAYING,
            status=EndedStatus(self.ending.over) if self.ending is not None else ActiveStatus(),
            time_control=self.setup.time_control,
            clocks=self.clock.read(now) if self.clock else None,
            commit=self.fairness.commit,
            seed=self.fairness.seed.hex() if self.ending is not None else None,
            client_seeds=self._client_seeds_view() if self.ending is not None else None,
            legal_moves=inline_tree if self.phase is RoomPhase.PLAYING else None,
            players=self.players,
            rated=self.rated,
            rematch_startup=self._startup_marker(),
        )

    def _startup_marker(self) -> RematchStartup | None:
        if not self.setup.successor:
            return None
        if self.phase is RoomPhase.AWAITING_JOINS:
            return RematchStartup("awaiting_joins", self.setup.join_deadline_at)
        return RematchStartup("active" if self.activated else "aborted")

    def _client_seeds_view(self) -> ClientSeedsView:
        seeds = self.fairness.client_seeds
        return ClientSeedsView(white=seeds.white, black=seeds.black)

    def _dfen(self, position: Position) -> str:
        if self._dfen_of is None or self._dfen_of[0] is not position:
            self._dfen_of = (position, format_dfen(position))
        return self._dfen_of[1]

    def _publish(self, make_event: Callable[[int], Event]) -> None:
        """Bump the version and encode the event once per audience (seats, spectators); the
        room broadcasts it after the write."""
        self.version += 1
        event = make_event(self.version)
        text = encode_event(event)
        watched = text
        if isinstance(event, DiceRolled) and event.legal_moves:
            # Spectators never play: the tree (most of a roll's bytes) goes to the seats only.
            watched = encode_event(attrs.evolve(event, legal_moves=None))
        self.events.append((text, watched))

    # ----- starting -------------------------------------------------------------------------

    def start(self, now: float) -> None:
        """A new game: wait for its seats to join, or begin at once."""
        if self.setup.await_joins and not self._ready_to_begin():
            self.join_deadline = now + self._join_window()
        else:
            self._begin(now)

    def resume(self, now: float, *, restarted: bool) -> None:
        """A game restored from its last committed version. Deadlines restart: seats must
        reconnect within the grace, windows run again."""
        if self.phase is RoomPhase.AWAITING_JOINS and self.setup.successor and not restarted:
            self.join_deadline = now + self._join_window()
        elif self.phase is RoomPhase.AWAITING_JOINS and self.setup.successor:
            # A committed successor that had not begun when the server stopped: a technical
            # abort of this same game (no result, no rating, nobody forfeited), never a new window.
            self.end(Ending(Termination.ABORTED, None, technical=True), now)
        elif self.phase is RoomPhase.AWAITING_JOINS and not self.setup.await_joins:
            # Stored before it began (a game that begins at once, e.g. the showcase's): it
            # begins now, its claim grace counted from its absolute deadline.
            self._begin(now)
            return
        elif self.phase is RoomPhase.AWAITING_JOINS:
            # What is left of its window, counted from its creation, and at least a disconnect
            # grace to get back: a full new window at every restart kept a game nobody joins
            # alive as long as deploys came often enough (ops review s74).
            left = self.setup.join_window_s
            if self.setup.created_at is not None:
                left -= seconds_between(self.setup.created_at, self.wall_clock())
            self.join_deadline = now + max(DISCONNECT_GRACE_S, left)
        elif self.phase is RoomPhase.SEEDING:
            self.seed_deadline = now + self.setup.seed_window_s
        if self.phase in PRESENT_PHASES:
            self.idle_since = now  # no turn is lost to a restart: the idle window starts again
            for seat in self.seats.values():
                if seat.setup.always_present:
                    continue
                if self.setup.claim_grace_s is not None and not seat.joined:
                    seat.grace_until = now + self._claim_grace_left()  # never taken: the claim deadline holds
                else:
                    seat.grace_until = now + DISCONNECT_GRACE_S
                    if restarted and seat.joined:
                        seat.reconnect_until = now + RECONNECT_WINDOW_S

    def reconnecting_until(self, seat_name: Seat, now: float) -> float | None:
        """Until when the seat's player, here before a restart, may still be on the way back;
        None when that is not (or no longer) so."""
        until = self.seats[seat_name].reconnect_until
        return until if until is not None and now < until else None

    def _begin(self, now: float) -> None:
        """Both seats are here (or need not be): open the seed window, or roll at once when it
        is zero. With a claim grace, a person's seat not taken yet gets that long to connect."""
        self.join_deadline = None
        self.activated = True
        if self.setup.successor:
            self.dirty = True  # the activation is durable (its marker turns `active`)
        if self.setup.claim_grace_s is not None:
            for seat in self.seats.values():
                if not seat.joined and not seat.setup.always_present:
                    seat.grace_until = now + self._claim_grace_left()
        self.phase = RoomPhase.SEEDING
        self.seed_deadline = now + self.setup.seed_window_s
        if self.setup.seed_window_s <= 0:
            self._roll(now)

    def _claims_awaited(self) -> bool:
        """A game that began at once still has a person's seat nobody has taken (within its
        claim grace): its first roll waits, so that person's client seed can count."""
        if self.setup.claim_grace_s is None:
            return False
        return bool(self._never_taken())

    def _claim_grace_left(self) -> float:
        """Seconds left before the absolute claim deadline (creation + claim grace), never below 0."""
        assert self.setup.claim_grace_s is not None and self.setup.created_at is not None
        return max(0.0, self.setup.claim_grace_s - seconds_between(self.setup.created_at, self.wall_clock()))

    # ----- seats ----------------------------------------------------------------------------

    def seat_joined(self, seat_name: Seat, now: float) -> None:
        """A subscriber of `seat_name` is connected: the seat is present."""
        seat = self.seats[seat_name]
        seat.connections += 1
        if not seat.joined and (self.setup.successor or self.setup.claim_grace_s is not None):
            self.dirty = True  # durable: a successor's connection history, a claimed seat taken
        seat.joined = True
        seat.grace_until = None
        seat.reconnect_until = None
        if self.phase is RoomPhase.AWAITING_JOINS and self._ready_to_begin():
            self._begin(now)
        elif self.phase is RoomPhase.SEEDING and self.seed_deadline is None and not self._claims_awaited():
            self.seed_deadline = now + self.setup.seed_window_s  # the last person came: a window for their seed

    def seat_left(self, seat_name: Seat, now: float) -> None:
        """A subscriber of `seat_name` is gone: the last one starts the disconnect grace."""
        seat = self.seats[seat_name]
        seat.connections -= 1
        seat.reconnect_until = None
        if seat.connections == 0 and self.phase in PRESENT_PHASES:
            if not seat.setup.always_present:
                seat.grace_until = now + DISCONNECT_GRACE_S

    def halt_graces(self) -> None:
        """The server cannot write (its fault): no disconnect grace runs while it is halted."""
        for seat in self.seats.values():
            seat.grace_until = None

    def restart_graces(self, now: float) -> None:
        """The writes recovered: every absent seat gets a whole grace."""
        for seat in self.seats.values():
            if seat.connections == 0 and not seat.setup.always_present:
                if self.phase in PRESENT_PHASES:
                    seat.grace_until = now + DISCONNECT_GRACE_S

    def rebind(self, seat_name: Seat, principal: str, name: str | None, *, claim: bool = True) -> bool:
        seat = self.seats[seat_name]
        if seat.principal is None and claim and not self.ended:
            seat.principal = principal
            self.dirty = True
        if seat.principal != principal:
            return False
        if name is not None and self.names.get(seat_name) != name:
            self.names[seat_name] = name
            self.dirty = True  # a new version, so the name (and a game turned casual) is published
        return True

    # ----- commands -------------------------------------------------------------------------

    def command(self, seat: Seat, command: Command, now: float) -> Verdict:
        """Apply one player command. A refused turn or draw answer in a game still going is
        told to everyone as a `Rejected` event with a version of its own: a version with no
        other change, committed like any other before it is published (as the ecosystem
        does, so a client that drops events at or below the last `v` it saw keeps it). The
        verdict then carries that version. Seeds are not moves: a refused seed is only
        ignored, and a command to a game that is over has nothing left to publish."""
        if self.ended:
            return self._reject("game is over")
        verdict = self._decide(seat, command, now)
        if not verdict.applied and not self.ended and isinstance(command, (SubmitTurn, AnswerDraw)):
            reason = verdict.reason or "refused"
            self._publish(lambda v: Rejected(v=v, seat=seat, reason=reason))
            self.counters.refused += 1
            self.refused = seat
            verdict = Verdict(False, self.version, reason)
        return verdict

    def abort(self, now: float) -> None:
        """A technical abort asked by the server itself."""
        if not self.ended:
            self.end(Ending(Termination.ABORTED, None, technical=True), now)

    def _decide(self, seat: Seat, command: Command, now: float) -> Verdict:
        match command:
            case SubmitSeed(seed=seed):
                return self._submit_seed(seat, seed, now)
            case Resign():
                self.end(self._decided(Termination.RESIGN, winner=seat.other()), now)
                return Verdict(True, self.version)
            case SubmitTurn(moves=moves, offer_draw=offer_draw):
                return self._submit_turn(seat, tuple(moves), offer_draw, now)
            case AnswerDraw(accept=accept):
                return self._answer_draw(seat, accept, now)
        return self._reject(f"unknown command {type(command).__name__}")

    def _reject(self, reason: str) -> Verdict:
        return Verdict(False, self.version, reason)

    def _submit_seed(self, seat: Seat, seed: str, now: float) -> Verdict:
        verdict = self.fairness.client_seeds.judge(_dice_seat(seat), seed)
        if verdict is not SeedVerdict.ACCEPTED:
            return self._reject(f"seed ignored ({verdict.value})")
        self.fairness = self.fairness.submit_client_seed(_dice_seat(seat), seed)
        self.dirty = True
        if self.phase is RoomPhase.SEEDING and self.fairness.client_seeds.white and self.fairness.client_seeds.black:
            self._roll(now)
        return Verdict(True, self.version)

    def _submit_turn(self, seat: Seat, moves: tuple[str, ...], offer_draw: bool, now: float) -> Verdict:
        if self.phase is RoomPhase.DRAW_ANSWER and seat == self.active_seat:
            return self._reject("a draw offer is waiting for your answer")
        if self.phase is not RoomPhase.PLAYING:
            return self._reject("not your turn: the dice are not rolled yet")  # the ecosystem's reason, then why
        if seat != self.active_seat:
            return self._reject("not your turn")
        if offer_draw and self.seats[seat.other()].setup.always_present:
            return self._reject("draw offers are not available against an API seat (it cannot answer them)")
        if offer_draw and seat in self.draw_blocked:
            return self._reject("you may not offer a draw again until your opponent has offered one")
        if offer_draw and len(self.played | {seat}) < 2:
            # Agreed, it would end the game before both sides had played: an abort, not a draw.
            return self._reject("a draw cannot be offered before both sides have played a turn")
        try:
            outcome = play_turn(self.position, moves, longest=self.packed.longest if self.packed else None)
        except IllegalTurn as illegal:
            return self._reject(f"illegal turn: {illegal.reason}")
        if self.clock is not None and self.clock.running is not None and self.clock.stop(now, completed_turn=True) <= 0:
            self.end(self._decided(Termination.TIMEOUT, winner=seat.other()), now)
            return self._reject("time ran out before the turn arrived")
        self.played.add(seat)
        # A turn that ends the game (a king taken) offers nothing: no answer could follow it.
        offer_draw = offer_draw and outcome.end is None
        self._record_turn(seat, outcome.moves, outcome.after, draw_offer=offer_draw)
        if outcome.end is not None:
            termination = outcome.end.termination  # the rules decide KING_CAPTURED or NO_PROGRESS
            winner = None if outcome.end.winner is None else (WHITE if outcome.end.winner else BLACK)
            self.end(self._decided(termination, winner=winner), now)
            return Verdict(True, self.version - 1)
        verdict = Verdict(True, self.version)
        self._start_turn(now)
        if offer_draw:
            self.draw_offer_from = seat
            self.draw_blocked.discard(seat.other())
            self.phase = RoomPhase.DRAW_ANSWER
        else:
            self._roll(now)
        return verdict

    def _answer_draw(self, seat: Seat, accept: bool, now: float) -> Verdict:
        if self.phase is not RoomPhase.DRAW_ANSWER or self.draw_offer_from != seat.other():
            return self._reject("there is no draw offer to answer")
        offerer, self.draw_offer_from = self.draw_offer_from, None
        if accept:
            self.end(self._decided(Termination.DRAW_AGREEMENT, winner=None), now)
            return Verdict(True, self.version)
        self.draw_blocked.add(offerer)
        # The offer was the last turn's (its answer comes before the next roll): a Snapshot,
        # the durable record and the archive say it was declined, as the event does.
        self.history[-1] = attrs.evolve(self.history[-1], draw_declined=True)
        self._publish(lambda v: DrawDeclined(v=v, seat=seat))
        verdict = Verdict(True, self.version)
        self._roll(now)
        return verdict

    # ----- turn flow ------------------------------------------------------------------------

    def _start_turn(self, now: float) -> None:
        self.idle_since = now
        if self.clock is not None and not self._first_move_due(self.active_seat):
            self.clock.start(self.active_seat, now)

    def _roll(self, now: float) -> None:
        """Roll for the active seat: done by `roll_dice` and `settle_roll` before the version
        commits, as the roll's tree may be computed in a worker process."""
        self.roll_due = now

    def roll_dice(self) -> Position:
        """Roll the dice due: the position whose tree `settle_roll` needs."""
        assert self.roll_due is not None, "no roll is due"
        if self.ply == 0:
            self.fairness = self.fairness.freeze_client_seeds()
            self.seed_deadline = None
            self._start_turn(self.roll_due)
        dice = self.fairness.roll(self.ply)
        self.ply += 1
        self.rolled = tuple(dice)
        self.position = self.position.with_dice(dice)
        return self.position

    def settle_roll(self, packed: PackedTree) -> None:
        """The tree of the roll just made: the seat plays it, or, without legal moves, passes at
        once for free and the other seat's roll is due."""
        assert self.roll_due is not None, "no roll is due"
        now = self.roll_due
        self.packed = packed
        self.phase = RoomPhase.PLAYING
        seat = self.active_seat
        inline = packed.inline()
        clocks = self.clock.read(now) if self.clock else None
        rolled, dfen = self.rolled, self._dfen(self.position)
        self._publish(
            lambda v: DiceRolled(v=v, seat=seat, dice=rolled, dfen=dfen, clocks=clocks, legal_moves=inline)
        )
        if packed.turns:
            self.roll_due = None
            return
        # Forced pass: no clock time is charged for it and no increment is earned.
        if self.clock is not None and self.clock.running is not None:
            self.clock.stop(now, completed_turn=False)
        outcome = play_turn(self.position, (), longest=0)
        self._record_turn(seat, (), outcome.after, draw_offer=False)
        self._start_turn(now)

    def _record_turn(self, seat: Seat, moves: tuple[str, ...], after: Position, *, draw_offer: bool) -> None:
        fen_after = self._dfen(after)
        if moves:
            self.counters.turns += 1
        self.history.append(HistoryTurn(seat=seat, dice=self.rolled, moves=moves, fen_after=fen_after, draw_offer=draw_offer))
        self.position = after
        self.packed = None
        self._publish(lambda v: TurnPlayed(v=v, seat=seat, moves=moves, fen_after=fen_after, draw_offer=draw_offer))

    def credit(self, stall: float) -> None:
        """`stall` seconds the server spent writing: given back to the seat on the clock."""
        if self.clock is not None and stall > 0 and (self.refused is None or self.refused != self.clock.running):
            # The mover does not pay for the server's writes, except for the write of its own
            # refused command: sending refused moves must not stop the mover's clock.
            self.clock.credit(stall)

    # ----- the end --------------------------------------------------------------------------

    def _decided(self, termination: Termination, *, winner: Seat | None) -> Ending:
        """A result, unless both seats have not yet played a turn: then it is an abort, caused
        by the seat that resigned, ran out of time or stayed away (the would-be loser)."""
        if termination is not Termination.KING_CAPTURED and len(self.played) < 2:
            cause = _EARLY_ABORTS.get(termination)
            if cause is None or winner is None:
                raise AssertionError(f"no abort for {termination} before both seats have played")
            loser = winner.other()
            if cause == "disconnect" and loser in self._never_taken():
                cause = "not_joined"  # its claim grace ran out: nobody ever took the seat
            return Ending(Termination.ABORTED, None, abort=Abort(cause, loser))
        return Ending(termination, winner)

    def end(self, ending: Ending, now: float) -> None:
        if self.clock is not None and self.clock.running is not None:
            self.clock.stop(now, completed_turn=False)
        self.ending = attrs.evolve(ending, at=self.wall_clock())
        self.counters.games_ended += 1
        self.phase = RoomPhase.ENDED
        self.packed = None
        self.position = self.position.without_dice()
        over = ending.over
        seed, client_seeds = self.fairness.seed.hex(), self._client_seeds_view()
        self._publish(lambda v: GameEnded(v=v, over=over, seed=seed, client_seeds=client_seeds))

    # ----- deadlines ------------------------------------------------------------------------

    def _never_taken(self) -> list[Seat]:
        """The seats nobody has taken yet (an API seat needs no connection to be taken)."""
        return [name for name, seat in self.seats.items() if not (seat.joined or seat.setup.always_present)]

    def _not_joined(self) -> Abort:
        """An abort for seats never taken: the one seat, or no seat when neither was taken."""
        missing = self._never_taken()
        return Abort("not_joined", missing[0] if len(missing) == 1 else None)

    def _both_gone(self) -> Abort:
        """Why a game both of whose seats are gone at once is aborted: both left, or one or both
        never came."""
        return self._not_joined() if self._never_taken() else Abort("both_away")

    def _all_joined(self) -> bool:
        return not self._never_taken()

    def _ready_to_begin(self) -> bool:
        """A friend game begins once each seat has connected; a successor only while both
        are connected at once (no game starts against a player known to be away)."""
        if self.setup.successor:
            return all(seat.connections > 0 for seat in self.seats.values())
        return self._all_joined()

    def _join_window(self) -> float:
        """Seconds left to join: a successor's absolute deadline, else the friend window."""
        if self.setup.join_deadline_at is None:
            return self.setup.join_window_s
        return max(0.0, seconds_between(self.wall_clock(), self.setup.join_deadline_at))

    def join_window_closed(self, now: float) -> bool:
        return self.join_deadline is not None and now >= self.join_deadline

    def next_deadline(self) -> float:
        candidates = [self.join_deadline, self.seed_deadline]
        if self.clock is not None and self.phase in TURN_PHASES:
            candidates.append(self.clock.flag_at())
        candidates.append(self._idle_deadline())
        candidates.append(self.first_move_deadline())
        candidates.extend(seat.grace_until for seat in self.seats.values())
        return min((c for c in candidates if c is not None), default=math.inf)

    def _idle_deadline(self) -> float | None:
        """Unlimited games with an idle forfeit: when the seat to move loses for not playing."""
        if self.setup.idle_forfeit_s is None or self.clock is not None or self.idle_since is None:
            return None
        if self.phase not in TURN_PHASES:
            return None
        return self.idle_since + self.setup.idle_forfeit_s

    def _first_move_due(self, seat: Seat) -> bool:
        """Whether the seat's roll is its first turn under the first-move limit: a person's seat
        that has not played a turn yet, in a game with the limit. Such a turn is not on the
        clock (the clock starts with the seat's second turn, as on other chess servers); the
        limit stands in for it."""
        return self.setup.first_move_s is not None and seat not in self.played and not self.seats[seat].setup.always_present

    def first_move_deadline(self) -> float | None:
        """When the game is aborted unless the seat to move plays: a person's seat whose roll is
        its first turn, in a game with a first-move limit (`RoomSetup.first_move_s`)."""
        if self.setup.first_move_s is None or self.idle_since is None or self.phase is not RoomPhase.PLAYING:
            return None
        if not self._first_move_due(self.active_seat):
            return None
        return self.idle_since + self.setup.first_move_s

    def on_deadline(self, now: float) -> None:
        if self.join_deadline is not None and now >= self.join_deadline:
            present = [name for name, seat in self.seats.items() if seat.connections > 0]
            if self.setup.successor and len(present) == 1:
                # The first-join deadline passed with one seat here: it wins, the other loses.
                self.end(Ending(Termination.DISCONNECT, present[0]), now)
            else:
                # A rematch neither seat ever joined is a technical abort; a friend game whose
                # seats were not all taken in time simply never began.
                if self.setup.successor:
                    self.end(Ending(Termination.ABORTED, None, technical=True), now)
                else:
                    self.end(Ending(Termination.ABORTED, None, abort=self._not_joined()), now)
            return
        if self.seed_deadline is not None and now >= self.seed_deadline:
            if self._claims_awaited():
                # A person's seat not taken yet: the first roll waits for them (their share of
                # the dice comes with their page), at most until the claim grace decides.
                self.seed_deadline = None
                return
            self._roll(now)
            return
        flag_at = self.clock.flag_at() if self.clock is not None else None
        if flag_at is not None and now >= flag_at and self.phase in TURN_PHASES:
            self.end(self._decided(Termination.TIMEOUT, winner=self.active_seat.other()), now)
            return
        idle_at = self._idle_deadline()
        if idle_at is not None and now >= idle_at:
            self.end(self._decided(Termination.TIMEOUT, winner=self.active_seat.other()), now)
            return
        first_move_at = self.first_move_deadline()
        if first_move_at is not None and now >= first_move_at:
            # A seat away when its first move runs out left the game, rather than sat at it.
            seat = self.active_seat
            cause: AbortCause = "first_move" if self.seats[seat].connections > 0 else "disconnect"
            self.end(Ending(Termination.ABORTED, None, abort=Abort(cause, seat)), now)
            return
        gone = [name for name, seat in self.seats.items() if seat.grace_until is not None and now >= seat.grace_until]
        if len(gone) == len(self.seats):
            # Both seats away past their grace at once: no result may depend on seat order.
            self.end(Ending(Termination.ABORTED, None, abort=self._both_gone()), now)
        elif gone:
            self.end(self._decided(Termination.DISCONNECT, winner=gone[0].other()), now)
