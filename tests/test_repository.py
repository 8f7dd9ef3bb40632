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
    assert fenced("serve-command").endswith("playsite demo")
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


def test_the_image_lock_pins_exactly_the_runtime_dependencies():
    """requirements.lock (the Containerfile installs it) pins every runtime dependency of the
    package, and nothing else. (Versions are not compared with this environment: a fresh
    install may resolve newer releases; refreshing the lock is a deliberate change.)"""
    import importlib.metadata as metadata

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parent.parent
    pins = {}
    for line in (root / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version

    def closure(name: str, extras: frozenset[str], seen: set[str]) -> set[str]:
        key = re.sub(r"[-_.]+", "-", name).lower()
        seen.add(key)
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            wanted = requirement.marker is None or any(
                requirement.marker.evaluate({"extra": extra}) for extra in (extras or {""})
            )
            if wanted and re.sub(r"[-_.]+", "-", requirement.name).lower() not in seen:
                closure(requirement.name, frozenset(requirement.extras), seen)
        return seen

    runtime = closure("playsite", frozenset(), set()) - {"playsite"}
    assert runtime == set(pins), f"missing: {runtime - set(pins)}, extra: {set(pins) - runtime}"
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", version) for version in pins.values()), pins
