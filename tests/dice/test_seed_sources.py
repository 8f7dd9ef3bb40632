"""Seed sources: the OS CSPRNG in production, a fixed list in tests."""

from __future__ import annotations

import ast
import pathlib
import secrets
import sys

import pytest

import playsite.dice
from playsite.dice import (
    SEED_BYTES,
    FixedSeedSource,
    InvalidSeed,
    SeedSource,
    SeedSourceExhausted,
    SystemSeedSource,
)


def test_system_seed_source_draws_32_bytes_from_secrets(monkeypatch):
    calls = []

    def token_bytes(n):
        calls.append(n)
        return b"\x07" * n

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)
    assert SystemSeedSource().new_seed() == b"\x07" * SEED_BYTES
    assert calls == [SEED_BYTES]


def test_system_seed_source_gives_fresh_seeds():
    source = SystemSeedSource()
    seeds = {source.new_seed() for _ in range(100)}
    assert len(seeds) == 100 and all(len(s) == SEED_BYTES for s in seeds)


def test_fixed_seed_source_hands_out_seeds_in_order_then_raises():
    first, second = b"\x01" * 32, b"\x02" * 32
    source = FixedSeedSource(iter([first, second]))
    assert source.remaining == 2
    assert source.new_seed() == first
    assert source.new_seed() == second
    with pytest.raises(SeedSourceExhausted, match="all 2 given seeds"):
        source.new_seed()


def test_fixed_seed_source_rejects_wrong_sized_seeds_up_front():
    with pytest.raises(InvalidSeed, match="#1"):
        FixedSeedSource([b"\x01" * 32, b"\x02" * 16])


def test_fixed_seed_source_repr_hides_the_seeds():
    seed = bytes(range(32))
    assert seed.hex() not in repr(FixedSeedSource([seed]))


def test_both_sources_satisfy_the_protocol():
    assert isinstance(SystemSeedSource(), SeedSource)
    assert isinstance(FixedSeedSource([]), SeedSource)


def test_dice_package_imports_nothing_else_from_playsite():
    package = pathlib.Path(playsite.dice.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert name.startswith("playsite.dice") or top != "playsite", (path.name, name)
                assert top in sys.stdlib_module_names or top in {"attrs", "playsite"}, (
                    path.name,
                    name,
                )
