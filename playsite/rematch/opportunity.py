"""The rematch opportunity of one finished game: its phases and transitions, pure.

    opportunity = Opportunity.after(source_game_id, ended_at)        # `available`
    opportunity = opportunity.apply(seat, "propose", now)             # `offered`
    opportunity = opportunity.apply(other_seat, "accept", now)        # `starting`
    ... the service commits one successor ...
    opportunity = opportunity.matched(successor_id)                   # `matched`

Times are seconds on the server's wall clock (never a client's). This module decides, and
nothing else does:

1. Deadlines are absolute: `available` lasts until the source's end + OFFER_WINDOW_S; the
   first proposal starts `offered`, which lasts until that proposal + OFFER_WINDOW_S. A
   transition at or after the deadline is refused (equality refuses) and the opportunity is
   `closed`/`expired`, whether or not an expiry job ran (`at(now)`).
2. Nothing extends a deadline: a repeat, a read, a reconnect, a restart.
3. A repeated `propose` by the initiator reads back; it is not the other seat's consent.
4. `accept` (or a `propose` by the other seat) makes it `starting`; then nobody can withdraw.
5. `cancel` is the initiator's, `decline` the recipient's, both only while `offered`.
6. `matched` and `closed` are terminal: a new attempt on `closed` is RematchClosed (410); on
   `starting` or `matched` a repeated consent (`propose`, `accept`) reads back, a withdrawal
   (`cancel`, `decline`) is InvalidTransition (409).
7. Serialising the commands of one source (one writer) is the caller's job; given that, the
   first accept, decline, cancel or expiry wins because each sees the result of the last.
"""

from __future__ import annotations

import enum

import attrs

from playsite.wire import SEATS

OFFER_WINDOW_S = 15.0
ACTIONS = ("propose", "accept", "decline", "cancel")


class Phase(enum.Enum):
    AVAILABLE = "available"
    OFFERED = "offered"
    STARTING = "starting"
    MATCHED = "matched"
    CLOSED = "closed"


class ClosedReason(enum.Enum):
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    TECHNICAL_FAILURE = "technical_failure"
    RESTART = "restart"


class InvalidTransition(Exception):
    """409 invalid_transition: the action is not allowed in the current phase."""

    code = "invalid_transition"


class RematchClosed(Exception):
    """410 rematch_closed: an attempt to reopen a closed opportunity."""

    code = "rematch_closed"


@attrs.frozen
class Opportunity:
    source_game_id: str
    phase: Phase
    ended_at: float
    """The source game's authoritative end time."""
    proposed_at: float | None = None
    initiator: str | None = None
    consents: frozenset[str] = frozenset()
    closed_reason: ClosedReason | None = None
    successor_game_id: str | None = None

    @classmethod
    def after(cls, source_game_id: str, ended_at: float) -> Opportunity:
        return cls(source_game_id, Phase.AVAILABLE, ended_at)

    # ----- reading ------------------------------------------------------------------------------

    @property
    def deadline(self) -> float | None:
        if self.phase is Phase.AVAILABLE:
            return self.ended_at + OFFER_WINDOW_S
        if self.phase is Phase.OFFERED:
            assert self.proposed_at is not None, "an offer has its proposal's time"
            return self.proposed_at + OFFER_WINDOW_S
        return None

    def at(self, now: float) -> Opportunity:
        """The opportunity as it stands at `now`: past its deadline it is closed/expired."""
        deadline = self.deadline
        if deadline is not None and now >= deadline:
            return self._closed(ClosedReason.EXPIRED)
        return self

    def allowed_actions(self, seat: str, now: float) -> tuple[str, ...]:
        current = self.at(now)
        if current.phase is Phase.AVAILABLE:
            return ("propose",)
        if current.phase is Phase.OFFERED:
            return ("propose", "cancel") if seat == current.initiator else ("accept", "decline")
        return ()

    def consented(self, seat: str) -> bool:
        return seat in self.consents

    # ----- commands -----------------------------------------------------------------------------

    def apply(self, seat: str, action: str, now: float) -> Opportunity:
        """The opportunity after `seat` does `action` at `now`; raises InvalidTransition or
        RematchClosed (the state is then unchanged, apart from an expiry that happened)."""
        if seat not in SEATS or action not in ACTIONS:
            raise ValueError(f"unknown seat or action: {seat!r} {action!r}")
        current = self.at(now)
        if current.phase is Phase.CLOSED:
            assert current.closed_reason is not None, "a closed opportunity has its reason"
            raise RematchClosed(f"the opportunity is closed ({current.closed_reason.value})")
        if current.phase is Phase.AVAILABLE and action == "propose":
            return attrs.evolve(current, phase=Phase.OFFERED, proposed_at=now, initiator=seat, consents=frozenset({seat}))
        if current.phase in (Phase.STARTING, Phase.MATCHED) and action in ("propose", "accept"):
            return current  # both consented already: a repeat reads back (the same successor)
        if current.phase is Phase.OFFERED:
            proposer = seat == current.initiator
            if action == "propose" and proposer:
                return current  # a readback, not a second consent
            if action in ("accept", "propose") and not proposer:
                return attrs.evolve(current, phase=Phase.STARTING, consents=frozenset(SEATS))
            if action == "cancel" and proposer:
                return current._closed(ClosedReason.CANCELLED)
            if action == "decline" and not proposer:
                return current._closed(ClosedReason.DECLINED)
        raise InvalidTransition(f"{action} is not allowed while {current.phase.value}")

    def matched(self, successor_game_id: str) -> Opportunity:
        """The successor is committed: terminal, the same game for every later request."""
        if self.phase is not Phase.STARTING:
            raise InvalidTransition(f"no successor can be committed while {self.phase.value}")
        return attrs.evolve(self, phase=Phase.MATCHED, successor_game_id=successor_game_id)

    def failed(self, reason: ClosedReason) -> Opportunity:
        """`starting` without a committed successor: a creation failure, or a restart."""
        if self.phase is Phase.MATCHED:
            return self  # a committed successor always wins
        if self.phase not in (Phase.STARTING, Phase.OFFERED):
            return self
        return self._closed(reason)

    def _closed(self, reason: ClosedReason) -> Opportunity:
        return attrs.evolve(self, phase=Phase.CLOSED, closed_reason=reason)
