"""The browser tests of the web client: Chromium launched once per module, a fresh profile
per test, and the artefacts directory for screenshots (tests/support/browser.py, artifacts.py)."""

from tests.support.artifacts import artifacts  # noqa: F401 (a fixture)
from tests.support.browser import chromium, context  # noqa: F401 (fixtures)
