"""Screenshots of the pages as test artefacts: written to $PLAYSITE_ARTIFACTS when set (CI keeps
that directory), else to test-artifacts/screens/ in the repository (git ignores it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    where = Path(os.environ.get("PLAYSITE_ARTIFACTS") or ROOT / "test-artifacts") / "screens"
    where.mkdir(parents=True, exist_ok=True)
    return where


def screenshot(page, where: Path, name: str) -> Path:
    """A full-page PNG of what the page shows now, named `name`."""
    path = where / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 0
    return path
