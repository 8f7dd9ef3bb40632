"""Every tree of the benchmark corpus is byte for byte the tree the engine gave when the
corpus was made: a faster move generation must not change a single key nor its order.

bench/corpus/rules_trees.sha256 holds, line for line with bench/corpus/rules_positions.txt,
the SHA-256 of each tree's compact JSON (`bench/rules_tree.py --make-corpus` writes both).
Each tree is built from empty move tables, as the benchmark times it, and its turn count
and L from `legal_tree_counted` are checked against `count_turns` and `max_dice`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from playsite.rules import MoveTree, count_turns, legal_tree_counted, max_dice, parse_dfen
from playsite.rules.movegen import forget_moves

BENCH = Path(__file__).resolve().parents[2] / "bench" / "corpus"
CORPUS = BENCH / "rules_positions.txt"
DIGESTS = BENCH / "rules_trees.sha256"


def tree_digest(tree: MoveTree) -> str:
    """SHA-256 of the tree's compact JSON, keys in the tree's own order (as bench/rules_tree.py)."""
    return hashlib.sha256(json.dumps(tree, separators=(",", ":")).encode()).hexdigest()


def test_every_corpus_tree_is_the_recorded_one():
    lines = [line for line in CORPUS.read_text().splitlines() if line.strip()]
    digests = DIGESTS.read_text().split()
    assert len(digests) == len(lines)
    changed = []
    for line, digest in zip(lines, digests):
        forget_moves()
        position = parse_dfen(line)
        tree, turns, longest = legal_tree_counted(position)
        assert (turns, longest) == (count_turns(tree), max_dice(position) if tree else 0), line
        if tree_digest(tree) != digest:
            changed.append(line)
    assert not changed, f"{len(changed)} trees differ, the first: {changed[:3]}"
