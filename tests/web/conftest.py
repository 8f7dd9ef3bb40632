"""The browser tests of the web client: Chromium launched once per module, a fresh profile
per test, the artefacts directory for screenshots (tests/support/browser.py, artifacts.py),
and `server`: a `playsite serve` for the module, the first roll at once (a module that needs
other settings defines its own, with `tests.support.server.module_server`)."""

from tests.support.artifacts import artifacts  # noqa: F401 (a fixture)
from tests.support.browser import chromium, context  # noqa: F401 (fixtures)
from tests.support.server import module_server


server = module_server({"DICE_SEED_WINDOW_MS": "0"})
