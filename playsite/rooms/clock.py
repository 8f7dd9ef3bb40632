"""A game's chess clock: remaining milliseconds per seat, at most one side running.

Times are trio times (seconds, float) passed in by the room, so MockClock drives them in
tests. Flag detection is the room's deadline at `flag_at()`; `stop()` also reports an
overdraft in case a submission and the deadline race.
"""

from __future__ import annotations

import attrs

from playsite.wire import BLACK, WHITE, Clocks, Fischer, PerMove, Seat, SuddenDeath, TimeControl, Unlimited


@attrs.define
class GameClock:
    time_control: TimeControl
    remaining_ms: dict[Seat, int]
    running: Seat | None = None
    started_at: float | None = None

    @classmethod
    def for_control(cls, time_control: TimeControl) -> GameClock | None:
        """None for Unlimited: that game has no clock at all (rules.md)."""
        match time_control:
            case Unlimited():
                return None
            case Fischer(initial_seconds=initial) | SuddenDeath(initial_seconds=initial):
                budget = initial * 1000
            case PerMove(seconds_per_move=per_move):
                budget = per_move * 1000
            case _:
                raise TypeError(f"unknown time control {time_control!r}")
        return cls(time_control, {WHITE: budget, BLACK: budget})

    def start(self, seat: Seat, now: float) -> None:
        if isinstance(self.time_control, PerMove):
            self.remaining_ms[seat] = self.time_control.seconds_per_move * 1000
        self.running, self.started_at = seat, now

    def stop(self, now: float, *, completed_turn: bool) -> int:
        """Stop the running side; returns its remaining ms (<= 0 means it flagged)."""
        seat = self.running
        assert seat is not None and self.started_at is not None, "no clock is running"
        self.remaining_ms[seat] -= _elapsed_ms(self.started_at, now)
        if completed_turn and self.remaining_ms[seat] > 0 and isinstance(self.time_control, Fischer):
            self.remaining_ms[seat] += self.time_control.increment_seconds * 1000
        self.running = self.started_at = None
        return self.remaining_ms[seat]

    def flag_at(self) -> float | None:
        """The trio time at which the running side runs out, or None when stopped."""
        if self.running is None or self.started_at is None:
            return None
        return self.started_at + self.remaining_ms[self.running] / 1000

    def credit(self, seconds: float) -> None:
        """Give the running side back `seconds` (a persistence stall is not the mover's time)."""
        if self.started_at is not None:
            self.started_at += seconds

    def copy(self) -> GameClock:
        """A copy that later changes to this clock leave alone (a published view reads it)."""
        return attrs.evolve(self, remaining_ms=dict(self.remaining_ms))

    def read(self, now: float) -> Clocks:
        """Both clocks as they stand at `now`, the running one counting down live."""
        shown = dict(self.remaining_ms)
        if self.running is not None and self.started_at is not None:
            shown[self.running] = max(0, shown[self.running] - _elapsed_ms(self.started_at, now))
        return Clocks(white_ms=shown[WHITE], black_ms=shown[BLACK])


def _elapsed_ms(since: float, now: float) -> int:
    return max(0, round((now - since) * 1000))
