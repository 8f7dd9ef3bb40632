"""The dice procedure, version 1: commitment and the derivation of one roll.

Everything here is a pure function of its arguments. The byte layout is fixed by
/work/shared/spec/dice.md and published in docs/dice.md; changing any byte of it is a new
procedure version (new vectors, verifier and docs in the same change).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import struct
from collections.abc import Iterable, Iterator

PROCEDURE_VERSION = 1
SEED_BYTES = 32
DICE_PER_ROLL = 3
DIE_FACES = 6
# The largest multiple of 6 that fits in a byte is 252: bytes 0..251 map evenly onto the six
# faces (42 each); 252..255 would favour faces 1-4, so they are skipped.
REJECT_FROM = 252
PLY_MAX = 2**63 - 1  # ply travels as a signed 64-bit big-endian integer
BLOCK_MAX = 2**31 - 1  # the block counter travels as a signed 32-bit big-endian integer

Dice = tuple[int, int, int]


class DiceError(ValueError):
    """An argument the procedure cannot roll with; says which one and why."""


class InvalidSeed(DiceError):
    """The server seed is not `SEED_BYTES` bytes."""


class InvalidPly(DiceError):
    """The ply is not an integer in 0..PLY_MAX."""


class InvalidClientSeed(DiceError):
    """A client seed handed to the procedure is not a str encodable as UTF-8."""


def commitment(seed: bytes) -> str:
    """The published commitment to `seed`: lowercase hex SHA-256 of the seed bytes."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def roll_message(white_seed: str, black_seed: str, ply: int) -> bytes:
    """The HMAC message for one roll, without the block counter.

    ``u32be(len(white)) ‖ white ‖ u32be(len(black)) ‖ black ‖ i64be(ply)``, lengths in
    UTF-8 bytes. The length prefixes make the split between the two seeds part of the
    message, so moving bytes from one seed to the other changes it.
    """
    white = _encode_client_seed("white", white_seed)
    black = _encode_client_seed("black", black_seed)
    _check_ply(ply)
    return (
        struct.pack(">I", len(white))
        + white
        + struct.pack(">I", len(black))
        + black
        + struct.pack(">q", ply)
    )


def roll_digests(seed: bytes, message: bytes) -> Iterator[bytes]:
    """HMAC-SHA256(key=seed, msg=message ‖ i32be(block)) for block = 0, 1, 2, ..."""
    _check_seed(seed)
    for block in range(BLOCK_MAX + 1):
        yield hmac.digest(seed, message + struct.pack(">i", block), "sha256")


def dice_from_digests(digests: Iterable[bytes]) -> Dice:
    """Scan digest bytes in order: ``b < 252`` gives the die ``b % 6 + 1``, others are skipped.

    Stops at the third die; moves on to the next digest when one runs out.
    """
    dice: list[int] = []
    for byte in itertools.chain.from_iterable(digests):
        if byte < REJECT_FROM:
            dice.append(byte % DIE_FACES + 1)
            if len(dice) == DICE_PER_ROLL:
                return (dice[0], dice[1], dice[2])
    raise DiceError(f"digests ran out after {len(dice)} of {DICE_PER_ROLL} dice")


def roll(seed: bytes, white_seed: str, black_seed: str, ply: int) -> Dice:
    """The three dice of the roll at `ply`, in the order they were found."""
    return dice_from_digests(roll_digests(seed, roll_message(white_seed, black_seed, ply)))


def _check_seed(seed: object) -> None:
    if not isinstance(seed, (bytes, bytearray, memoryview)):
        raise InvalidSeed(f"seed must be bytes, not {type(seed).__name__}")
    if len(seed) != SEED_BYTES:
        raise InvalidSeed(f"seed must be {SEED_BYTES} bytes, got {len(seed)}")


def _check_ply(ply: object) -> None:
    if isinstance(ply, bool) or not isinstance(ply, int):
        raise InvalidPly(f"ply must be an int, not {type(ply).__name__}")
    if not 0 <= ply <= PLY_MAX:
        raise InvalidPly(f"ply must be in 0..{PLY_MAX}, got {ply}")


def _encode_client_seed(seat: str, value: object) -> bytes:
    if not isinstance(value, str):
        raise InvalidClientSeed(f"{seat} client seed must be a str, not {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidClientSeed(
            f"{seat} client seed is not encodable as UTF-8: {exc.reason}"
        ) from None
