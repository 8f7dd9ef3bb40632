"""Shared fixtures: a throwaway PostgreSQL cluster for the session, a fresh database per test,
and real server processes."""

from __future__ import annotations

import compileall
import uuid
from pathlib import Path

import pytest

from tests.support.server import ServerProcess
from tests.support.tools import load_tool

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


devdb = load_tool("devdb")


@pytest.fixture(scope="session")
def pg_cluster():
    """One private PostgreSQL server for the whole run (one for each pytest worker), started
    by the suite itself, in memory when the machine has room (see devdb.Cluster)."""
    with devdb.Cluster(in_memory=True) as cluster:
        yield cluster


@pytest.fixture
def database_url(pg_cluster):
    """A fresh, empty database: tests never see each other's rows. Dropped after the test (a
    run creates hundreds: kept, they filled gigabytes and took ~15 s to remove at the end)."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield pg_cluster.create_database(name)
    pg_cluster.drop_database(name)


@pytest.fixture
def serve():
    """Factory: `serve(env)` starts `playsite serve` and returns the ServerProcess; all stopped after."""
    started: list[ServerProcess] = []

    def start(env: dict[str, str] | None = None, **options) -> ServerProcess:
        server = ServerProcess(env, **options)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.close()


# The folders whose files take longest (browsers, whole servers, real waits of the spec's graces),
# first: pytest-xdist hands a worker the next file when it is nearly done with its own, so a long
# file handed out last kept one worker busy for minutes while the other had nothing left (files
# were handed out by their number of tests, the browsers' few long ones last).
LONGEST_FIRST = ("tests/web/", "tests/demo/", "tests/e2e/", "tests/faults/", "tests/webhooks/", "tests/rules/")


def pytest_configure(config):
    """playsite's modules compiled once, before the workers start: a machine may set
    PYTHONDONTWRITEBYTECODE (this one does), and then every process the suite starts compiled
    the package's sources again, a quarter of a second of CPU each time (a server's boot is 1.1 s
    with the compiled files, 1.4 s without), and the suite starts hundreds. The compiled files
    go where Python puts them itself (`__pycache__`, which git ignores)."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(ROOT / "playsite", quiet=1)


def pytest_collection_modifyitems(config, items):
    """The files of LONGEST_FIRST's folders first, in that order, the rest after; the order of
    the files within a folder, and of the tests within a file, kept (the sort is stable)."""

    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next((at for at, folder in enumerate(LONGEST_FIRST) if path.startswith(folder)), len(LONGEST_FIRST))

    items.sort(key=rank)


def pytest_sessionfinish(session, exitstatus):
    """A run in which no test passed is a failure, whatever pytest thinks (CI must not go green empty)."""
    if hasattr(session.config, "workerinput"):
        return  # a pytest-xdist worker: the controller, which hears every worker's results, decides
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    passed = len(reporter.stats.get("passed", [])) if reporter else 0
    if exitstatus == 0 and passed == 0:
        session.exitstatus = 1
