"""A real OpenID Connect provider for the sign-in tests: npm's `oidc-provider` run with node.

    from tests.support.oidc_provider import oidc_provider, sign_in_at_provider  # the fixture

    async def test_x(oidc_provider):
        oidc_provider.issuer, oidc_provider.client_id, oidc_provider.client_secret
        callback_url = await sign_in_at_provider(http, authorize_url, "alice")

The provider (tests/support/oidc/provider.mjs, version pinned in its package.json and
package-lock.json) is installed with `npm ci` on first use into tests/support/oidc/node_modules
(not committed) and started once per test session (each pytest worker has its own) on a free
loopback port. Its one client accepts a redirect URI `http://127.0.0.1:<any port>/auth/callback`,
so each test server may listen wherever it likes. Anyone signs in under any login name, which
becomes the subject.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import attrs
import httpx
import pytest

from tests.support.npm import npm_installed
from tests.support.server import free_port

HERE = Path(__file__).resolve().parent / "oidc"
READY_TIMEOUT_S = 30
CLIENT_ID = "playsite-tests"
CLIENT_SECRET = "playsite-tests-client-secret"


def ensure_installed() -> None:
    """`npm ci` the pinned provider once; a clear failure when node or npm is missing."""
    if shutil.which("node") is None:
        raise RuntimeError("the sign-in tests need node (Debian: apt-get install nodejs npm)")
    npm_installed(HERE, "oidc-provider/package.json", "the sign-in tests")


@attrs.define
class OidcProvider:
    issuer: str
    client_id: str
    client_secret: str
    process: subprocess.Popen
    log_path: Path

    @classmethod
    def start(cls, client_id: str = CLIENT_ID, client_secret: str = CLIENT_SECRET) -> OidcProvider:
        ensure_installed()
        port = free_port()
        log_path = Path(tempfile.mkstemp(prefix="oidc-provider-", suffix=".log")[1])
        env = {**os.environ, "OIDC_PORT": str(port), "OIDC_CLIENT_ID": client_id, "OIDC_CLIENT_SECRET": client_secret}
        with open(log_path, "wb") as log:
            process = subprocess.Popen(["node", "provider.mjs"], cwd=HERE, env=env, stdout=log, stderr=subprocess.STDOUT)
        issuer = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + READY_TIMEOUT_S
        while f"ready {issuer}" not in log_path.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the OIDC provider did not start:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.05)
        return cls(issuer, client_id, client_secret, process, log_path)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log_path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def oidc_provider():
    provider = OidcProvider.start()
    yield provider
    provider.stop()


class _Forms(HTMLParser):
    """The forms of a page: (action, {field: value}) with the hidden fields filled in."""

    def __init__(self):
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs_list):
        found = dict(attrs_list)
        if tag == "form":
            self.forms.append((found.get("action") or "", {}))
        elif tag == "input" and self.forms and found.get("name"):
            self.forms[-1][1][found["name"]] = found.get("value") or ""


async def sign_in_at_provider(http: httpx.AsyncClient, authorize_url: str, login: str) -> str:
    """Play the person at the provider: follow the authorization request, sign in as `login`
    (any password), give consent, and return the redirect back to the relying party (with
    `code` and `state`) without requesting it. `http` keeps the provider's cookies."""
    provider = urlsplit(authorize_url).netloc
    url = authorize_url
    for _ in range(12):
        response = await http.get(url)
        if response.status_code in (302, 303):
            location = urljoin(url, response.headers["location"])
            if urlsplit(location).netloc != provider:
                return location  # leaving the provider: the redirect to the relying party
            url = location
            continue
        if response.status_code != 200:
            raise AssertionError(f"the provider answered {response.status_code}: {response.text[:300]}")
        parser = _Forms()
        parser.feed(response.text)
        if not parser.forms:
            raise AssertionError(f"no form on the provider's page: {response.text[:300]}")
        action, fields = parser.forms[0]
        if fields.get("prompt") == "login":
            fields.update({"login": login, "password": "any"})
        submitted = await http.post(urljoin(url, action), data=fields)
        if submitted.status_code not in (302, 303):
            raise AssertionError(f"the provider refused the form: {submitted.status_code} {submitted.text[:300]}")
        url = urljoin(url, submitted.headers["location"])
        if urlsplit(url).netloc != provider:
            return url
    raise AssertionError("the provider never redirected back")
