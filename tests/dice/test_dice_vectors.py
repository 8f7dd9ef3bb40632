"""Every vector in specs/dice/vectors-v1.json, against playsite.dice and the verifier."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from playsite import dice, verifier
from tests.support.dice import VECTORS_PATH, load_vectors

VECTORS = load_vectors()["vectors"]
ROLLS = [
    pytest.param(vector, entry, id=f"{vector['id']}@{entry['ply']}")
    for vector in VECTORS
    for entry in vector["rolls"]
]
ids = [vector["id"] for vector in VECTORS]


def test_vector_file_describes_procedure_version_1(vectors):
    assert vectors["version"] == dice.PROCEDURE_VERSION == 1
    assert vectors["description"] == "docs/dice.md"
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("vector", VECTORS, ids=ids)
def test_vector_commitment(vector):
    seed = bytes.fromhex(vector["seedHex"])
    assert dice.commitment(seed) == vector["commit"]
    assert verifier.commitment(seed) == vector["commit"]


@pytest.mark.parametrize(("vector", "entry"), ROLLS)
def test_vector_roll(vector, entry):
    seed = bytes.fromhex(vector["seedHex"])
    expected = tuple(entry["dice"])
    assert dice.roll(seed, vector["white"], vector["black"], entry["ply"]) == expected


@pytest.mark.parametrize(("vector", "entry"), ROLLS)
def test_standalone_verifier_agrees_with_playsite_dice(vector, entry):
    seed = bytes.fromhex(vector["seedHex"])
    args = (seed, vector["white"], vector["black"], entry["ply"])
    assert verifier.roll(*args) == dice.roll(*args) == tuple(entry["dice"])


@pytest.mark.parametrize(
    ("vector", "entry"), [p for p in ROLLS if "trace" in p.values[1]]
)
def test_vector_trace(vector, entry):
    seed = bytes.fromhex(vector["seedHex"])
    trace = entry["trace"]
    message = dice.roll_message(vector["white"], vector["black"], entry["ply"])
    assert message.hex() == trace["messageHex"]
    stream = dice.roll_digests(seed, message)
    digests = [next(stream) for _ in trace["digestsHex"]]
    assert [d.hex() for d in digests] == trace["digestsHex"]
    assert dice.dice_from_digests(digests) == tuple(entry["dice"])
    used = bytes.fromhex("".join(trace["digestsHex"]))
    assert [f"{b:02x}" for b in used[: _bytes_scanned(used)] if b >= 252] == trace[
        "skippedBytesHex"
    ]


def _bytes_scanned(data: bytes) -> int:
    accepted = 0
    for index, byte in enumerate(data):
        accepted += byte < 252
        if accepted == 3:
            return index + 1
    raise AssertionError("trace digests hold fewer than three dice")


# --- the file covers what it promises ----------------------------------------------------

GOLDEN = {
    ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "", ""): {
        0: [3, 4, 5], 1: [3, 3, 1], 2: [6, 2, 5], 98: [6, 6, 1],
    },
    ("ff" * 32, "alice's seed \u2713", ""): {0: [4, 2, 3], 1: [3, 4, 6], 41: [6, 2, 3]},
    (
        "149bf38eb3fbde09d62f6e9fd7bd03e35e001b7128ad8555336738d56883bbda",
        "f3a1c0de9b8a7c6d",
        "b27c00ffee112233",
    ): {0: [4, 6, 3], 7: [2, 5, 4]},
}


def test_vectors_include_every_golden_vector_of_the_spec():
    listed: dict[tuple[str, str, str], dict[int, list[int]]] = {}
    for v in VECTORS:
        for r in v["rolls"]:
            listed.setdefault((v["seedHex"], v["white"], v["black"]), {})[r["ply"]] = r["dice"]
    for key, rolls in GOLDEN.items():
        assert {ply: listed[key][ply] for ply in rolls} == rolls


def test_vectors_cover_rejected_bytes():
    skipped = [
        r["trace"]["skippedBytesHex"] for v in VECTORS for r in v["rolls"] if "trace" in r
    ]
    assert "fc" in {b for s in skipped for b in s}, "the boundary value 252 is skipped somewhere"
    assert max(len(s) for s in skipped) >= 4


def test_vectors_cover_multibyte_utf8_client_seeds():
    multibyte = [
        v for v in VECTORS
        for s in (v["white"], v["black"])
        if len(s.encode("utf-8")) > len(s) and any(ord(c) > 0xFFFF for c in s)
    ]
    assert multibyte, "a client seed with 4-byte UTF-8 characters"


def test_vectors_cover_longest_client_seeds():
    longest = [
        v for v in VECTORS
        if len(v["white"]) == dice.CLIENT_SEED_MAX and len(v["black"]) == dice.CLIENT_SEED_MAX
    ]
    assert longest and len(longest[0]["black"].encode("utf-8")) > 255


def test_vectors_cover_large_plies():
    largest = {r["ply"] for v in VECTORS for r in v["rolls"]}
    assert {2**31, 2**32, 2**53 + 1, dice.PLY_MAX} <= largest


@pytest.mark.slow
def test_vector_file_is_what_the_generator_writes():
    generator_path = VECTORS_PATH.with_name("generate_vectors.py")
    spec = importlib.util.spec_from_file_location("generate_dice_vectors", generator_path)
    assert spec and spec.loader
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.document() == load_vectors()


def test_vector_file_is_ascii():
    VECTORS_PATH.read_bytes().decode("ascii")
    assert pathlib.Path(VECTORS_PATH).read_text(encoding="ascii").endswith("}\n")
