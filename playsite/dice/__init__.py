"""Provably fair dice: commit-reveal over HMAC-SHA256 (procedure version 1).

Pure: no I/O apart from drawing OS randomness through `SystemSeedSource`, no logging, no
imports from the rest of playsite. The procedure is published in docs/dice.md, its golden
vectors live in specs/dice/vectors-v1.json, and playsite/verifier.py re-implements it with
the standard library alone for third parties.

Typical room usage::

    fairness = Fairness.draw(SystemSeedSource())        # at creation; publish fairness.commit
    fairness = fairness.submit_client_seed("White", s)  # any time before the first roll
    fairness = fairness.freeze_client_seeds()           # at the first roll
    dice = fairness.roll(ply)                           # ply 0, 1, 2, ... (passes count)
    record["fairness"] = fairness.reveal()              # once the game has ended
"""

from playsite.dice.client_seeds import (
    CLIENT_SEED_MAX,
    CLIENT_SEED_MIN,
    SEATS,
    ClientSeeds,
    Seat,
    SeedVerdict,
    UnknownSeat,
    is_valid_client_seed,
)
from playsite.dice.fairness import ClientSeedsOpen, Fairness
from playsite.dice.procedure import (
    DICE_PER_ROLL,
    PLY_MAX,
    PROCEDURE_VERSION,
    REJECT_FROM,
    SEED_BYTES,
    Dice,
    DiceError,
    InvalidClientSeed,
    InvalidPly,
    InvalidSeed,
    commitment,
    dice_from_digests,
    roll,
    roll_digests,
    roll_message,
)
from playsite.dice.seeds import FixedSeedSource, SeedSource, SeedSourceExhausted, SystemSeedSource

__all__ = [
    "CLIENT_SEED_MAX",
    "CLIENT_SEED_MIN",
    "DICE_PER_ROLL",
    "PLY_MAX",
    "PROCEDURE_VERSION",
    "REJECT_FROM",
    "SEATS",
    "SEED_BYTES",
    "ClientSeeds",
    "ClientSeedsOpen",
    "Dice",
    "DiceError",
    "Fairness",
    "FixedSeedSource",
    "InvalidClientSeed",
    "InvalidPly",
    "InvalidSeed",
    "Seat",
    "SeedSource",
    "SeedSourceExhausted",
    "SeedVerdict",
    "SystemSeedSource",
    "UnknownSeat",
    "commitment",
    "dice_from_digests",
    "is_valid_client_seed",
    "roll",
    "roll_digests",
    "roll_message",
]
