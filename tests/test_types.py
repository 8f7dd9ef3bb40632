"""The type checker over playsite/, configured in pyproject.toml ([tool.mypy]): every function
annotated, strict on the pure and core layers. A type error fails the suite like a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_checker_catches_a_wrong_type(tmp_path):
    """The configuration is live: a module that passes a str where an int is declared fails."""
    bad = tmp_path / "bad.py"
    bad.write_text("def double(n: int) -> int:\n    return 2 * n\n\n\ndouble('x')\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", str(bad)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 1 and "arg-type" in done.stdout, done.stdout
