"""Regenerate specs/dice/vectors-v1.json from playsite.dice.

Run from the repository root:  .venv/bin/python specs/dice/generate_vectors.py

The three golden vectors of the decided spec are written down literally below and checked
against the implementation before anything is written, so the file is only ever produced by
an implementation that reproduces them. The edge cases are found by deterministic searches
(documented next to each), so running this again produces the same bytes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import pathlib
import re
import sys

from playsite.dice import (
    DICE_PER_ROLL,
    PROCEDURE_VERSION,
    REJECT_FROM,
    commitment,
    roll,
    roll_digests,
    roll_message,
)

OUT = pathlib.Path(__file__).with_name(f"vectors-v{PROCEDURE_VERSION}.json")

# (seed, white, black, commit, {ply: dice}) exactly as in the decided spec's table.
GOLDEN = [
    (
        bytes(range(32)),
        "",
        "",
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        {0: (3, 4, 5), 1: (3, 3, 1), 2: (6, 2, 5), 98: (6, 6, 1)},
    ),
    (
        b"\xff" * 32,
        "alice's seed \u2713",
        "",
        "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051",
        {0: (4, 2, 3), 1: (3, 4, 6), 41: (6, 2, 3)},
    ),
    (
        hashlib.sha256(b"vector-3").digest(),
        "f3a1c0de9b8a7c6d",
        "b27c00ffee112233",
        "21de1b24cafa4995f53fcb84587aaac68e2ed6ff3f4123fcca58acd51af5c773",
        {0: (4, 6, 3), 7: (2, 5, 4)},
    ),
]


def labelled_seed(label: str) -> bytes:
    """A reproducible 32-byte seed: SHA-256 of an ASCII label."""
    return hashlib.sha256(label.encode("ascii")).digest()


def trace(seed: bytes, white: str, black: str, ply: int) -> dict:
    """Intermediate values of one roll, for implementers hunting a framing bug."""
    message = roll_message(white, black, ply)
    digests, skipped, accepted = [], [], 0
    for digest in roll_digests(seed, message):
        digests.append(digest.hex())
        for byte in digest:
            if byte >= REJECT_FROM:
                skipped.append(f"{byte:02x}")
            else:
                accepted += 1
                if accepted == DICE_PER_ROLL:
                    break
        if accepted == DICE_PER_ROLL:
            break
    return {"messageHex": message.hex(), "digestsHex": digests, "skippedBytesHex": skipped}


def skipped_before_third_die(seed: bytes, white: str, black: str, ply: int) -> list[int]:
    return [int(b, 16) for b in trace(seed, white, black, ply)["skippedBytesHex"]]


def vector(
    vector_id: str,
    origin: str,
    note: str,
    seed: bytes,
    white: str,
    black: str,
    plies: list[int],
    traced: tuple[int, ...] = (),
) -> dict:
    rolls = []
    for ply in plies:
        entry: dict = {"ply": ply, "dice": list(roll(seed, white, black, ply))}
        if ply in traced:
            entry["trace"] = trace(seed, white, black, ply)
        rolls.append(entry)
    return {
        "id": vector_id,
        "origin": origin,
        "note": note,
        "seedHex": seed.hex(),
        "white": white,
        "black": black,
        "commit": commitment(seed),
        "rolls": rolls,
    }


def golden_vectors() -> list[dict]:
    out = []
    notes = [
        "Seed is the bytes 0x00..0x1f; no client seeds.",
        "Seed is 0xff repeated 32 times; White's seed ends in U+2713 (3 UTF-8 bytes), so its "
        "byte length (16) differs from its character length (14).",
        "Seed is SHA-256 of the ASCII text 'vector-3'; both seats contributed.",
    ]
    for number, (seed, white, black, commit, rolls) in enumerate(GOLDEN, start=1):
        if commitment(seed) != commit:
            sys.exit(f"golden vector {number}: commitment differs from the spec")
        for ply, dice in rolls.items():
            if roll(seed, white, black, ply) != dice:
                sys.exit(f"golden vector {number} ply {ply}: dice differ from the spec")
        out.append(
            vector(
                f"golden-{number}",
                "spec/dice.md",
                notes[number - 1],
                seed,
                white,
                black,
                list(rolls),
                traced=(0,) if number == 2 else (),
            )
        )
    return out


def rejection_vector() -> dict:
    """Plies whose first digest has bytes >= 252 before the third die."""
    seed = labelled_seed("playsite dice vector: rejection")
    most_skipped, most_ply = 0, 0
    first_byte_252 = first_byte_255_with_251 = None
    for ply in range(700_000):
        digest = next(roll_digests(seed, roll_message("", "", ply)))
        # Nothing is skipped when the first three bytes are dice (95% of plies): traced only otherwise.
        skipped = skipped_before_third_die(seed, "", "", ply) if max(digest[:DICE_PER_ROLL]) >= REJECT_FROM else []
        if len(skipped) > most_skipped:
            most_skipped, most_ply = len(skipped), ply
        if first_byte_252 is None and digest[0] == REJECT_FROM:
            first_byte_252 = ply
        if first_byte_255_with_251 is None and digest[0] == 0xFF and 0xFB in digest[1:4]:
            if len(skipped) == 1:
                first_byte_255_with_251 = ply
    assert first_byte_252 is not None and first_byte_255_with_251 is not None
    plies = sorted({0, first_byte_252, first_byte_255_with_251, most_ply})
    for ply in plies[1:]:
        digest = next(roll_digests(seed, roll_message("", "", ply)))
        if tuple(b % 6 + 1 for b in digest[:DICE_PER_ROLL]) == roll(seed, "", "", ply):
            sys.exit(f"rejection vector: ply {ply} does not catch a missing rejection step")
    return vector(
        "rejection",
        "playsite",
        f"Rejection sampling. Ply {first_byte_252}: the first digest byte is exactly 0xfc "
        f"(252, the smallest skipped value). Ply {first_byte_255_with_251}: 0xff is skipped and "
        f"0xfb (251, the largest accepted value, die 5) is used. Ply {most_ply}: {most_skipped} "
        "bytes are skipped before the third die, the most among plies 0..699999. Ply 0 needs "
        "no skipping. An implementation that takes b % 6 + 1 without skipping gets every roll "
        "but ply 0 wrong.",
        seed,
        "",
        "",
        plies,
        traced=tuple(p for p in plies if p),
    )


def framing_vectors() -> list[dict]:
    """The same concatenated text split differently between the seats rolls differently."""
    seed = labelled_seed("playsite dice vector: framing")
    splits = [
        ("framing-a", "0123456789abcdefX", "0123456789abcdef"),
        ("framing-b", "0123456789abcdef", "X0123456789abcdef"),
        ("framing-swapped", "0123456789abcdef", "0123456789abcdefX"),
    ]
    plies = [0, 1, 2]
    rolls = {name: [roll(seed, w, b, p) for p in plies] for name, w, b in splits}
    for first, second in itertools.combinations(rolls.values(), 2):
        if any(x == y for x, y in zip(first, second)):
            sys.exit("framing vectors: pick a seed where every listed roll differs")
    return [
        vector(
            name,
            "playsite",
            "Length-prefix framing: framing-a, framing-b and framing-swapped share one seed, "
            "and white+black is the same text in a and b (only the split moves one byte), while "
            "swapped exchanges the seats of a; every listed roll differs between them.",
            seed,
            white,
            black,
            plies,
        )
        for name, white, black in splits
    ]


def non_ascii_vector() -> dict:
    # Cyrillic (2 bytes each), chess knights U+2658 (3 bytes), a die emoji U+1F3B2 (4 bytes),
    # Polish letters (2 bytes) and mathematical fraktur letters (4 bytes).
    white = (
        "\u0425\u043e\u0434\u0438 \u043a\u043e\u043d\u0451\u043c, "
        "\u0431\u0435\u043b\u044b\u0435 \u2658\u2658"
    )
    black = "\U0001f3b2 kostki \U0001f3b2 z\u0105b \U0001d518\U0001d52b\U0001d526"
    return vector(
        "non-ascii",
        "playsite",
        f"Multi-byte UTF-8: White's seed is {len(white)} characters / "
        f"{len(white.encode())} bytes (Cyrillic and U+2658), Black's is {len(black)} characters"
        f" / {len(black.encode())} bytes (U+1F3B2, Polish letters, mathematical fraktur). The "
        "length prefixes count bytes, never characters.",
        labelled_seed("playsite dice vector: non-ascii"),
        white,
        black,
        [0, 1, 2],
        traced=(0,),
    )


def unnormalised_vectors() -> list[dict]:
    seed = labelled_seed("playsite dice vector: normalisation")
    composed = "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e"
    decomposed = "cafe\u0301 cre\u0300me bru\u0302le\u0301e"
    if any(roll(seed, composed, "", p) == roll(seed, decomposed, "", p) for p in (0, 1)):
        sys.exit("normalisation vectors: pick a seed where the rolls differ")
    return [
        vector(
            vector_id,
            "playsite",
            "No Unicode normalisation: nfc and nfd hold the same text, precomposed (U+00E9...) in "
            "nfc and with combining accents (e + U+0301...) in nfd; the UTF-8 bytes differ, and "
            "so do the rolls.",
            seed,
            white,
            "",
            [0, 1],
        )
        for vector_id, white in (("nfc", composed), ("nfd", decomposed))
    ]


def long_seeds_vector() -> dict:
    alphabet = "a\u00e9\u20ac\U0001f3b2"  # 1, 2, 3 and 4 UTF-8 bytes
    white = "".join(alphabet[i % len(alphabet)] for i in range(256))
    black = "\U0001f3b2" * 256
    return vector(
        "longest-seeds",
        "playsite",
        f"Both client seeds at the 256-character maximum: White cycles through characters of "
        f"1, 2, 3 and 4 UTF-8 bytes ({len(white.encode())} bytes), Black is U+1F3B2 256 times "
        f"({len(black.encode())} bytes, length prefix 00000400): a one-byte length would not do.",
        labelled_seed("playsite dice vector: long seeds"),
        white,
        black,
        [0, 1],
        traced=(0,),
    )


def zero_and_nul_vector() -> dict:
    return vector(
        "zero-seed-nul-characters",
        "playsite",
        "An all-zero server seed, White's seed 16 NUL characters (U+0000) and Black's the "
        "16-character minimum in ASCII: NUL is an ordinary byte under length-prefix framing.",
        bytes(32),
        "\u0000" * 16,
        "minimum-16-chars",
        [0, 1],
    )


def black_only_vector() -> dict:
    return vector(
        "black-only",
        "playsite",
        "Only Black contributed a seed (the mirror of golden-2, same server seed and text).",
        b"\xff" * 32,
        "",
        "alice's seed \u2713",
        [0, 1, 41],
    )


def large_ply_vector() -> dict:
    plies = [255, 256, 65_536, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1]
    return vector(
        "large-plies",
        "playsite",
        "Large plies with golden-1's seed: byte boundaries, the 32-bit boundaries, 2^53+1 (not "
        "exactly representable as an IEEE double, so JavaScript verifiers need BigInt) and "
        "2^63-1, the largest ply the signed 64-bit field can carry.",
        bytes(range(32)),
        "",
        "",
        plies,
        traced=(2**63 - 1,),
    )


def document() -> dict:
    return {
        "procedure": "playsite dice (commit-reveal, HMAC-SHA256)",
        "version": PROCEDURE_VERSION,
        "description": "docs/dice.md",
        "verifier": "tools/verify_dice.py",
        "summary": (
            "commit = hex(SHA-256(seed)); message = u32be(len(white)) || white || "
            "u32be(len(black)) || black || i64be(ply), lengths in UTF-8 bytes; "
            "digest(block) = HMAC-SHA256(seed, message || i32be(block)), block = 0, 1, ...; "
            "scan digest bytes in order: b < 252 gives the die b % 6 + 1, b >= 252 is "
            "skipped; the roll is the first three dice."
        ),
        "fields": {
            "seedHex": "the 32-byte server seed, hex",
            "white": "White's client seed ('' if none)",
            "black": "Black's client seed ('' if none)",
            "commit": "lowercase hex SHA-256 of the seed bytes",
            "rolls": "ply and the three dice in the order found",
            "rolls[].trace": "optional: message (without block counter) in hex, each digest "
            "used in hex, and the digest bytes skipped before the third die",
            "origin": "'spec/dice.md' for the decided golden vectors, 'playsite' for edge cases",
        },
        "coverage": (
            "No vector continues into digest block 1: a roll needs it only when at least 30 of "
            "the 32 bytes of block 0 are >= 252, which happens with probability below 1e-50, so "
            "no such input can be found by search. The continuation rule is tested on synthetic "
            "digests in the project's test suite instead; each trace lists the blocks used."
        ),
        "vectors": [
            *golden_vectors(),
            rejection_vector(),
            *framing_vectors(),
            non_ascii_vector(),
            *unnormalised_vectors(),
            long_seeds_vector(),
            zero_and_nul_vector(),
            black_only_vector(),
            large_ply_vector(),
        ],
    }


def main() -> None:
    # ASCII-only JSON: every non-ASCII character is a \u escape, so no editor or tool can
    # silently re-encode or normalise the seeds.
    text = json.dumps(document(), indent=2, ensure_ascii=True)
    # Keep short lists (dice, digests) on one line so a vector reads as one screenful.
    text = re.sub(r"\[\s*((?:[0-9]+|\"[0-9a-f]*\")(?:,\s*(?:[0-9]+|\"[0-9a-f]*\"))*)\s*\]",
                  lambda m: "[" + re.sub(r",\s*", ", ", m.group(1)) + "]", text)
    OUT.write_text(text + "\n", encoding="ascii")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
