"""One game's dice fairness: the secret seed, its commitment and the client seeds."""

from __future__ import annotations

from typing import Any

import attrs

from playsite.dice.client_seeds import ClientSeeds, Seat
from playsite.dice.procedure import SEED_BYTES, Dice, InvalidSeed, commitment, roll
from playsite.dice.seeds import SeedSource


class ClientSeedsOpen(RuntimeError):
    """A roll was asked for before the client seeds were frozen.

    Seeds freeze at the first roll, so the caller must `freeze_client_seeds()` first: rolling
    with seeds that could still change would make earlier rolls unverifiable.
    """


def _seed_bytes(instance: object, attribute: attrs.Attribute[bytes], value: object) -> None:
    if not isinstance(value, bytes) or len(value) != SEED_BYTES:
        raise InvalidSeed(f"Fairness.seed must be {SEED_BYTES} bytes")


@attrs.frozen
class Fairness:
    """Everything needed to roll a game's dice and later prove them.

    `seed` is the server secret: it is left out of `repr` so that logging a `Fairness` by
    accident does not leak it, and only `reveal()` ever encodes it.
    """

    seed: bytes = attrs.field(repr=False, validator=_seed_bytes)
    client_seeds: ClientSeeds = attrs.field(factory=ClientSeeds)

    @classmethod
    def draw(cls, source: SeedSource) -> Fairness:
        """A new game's fairness with a fresh seed from `source` and no client seeds."""
        return cls(seed=source.new_seed())

    @property
    def commit(self) -> str:
        """Lowercase hex SHA-256 of the seed, public from the game's creation on."""
        return commitment(self.seed)

    def submit_client_seed(self, seat: Seat, value: object) -> Fairness:
        """This fairness with the seat's client seed accepted, or `self` if it is ignored."""
        seeds = self.client_seeds.submit(seat, value)
        return self if seeds is self.client_seeds else attrs.evolve(self, client_seeds=seeds)

    def freeze_client_seeds(self) -> Fairness:
        """Call at the first roll: from here on client seeds cannot change."""
        if self.client_seeds.frozen:
            return self
        return attrs.evolve(self, client_seeds=self.client_seeds.freeze())

    def roll(self, ply: int) -> Dice:
        """The dice at `ply` (0 for the first roll, +1 per later roll, passes included)."""
        if not self.client_seeds.frozen:
            raise ClientSeedsOpen("freeze_client_seeds() before the first roll")
        return roll(self.seed, self.client_seeds.white, self.client_seeds.black, ply)

    def public(self) -> dict[str, Any]:
        """The fairness fields while the game is live: the commitment only."""
        return {"commit": self.commit, "seed": None, "clientSeeds": None}

    def reveal(self) -> dict[str, Any]:
        """The fairness fields once the game has ended (`HistoryFairness` shape)."""
        return {
            "commit": self.commit,
            "seed": self.seed.hex(),
            "clientSeeds": self.client_seeds.to_json(),
        }
