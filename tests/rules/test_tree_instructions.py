"""tools/tree_instructions.py, the instruction count of the trees under valgrind: a count that
does not vary between runs, which is its whole point."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from playsite.rules import format_dfen, parse_dfen
from tests.support.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "tree_instructions.py"
RICH = "r1bqk2r/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQK2R w KQkq - 0 8"


def counts(corpus: Path) -> dict[str, float]:
    completed = subprocess.run(
        [sys.executable, str(TOOL), "--corpus", str(corpus)], capture_output=True, text=True, check=True, timeout=300
    )
    return {name: float(value) for name, value in re.findall(r"^(\w+)\s+([\d.]+) M instructions$", completed.stdout, re.M)}


def test_the_count_is_the_same_run_after_run(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(
        "\n".join(format_dfen(parse_dfen(RICH).with_dice(roll)) for roll in ([3, 4, 5], [2, 5, 5], [1, 1, 5])) + "\n"
    )
    first = counts(corpus)
    assert set(first) == {"cold", "largest", "warm"}
    assert all(value > 0 for value in first.values())
    assert first["largest"] < first["cold"]  # one position of the three
    # Each count is the difference of two runs under valgrind, and a run counts the same every
    # time, even when files come and go in the checkout meanwhile, as other tests' do in CI
    # (where 30 new files moved a run by 300 instructions and CI's by 42,000).
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "playsite").symlink_to(ROOT / "playsite", target_is_directory=True)
    run = load_tool("tree_instructions")._instructions
    before = run(checkout, corpus, "cold", 1)
    for number in range(30):
        (checkout / f"written-meanwhile-{number}.txt").write_text("x")
    assert run(checkout, corpus, "cold", 1) == before

def test_a_corpus_that_is_not_positions_with_dice_is_refused_in_a_sentence(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("r1bqk2r/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQK2R w KQkq - 0 8\n")  # no dice
    completed = subprocess.run(
        [sys.executable, str(TOOL), "--corpus", str(corpus)], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 1
    assert "not a position with dice" in completed.stderr
    assert "Traceback" not in completed.stderr
