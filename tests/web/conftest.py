"""The browser tests of the web client: Chromium launched once per module, a fresh profile
per test, the artefacts directory for screenshots (tests/support/browser.py, artifacts.py),
and `server`: a `playsite serve` for the module, the first roll at once (a module that needs
other settings defines its own)."""

import pytest

from tests.support.artifacts import artifacts  # noqa: F401 (a fixture)
from tests.support.browser import chromium, context  # noqa: F401 (fixtures)
from tests.support.server import ServerProcess


@pytest.fixture(scope="module")
def server():
    started = ServerProcess({"DICE_SEED_WINDOW_MS": "0"}).start()
    try:
        yield started
    finally:
        started.close()
