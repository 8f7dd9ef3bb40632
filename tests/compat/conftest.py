"""The browser fixtures (tests/support/browser.py), for the site's calls in a browser."""

from tests.support.browser import chromium, context  # noqa: F401 (fixtures)
