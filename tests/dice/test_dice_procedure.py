"""The roll procedure of spec/dice.md, byte by byte."""

from __future__ import annotations

import hashlib
import hmac
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsite.dice import (
    PLY_MAX,
    PROCEDURE_VERSION,
    REJECT_FROM,
    SEED_BYTES,
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

VECTOR_3_SEED = hashlib.sha256(b"vector-3").digest()

seeds = st.binary(min_size=SEED_BYTES, max_size=SEED_BYTES)
client_texts = st.text(max_size=40)
plies = st.integers(min_value=0, max_value=PLY_MAX)


def test_constants_match_the_spec():
    assert (SEED_BYTES, PROCEDURE_VERSION, REJECT_FROM) == (32, 1, 252)


# --- golden vectors, written down literally from spec/dice.md ----------------------------


def test_golden_vector_1_bytes_0_to_31():
    seed = bytes(range(32))
    assert seed.hex() == "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    assert commitment(seed) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert roll(seed, "", "", 0) == (3, 4, 5)
    assert roll(seed, "", "", 1) == (3, 3, 1)
    assert roll(seed, "", "", 2) == (6, 2, 5)
    assert roll(seed, "", "", 98) == (6, 6, 1)


def test_golden_vector_2_ff_seed_with_unicode_white_seed():
    seed = b"\xff" * 32
    white = "alice's seed \u2713"
    assert commitment(seed) == "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051"
    assert roll(seed, white, "", 0) == (4, 2, 3)
    assert roll(seed, white, "", 1) == (3, 4, 6)
    assert roll(seed, white, "", 41) == (6, 2, 3)


def test_golden_vector_3_sha256_of_vector_3():
    white, black = "f3a1c0de9b8a7c6d", "b27c00ffee112233"
    assert (
        commitment(VECTOR_3_SEED)
        == "21de1b24cafa4995f53fcb84587aaac68e2ed6ff3f4123fcca58acd51af5c773"
    )
    assert roll(VECTOR_3_SEED, white, black, 0) == (4, 6, 3)
    assert roll(VECTOR_3_SEED, white, black, 7) == (2, 5, 4)


# --- commitment ------------------------------------------------------------------------


@given(seeds)
def test_commitment_is_lowercase_hex_sha256(seed):
    commit = commitment(seed)
    assert commit == hashlib.sha256(seed).hexdigest()
    assert commit == commit.lower() and len(commit) == 64


# --- framing ---------------------------------------------------------------------------


def test_message_layout_u32be_lengths_utf8_bytes_i64be_ply():
    message = roll_message("\u2713a", "", 258)
    assert message == (
        b"\x00\x00\x00\x04" + "\u2713a".encode() + b"\x00\x00\x00\x00"
        + b"\x00\x00\x00\x00\x00\x00\x01\x02"
    )


def test_length_prefix_counts_utf8_bytes_not_characters():
    white = "\U0001f3b2" * 16  # 16 characters, 64 bytes
    assert roll_message(white, "", 0)[:4] == struct.pack(">I", 64)


def test_length_prefix_makes_the_seed_split_part_of_the_message():
    seed = VECTOR_3_SEED
    # Same concatenation, byte moved from White's seed to Black's: a different roll.
    assert roll_message("abcdefghijklmnopX", "0123456789abcdef", 0) != roll_message(
        "abcdefghijklmnop", "X0123456789abcdef", 0
    )
    assert roll(seed, "abcdefghijklmnopX", "0123456789abcdef", 0) == (6, 2, 6)
    assert roll(seed, "abcdefghijklmnop", "X0123456789abcdef", 0) == (1, 6, 2)


def test_swapping_seats_changes_the_roll():
    assert roll(VECTOR_3_SEED, "f3a1c0de9b8a7c6d", "b27c00ffee112233", 0) == (4, 6, 3)
    assert roll(VECTOR_3_SEED, "b27c00ffee112233", "f3a1c0de9b8a7c6d", 0) == (6, 6, 6)


def _parse_message(message: bytes) -> tuple[str, str, int]:
    (white_len,) = struct.unpack_from(">I", message, 0)
    white = message[4 : 4 + white_len]
    offset = 4 + white_len
    (black_len,) = struct.unpack_from(">I", message, offset)
    black = message[offset + 4 : offset + 4 + black_len]
    offset += 4 + black_len
    (ply,) = struct.unpack_from(">q", message, offset)
    assert offset + 8 == len(message)
    return white.decode(), black.decode(), ply


@given(client_texts, client_texts, plies)
def test_message_framing_is_unambiguous(white, black, ply):
    # The message parses back to exactly its inputs, so two different inputs can never
    # share a message (and so can never be steered into the same digest).
    assert _parse_message(roll_message(white, black, ply)) == (white, black, ply)


def test_no_unicode_normalisation():
    composed, decomposed = "caf\u00e9 au lait 12345", "cafe\u0301 au lait 12345"
    assert roll_message(composed, "", 0) != roll_message(decomposed, "", 0)


# --- digests and rejection sampling ------------------------------------------------------


def test_digest_blocks_are_hmac_over_message_and_i32be_block():
    seed, message = VECTOR_3_SEED, roll_message("w" * 16, "b" * 16, 5)
    stream = roll_digests(seed, message)
    for block in range(3):
        expected = hmac.new(seed, message + struct.pack(">i", block), hashlib.sha256).digest()
        assert next(stream) == expected


def test_roll_is_dice_from_digests_of_the_message():
    seed = bytes(range(32))
    assert roll(seed, "", "", 98) == dice_from_digests(roll_digests(seed, roll_message("", "", 98)))


def test_accepted_byte_maps_to_b_mod_6_plus_1():
    assert dice_from_digests([bytes([0, 5, 6])]) == (1, 6, 1)
    assert dice_from_digests([bytes([251, 250, 249])]) == (6, 5, 4)


def test_rejection_sampling_skips_bytes_252_and_above():
    digest = bytes([252, 253, 254, 255, 7, 255, 8, 9, 10])
    assert dice_from_digests([digest]) == (2, 3, 4)


def test_rejection_sampling_keeps_251():
    assert dice_from_digests([bytes([251, 252, 251, 251])]) == (6, 6, 6)


def test_roll_continues_into_the_next_digest_block():
    block0 = bytes([255] * 30 + [0, 252])  # one die in block 0
    block1 = bytes([253, 1, 254, 2] + [255] * 28)
    assert dice_from_digests([block0, block1]) == (1, 2, 3)


def test_roll_reads_the_next_block_only_when_needed():
    def blocks():
        yield bytes([1, 2, 3] + [0] * 29)
        raise AssertionError("block 1 must not be computed")

    assert dice_from_digests(blocks()) == (2, 3, 4)


def test_running_out_of_digests_is_an_error_not_a_short_roll():
    with pytest.raises(DiceError, match="1 of 3 dice"):
        dice_from_digests([bytes([255] * 31 + [0])])


def test_rejection_vector_from_a_real_digest():
    # From specs/dice/vectors-v1.json "rejection": digest fdfd81fffd8aa5..., four bytes skipped.
    seed = hashlib.sha256(b"playsite dice vector: rejection").digest()
    digest = next(roll_digests(seed, roll_message("", "", 621714)))
    assert digest[:7].hex() == "fdfd81fffd8aa5"
    assert roll(seed, "", "", 621714) == (0x81 % 6 + 1, 0x8A % 6 + 1, 0xA5 % 6 + 1) == (4, 1, 4)


@given(seeds, client_texts, client_texts, plies)
def test_roll_is_three_faces(seed, white, black, ply):
    dice = roll(seed, white, black, ply)
    assert len(dice) == 3 and all(1 <= d <= 6 for d in dice)


# --- invalid inputs --------------------------------------------------------------------


@pytest.mark.parametrize("seed", [b"", b"\x00" * 31, b"\x00" * 33, "00" * 32, None])
def test_seed_must_be_32_bytes(seed):
    with pytest.raises(InvalidSeed):
        roll(seed, "", "", 0)
    with pytest.raises(InvalidSeed):
        commitment(seed)


@pytest.mark.parametrize("ply", [-1, PLY_MAX + 1, 1.0, True, "0", None])
def test_ply_must_be_an_int_in_i64_range(ply):
    with pytest.raises(InvalidPly):
        roll(bytes(32), "", "", ply)


def test_largest_ply_is_accepted():
    assert roll_message("", "", PLY_MAX)[-8:] == b"\x7f" + b"\xff" * 7


@pytest.mark.parametrize("client_seed", [None, b"bytes-are-not-text", "\ud800 lone surrogate"])
def test_client_seed_must_be_utf8_encodable_text(client_seed):
    with pytest.raises(InvalidClientSeed):
        roll(bytes(32), client_seed, "", 0)
    with pytest.raises(InvalidClientSeed):
        roll(bytes(32), "", client_seed, 0)
