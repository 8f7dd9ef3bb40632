"""Instructions the legal-move trees cost, counted by valgrind: a measure that does not vary.

    .venv/bin/python tools/tree_instructions.py                # this checkout
    .venv/bin/python tools/tree_instructions.py --root DIR     # another checkout's playsite/
    .venv/bin/python tools/tree_instructions.py --corpus FILE  # other positions (one DFEN a line)

Wall-clock timings of the trees (bench/rules_tree.py) move by about 5% from one run to the next
on a shared machine, as much as most single changes to the search gain or lose. The number of
machine instructions the interpreter executes does not move at all (with a fixed hash seed), so
two checkouts compared this way show a 0.3% difference as clearly as a 30% one. It is not a
time: memory stalls are not in it, so a change that wins here is then confirmed with the
benchmark.

Three counts, each the instructions of a run minus those of the same run without the trees
(interpreter start, imports, parsing): every corpus position once from empty move tables
(`cold`), the 3% of them with the most complete turns, likewise (`largest`: the slowest trees,
which the p99 depends on, are among them), and a second pass over the corpus with the tables
warm (`warm`, as in a serving process). Needs valgrind (Debian's package); takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus" / "rules_positions.txt"
LARGEST_SHARE = 0.03

_CHILD = """
import importlib.util, sys
root, site_packages, corpus, mode, passes = sys.argv[1:]
sys.path.append(site_packages)
spec = importlib.util.spec_from_file_location("playsite", root + "/playsite/__init__.py")
sys.modules["playsite"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sys.modules["playsite"])
from playsite.rules import legal_tree, parse_dfen
from playsite.rules.movegen import forget_moves
positions = [parse_dfen(line) for line in open(corpus).read().splitlines() if line.strip()]
for _ in range(int(passes)):
    for position in positions:
        if mode == "cold":
            forget_moves()
        legal_tree(position)
"""


def _instructions(root: Path, corpus: Path, mode: str, passes: int) -> int:
    """Instructions of one child run (valgrind's `I refs`).

    The child sees nothing that may change between two runs: no .pth files (-S: the editable
    install's put the checkout's root on the path), no working directory on its path (-P), a fixed
    environment, and playsite loaded from its own directory. Each import lists the directories on
    the path, so a file that appeared in the checkout's root between two runs moved the count by
    hundreds of instructions (by 42,000 in CI, where other tests write files meanwhile)."""
    completed = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-S", "-P", "-c", _CHILD,
         str(root.resolve()), sysconfig.get_path("purelib"), str(corpus.resolve()), mode, str(passes)],
        capture_output=True, text=True, cwd=root,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0", "LC_ALL": "C.UTF-8"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", completed.stderr)
    if completed.returncode != 0 or found is None:
        raise SystemExit(f"the trees of {corpus} under {root} did not run:\n{completed.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _largest(lines: list[str]) -> list[str]:
    """The LARGEST_SHARE of the corpus with the most complete turns: the same positions whatever
    the engine (every correct one finds the same turns), and where the slowest trees are."""
    sys.path.insert(0, str(ROOT))
    from playsite.rules import legal_tree_counted, parse_dfen

    try:
        ranked = sorted(lines, key=lambda line: legal_tree_counted(parse_dfen(line)).turns)
    except ValueError as error:  # a line that is no DFEN, or one without dice
        raise SystemExit(f"not a position with dice: {error}") from None
    return ranked[min(len(ranked) - 1, int(len(ranked) * (1 - LARGEST_SHARE))):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose playsite/ is counted")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="positions with dice, one DFEN a line")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("tools/tree_instructions.py needs valgrind (apt-get install valgrind)")
    if not (args.root / "playsite" / "rules").is_dir():
        raise SystemExit(f"{args.root} holds no playsite/rules: --root is a checkout of playsite")
    try:
        lines = [line for line in args.corpus.read_text().splitlines() if line.strip()]
    except OSError as error:
        raise SystemExit(f"cannot read the corpus: {error}") from None
    if not lines:
        raise SystemExit(f"{args.corpus} holds no position")
    with tempfile.TemporaryDirectory() as scratch:
        largest = Path(scratch) / "largest.txt"
        largest.write_text("\n".join(_largest(lines)) + "\n")
        counts = {
            "cold": _instructions(args.root, args.corpus, "cold", 1) - _instructions(args.root, args.corpus, "cold", 0),
            "largest": _instructions(args.root, largest, "cold", 1) - _instructions(args.root, largest, "cold", 0),
            "warm": _instructions(args.root, args.corpus, "warm", 2) - _instructions(args.root, args.corpus, "warm", 1),
        }
    for name, count in counts.items():
        print(f"{name:8} {count / 1e6:10.2f} M instructions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
