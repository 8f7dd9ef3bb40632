from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.reference import MOVEGEN


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The AGPL conformance data, read in place; tests using it skip when it is absent."""
    if not MOVEGEN.is_dir():
        pytest.skip(f"reference movegen data not found at {MOVEGEN}")
    return MOVEGEN
