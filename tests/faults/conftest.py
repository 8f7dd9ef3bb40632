"""Fixtures of the fault tests: a protocol-aware proxy in front of the suite's PostgreSQL."""

from __future__ import annotations

import pytest

from tests.faults.pgproxy import CommitFreezer
from tests.support.database import migrated_url  # noqa: F401 (a fixture)


@pytest.fixture
def freezer(pg_cluster):
    """A proxy that stops PostgreSQL at an armed COMMIT; thawed and closed after the test."""
    proxy = CommitFreezer("127.0.0.1", pg_cluster.port)
    yield proxy
    proxy.close()
