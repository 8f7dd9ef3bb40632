from __future__ import annotations

from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "movegen"


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The AGPL conformance data, read in place; tests using it skip when it is absent."""
    if not REFERENCE.is_dir():
        pytest.skip(f"reference movegen data not found at {REFERENCE}")
    return REFERENCE
