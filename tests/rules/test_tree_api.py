"""The tree's public API stays where its callers import it from, whatever module builds it."""

from __future__ import annotations

import playsite.rules
import playsite.rules.tree

NAMES = (
    "CountedTree",
    "MoveTree",
    "NoDicePending",
    "count_turns",
    "iter_turns",
    "legal_tree",
    "legal_tree_counted",
    "max_dice",
    "state_of",
)


def test_tree_names_importable_from_tree_module():
    for name in NAMES:
        assert hasattr(playsite.rules.tree, name), name


def test_package_exports_the_same_objects():
    for name in NAMES:
        if hasattr(playsite.rules, name):
            assert getattr(playsite.rules, name) is getattr(playsite.rules.tree, name), name
