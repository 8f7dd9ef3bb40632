"""Admission: the one step every game creation passes, with a purpose.

    reservation = admission.reserve(Purpose.GENERAL, participants)  # atomic check + hold
    ... create the room, commit its creation durably ...
    reservation.commit()    # now an active admission, held until the room is deregistered
    ...
    reservation.release()   # exactly once, whatever happened (idempotent)

A provisional reservation lapses after its 5 s lease if it is never committed, so a
creation that hangs cannot hold a bot's capacity forever. The capacity check and the
reservation happen in one synchronous step (no await between them), which is what makes
them atomic on trio's single thread. service.md rule 11: this state is process-local.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable

import attrs
import trio

ADMISSION_LEASE_S = 5
"""service.md Limits: a provisional reservation's lease."""
FEATURED_BOT_CAPACITY = 3
FEATURED_GENERAL_MAX = 2
FEATURED_SHOWCASE_MAX = 1


class Purpose(enum.Enum):
    GENERAL = "general"
    SHOWCASE = "showcase"


@attrs.frozen
class Limits:
    """How many games a participant may be in at once, in total and per purpose."""

    total: int
    per_purpose: dict[Purpose, int] = attrs.field(factory=dict)

    def allows(self, purpose: Purpose, total_now: int, purpose_now: int) -> bool:
        bound = self.per_purpose.get(purpose, self.total)
        return total_now < self.total and purpose_now < bound

    @classmethod
    def bot(cls, max_concurrent_games: int) -> Limits:
        """An ordinary bot: its declaration, all of it general, none of it showcase."""
        return cls(max_concurrent_games, {Purpose.GENERAL: max_concurrent_games, Purpose.SHOWCASE: 0})

    @classmethod
    def featured_bot(cls, declared: int = FEATURED_BOT_CAPACITY) -> Limits:
        """service.md: the featured bot declares 3: general at most 2, showcase at most 1, no
        borrowing. A smaller declaration shrinks the general share first (the showcase seat is
        the reason the bot is featured): 2 -> general 1, 1 -> general 0; a larger one is capped."""
        total = max(0, min(declared, FEATURED_BOT_CAPACITY))
        showcase = min(FEATURED_SHOWCASE_MAX, total)
        return cls(
            total,
            {Purpose.GENERAL: min(FEATURED_GENERAL_MAX, total - showcase), Purpose.SHOWCASE: showcase},
        )


LimitsOf = Callable[[str], "Limits | None"]
"""Participant -> its limits, or None for participants without a bound (humans)."""


class AdmissionRefused(Exception):
    """No room for this game now; `participant` is the one at capacity."""

    def __init__(self, participant: str, purpose: Purpose):
        super().__init__(f"{participant} has no free {purpose.value} capacity")
        self.participant = participant
        self.purpose = purpose


class _State(enum.Enum):
    PROVISIONAL = "provisional"
    ACTIVE = "active"
    RELEASED = "released"


class Reservation:
    def __init__(self, admission: Admission, purpose: Purpose, participants: tuple[str, ...], expires_at: float):
        self._admission = admission
        self.purpose = purpose
        self.participants = participants
        self.expires_at = expires_at
        self._state = _State.PROVISIONAL

    @property
    def active(self) -> bool:
        return self._state is _State.ACTIVE

    @property
    def released(self) -> bool:
        return self._state is _State.RELEASED

    def holds(self, now: float) -> bool:
        """Counts against capacity: committed, or provisional within its lease."""
        return self._state is _State.ACTIVE or (self._state is _State.PROVISIONAL and now < self.expires_at)

    def commit(self) -> None:
        """Turn the hold into an active admission; refused if the lapsed lease lost its place."""
        if self._state is not _State.PROVISIONAL:
            raise RuntimeError(f"cannot commit a {self._state.value} reservation")
        self._admission._activate(self)

    def release(self) -> bool:
        """Give the capacity back. Exactly once: later calls do nothing and return False."""
        if self._state is _State.RELEASED:
            return False
        self._state = _State.RELEASED
        self._admission._forget(self)
        return True


class Admission:
    def __init__(self, limits_of: LimitsOf):
        self.limits_of = limits_of
        self._held: set[Reservation] = set()

    def reserve(self, purpose: Purpose, participants: Iterable[str]) -> Reservation:
        """Atomically check every participant's capacity and hold a place for 5 s."""
        participants = tuple(dict.fromkeys(participants))
        self._check(purpose, participants)
        reservation = Reservation(self, purpose, participants, trio.current_time() + ADMISSION_LEASE_S)
        self._held.add(reservation)
        return reservation

    def restore(self, purpose: Purpose, participants: Iterable[str]) -> Reservation:
        """At boot: an admission for a resumed room, active at once and never refused
        (a reduced declaration blocks new games, it never ends running ones)."""
        reservation = Reservation(self, purpose, tuple(dict.fromkeys(participants)), trio.current_time())
        reservation._state = _State.ACTIVE
        self._held.add(reservation)
        return reservation

    def occupancy(self, participant: str, *, ignoring: Reservation | None = None) -> dict[Purpose, int]:
        """Games per purpose that count against `participant` right now."""
        now = trio.current_time()
        counts = {purpose: 0 for purpose in Purpose}
        for reservation in self._held:
            if reservation is not ignoring and participant in reservation.participants and reservation.holds(now):
                counts[reservation.purpose] += 1
        return counts

    def _check(self, purpose: Purpose, participants: tuple[str, ...], ignoring: Reservation | None = None) -> None:
        for participant in participants:
            limits = self.limits_of(participant)
            if limits is None:
                continue
            counts = self.occupancy(participant, ignoring=ignoring)
            if not limits.allows(purpose, sum(counts.values()), counts[purpose]):
                raise AdmissionRefused(participant, purpose)

    def _activate(self, reservation: Reservation) -> None:
        if trio.current_time() >= reservation.expires_at:
            # The lease lapsed: its place may have been taken meanwhile, so ask again.
            self._check(reservation.purpose, reservation.participants, ignoring=reservation)
        reservation._state = _State.ACTIVE
        self._held.add(reservation)

    def _forget(self, reservation: Reservation) -> None:
        self._held.discard(reservation)
        self._sweep()

    def _sweep(self) -> None:
        """Drop lapsed provisional holds so the set does not grow without bound."""
        now = trio.current_time()
        self._held = {r for r in self._held if r.holds(now) or r.active}
