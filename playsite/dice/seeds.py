"""Where server seeds come from: the OS CSPRNG in production, a fixed list in tests."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from playsite.dice.procedure import SEED_BYTES, InvalidSeed


@runtime_checkable
class SeedSource(Protocol):
    """Hands out one fresh `SEED_BYTES`-byte server seed per game."""

    def new_seed(self) -> bytes: ...


class SystemSeedSource:
    """Seeds from the operating system's CSPRNG (`secrets.token_bytes`)."""

    def new_seed(self) -> bytes:
        return secrets.token_bytes(SEED_BYTES)

    def __repr__(self) -> str:
        return "SystemSeedSource()"


class SeedSourceExhausted(RuntimeError):
    """A `FixedSeedSource` was asked for more seeds than it was given."""


class FixedSeedSource:
    """Hands out the given seeds in order, for tests; then raises `SeedSourceExhausted`.

    Every seed is checked up front, so a wrong-sized test seed fails where it is written.
    """

    def __init__(self, seeds: Iterable[bytes]) -> None:
        self._seeds = [bytes(seed) for seed in seeds]
        for index, seed in enumerate(self._seeds):
            if len(seed) != SEED_BYTES:
                raise InvalidSeed(f"fixed seed #{index} is {len(seed)} bytes, not {SEED_BYTES}")
        self._handed_out = 0

    @property
    def remaining(self) -> int:
        """How many seeds are left."""
        return len(self._seeds) - self._handed_out

    def new_seed(self) -> bytes:
        if self._handed_out == len(self._seeds):
            raise SeedSourceExhausted(
                f"FixedSeedSource ran out: all {len(self._seeds)} given seeds were handed out"
            )
        seed = self._seeds[self._handed_out]
        self._handed_out += 1
        return seed

    def __repr__(self) -> str:
        # Never print the seeds themselves: in a test log they would still look like secrets.
        return f"FixedSeedSource(given={len(self._seeds)}, remaining={self.remaining})"
