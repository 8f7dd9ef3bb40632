"""The README's two commands are the ones the project runs: CI runs exactly the test line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fenced(marker: str) -> str:
    text = (ROOT / "README.md").read_text()
    block = re.search(rf"<!-- {marker} -->\n```\n(.+?)\n```\n<!-- /{marker} -->", text, re.S)
    assert block, f"README lacks the {marker} block"
    return block[1]


def test_readme_has_exactly_two_setup_commands():
    assert fenced("serve-command").endswith("playsite serve")
    assert fenced("test-command").endswith("pytest")
    assert len(re.findall(r"<!-- (serve|test)-command -->", (ROOT / "README.md").read_text())) == 2


def test_ci_runs_the_readme_test_command():
    extracted = subprocess.run(
        ["bash", "-c", "sed -n '/<!-- test-command -->/,/<!-- \\/test-command -->/p' README.md"
         " | grep -v '^<!--' | grep -v '^```' | grep ."],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert extracted == fenced("test-command")
    assert "test_command=$(sed -n '/<!-- test-command -->/" in (ROOT / ".ci" / "run").read_text()


def test_no_secrets_or_generated_state_are_tracked():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert not [path for path in tracked if path.startswith((".venv/", ".pytest_cache/"))]
    assert not [path for path in tracked if path.endswith((".pyc", ".db", ".sqlite"))]
