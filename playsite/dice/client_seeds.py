"""Client seeds: what each seat may add to the dice, and when it is ignored.

Each seat may contribute one seed of 16..256 characters after the commitment is published
and before the game's first roll. A duplicate, late or malformed submission is ignored,
never an error that changes the game; `ClientSeeds.judge` says which of these it was, so
callers can count or report it without deciding it themselves.
"""

from __future__ import annotations

import enum
from typing import Literal

import attrs

CLIENT_SEED_MIN = 16  # characters (Unicode code points), not bytes
CLIENT_SEED_MAX = 256

Seat = Literal["White", "Black"]
SEATS: tuple[Seat, Seat] = ("White", "Black")


class UnknownSeat(ValueError):
    """A seat other than "White" or "Black" was named: a caller bug, not a client's fault."""


class SeedVerdict(enum.Enum):
    """What happens to one client-seed submission."""

    ACCEPTED = "accepted"
    LATE = "late"  # the seeds were already frozen by the first roll
    DUPLICATE = "duplicate"  # this seat already contributed a seed
    MALFORMED = "malformed"  # not a str, wrong length, or not encodable as UTF-8


def is_valid_client_seed(value: object) -> bool:
    """True for a str of 16..256 characters that UTF-8 can encode.

    Lone surrogates (which a JSON decoder can produce from ``"\\ud800"``) cannot be encoded
    and so could never be rolled with; they are malformed like any other bad value.
    """
    if not isinstance(value, str) or not CLIENT_SEED_MIN <= len(value) <= CLIENT_SEED_MAX:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _empty_or_valid(instance: object, attribute: attrs.Attribute[str], value: object) -> None:
    if value != "" and not is_valid_client_seed(value):
        raise ValueError(
            f"ClientSeeds.{attribute.name} must be '' or {CLIENT_SEED_MIN}..{CLIENT_SEED_MAX} "
            f"characters of UTF-8-encodable text, got {value!r:.80}"
        )


@attrs.frozen
class ClientSeeds:
    """The two seats' client seeds; '' for a seat that contributed nothing."""

    white: str = attrs.field(default="", validator=_empty_or_valid)
    black: str = attrs.field(default="", validator=_empty_or_valid)
    frozen: bool = attrs.field(default=False, kw_only=True)
    """Set at the game's first roll; afterwards every submission is late."""

    def for_seat(self, seat: Seat) -> str:
        return self.white if _check_seat(seat) == "White" else self.black

    def judge(self, seat: Seat, value: object) -> SeedVerdict:
        """What `submit` would do with `value` for `seat`, and why."""
        current = self.for_seat(seat)
        if self.frozen:
            return SeedVerdict.LATE
        if current:
            return SeedVerdict.DUPLICATE
        if not is_valid_client_seed(value):
            return SeedVerdict.MALFORMED
        return SeedVerdict.ACCEPTED

    def submit(self, seat: Seat, value: object) -> ClientSeeds:
        """The seeds with `value` recorded for `seat`, or `self` unchanged if it is ignored."""
        if self.judge(seat, value) is not SeedVerdict.ACCEPTED:
            return self
        assert isinstance(value, str)
        if seat == "White":
            return attrs.evolve(self, white=str(value))
        return attrs.evolve(self, black=str(value))

    def freeze(self) -> ClientSeeds:
        """The seeds as used from the first roll on; later submissions are late."""
        return self if self.frozen else attrs.evolve(self, frozen=True)

    def to_json(self) -> dict[str, str]:
        """The wire shape ``{"white": ..., "black": ...}`` of `clientSeeds`."""
        return {"white": self.white, "black": self.black}


def _check_seat(seat: object) -> Seat:
    if seat == "White":
        return "White"
    if seat == "Black":
        return "Black"
    raise UnknownSeat(f"seat must be 'White' or 'Black', got {seat!r}")
