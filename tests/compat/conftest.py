"""The browser fixtures of the web tests (Debian's Chromium through Playwright), for the site's calls in a browser."""

from tests.web.conftest import chromium, context  # noqa: F401 (fixtures)
