"""A person signed in over real sockets: a real OpenID Connect provider (node's oidc-provider),
a real `playsite serve` process on PostgreSQL, httpx as the browser (`site`, a fixture).

Cookies are handled by hand: they are `Secure`, which a browser honours on http://127.0.0.1
but Python's cookie jar does not, and the attributes themselves are under test.
A module that uses `site` imports it with `migrated_url` and `oidc_provider`, the fixtures it
takes.
"""

from __future__ import annotations

from http.cookies import SimpleCookie
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from tests.support.oidc_provider import sign_in_at_provider
from tests.support.server import free_port

SECRET = "e2e-session-secret-" + "x" * 24
CSRF = {"X-Game-CSRF": "1"}


def set_cookies(response: httpx.Response) -> dict[str, tuple[str, dict]]:
    """name -> (value, attributes) of every Set-Cookie of `response`."""
    found = {}
    for header in response.headers.get_list("set-cookie"):
        parsed = SimpleCookie()
        parsed.load(header)
        for name, morsel in parsed.items():
            flags = {key: morsel[key] for key in morsel.keys() if morsel[key]}
            lowered = header.lower()
            flags["httponly"] = "httponly" in lowered
            flags["secure"] = "secure" in lowered
            found[name] = (morsel.value, flags)
    return found


class Site:
    """The server under test, as one browser (or several) sees it."""

    def __init__(self, server, provider):
        self.server = server
        self.origin = server.base_url
        self.provider = provider

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.origin, timeout=15)

    async def sign_in(self, login: str, next_path: str = "/") -> str:
        """The whole flow as a browser does it; returns the session cookie's value."""
        async with self.client() as site, httpx.AsyncClient(timeout=15) as provider_http:
            start = await site.get("/auth/login", params={"next": next_path})
            assert start.status_code == 303, start.text
            state_cookie = set_cookies(start)["signin_state"][0]
            back = await sign_in_at_provider(provider_http, start.headers["location"], login)
            done = await site.get(relative(back), headers={"Cookie": f"signin_state={state_cookie}"})
            assert done.status_code == 303, done.text
            return set_cookies(done)["access_token"][0]

    async def me(self, session: str) -> httpx.Response:
        async with self.client() as site:
            return await site.get("/auth/me", headers={"Cookie": f"access_token={session}"})

    async def write(self, method: str, path: str, session: str, *, origin: str | None = None, csrf=True, **kwargs):
        headers = {"Cookie": f"access_token={session}"}
        if origin is not False:
            headers["Origin"] = origin or self.origin
        if csrf:
            headers.update(CSRF)
        async with self.client() as site:
            return await site.request(method, path, headers=headers, **kwargs)


def relative(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(("", "", parts.path, parts.query, ""))


def started_site(serve, migrated_url: str, oidc_provider, **env: str) -> Site:
    """A `playsite serve` with sign-in through `oidc_provider` and PostgreSQL, and `env` besides."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    server = serve(
        {
            "PLAY_PORT": str(port),
            "DATABASE_URL": migrated_url,
            "PLAY_SESSION_SECRET": SECRET,
            "OIDC_ISSUER": oidc_provider.issuer,
            "OIDC_CLIENT_ID": oidc_provider.client_id,
            "OIDC_CLIENT_SECRET": oidc_provider.client_secret,
            "PLAY_PUBLIC_ORIGIN": origin,
            "PLAY_CORS_ORIGINS": origin,
            "DICE_SEED_WINDOW_MS": "0",
            **env,
        }
    )
    site = Site(server, oidc_provider)
    site.database_url = migrated_url
    return site


@pytest.fixture
def site(serve, migrated_url, oidc_provider):
    return started_site(serve, migrated_url, oidc_provider)


@pytest.fixture
def site_with_house_bots(serve, migrated_url, oidc_provider):
    """`site`, with the house bots playing (house/random, house/greedy in the catalog)."""
    return started_site(serve, migrated_url, oidc_provider, PLAY_HOUSE_BOTS="true")


def sign_in_at_the_provider(page, login: str) -> None:
    """The person at the provider's pages: a login form (any password), then consent."""
    page.fill('input[name="login"]', login)
    page.fill('input[name="password"]', "any")
    page.locator('button[type="submit"]').first.click()
    page.locator('button[type="submit"]').first.click()  # consent
