"""The demo's identity provider: a small OpenID Connect provider on loopback, for `playsite
demo` only (never `playsite serve`).

It signs anyone in as any nickname they type, so that two browser windows can be two
accounts; its page says so. Everything else is what a real provider does, and the server
signs in through its ordinary OIDC client (`playsite.accounts.oidc`), unchanged:

- discovery at `/.well-known/openid-configuration`, keys at `/jwks`;
- one confidential client (`playsite-demo`, its secret kept in the demo's directory, 0600),
  with exactly one redirect URI, `<public origin>/auth/callback`, authenticated with
  client_secret_basic;
- the authorization code flow with PKCE (S256 only): a code is single use (taken out at its
  first presentation, whatever follows) and lives CODE_LIFETIME_S;
- id_tokens signed ES256 with a P-256 key made on the first run (`identity-key.json`, 0600,
  in the demo's directory), valid TOKEN_LIFETIME_S; the subject is the nickname without case,
  so the same nickname is the same account on every run.

The provider keeps its port between runs (`identity-port`): the issuer is part of every
account's identity, so a stable issuer keeps the accounts across restarts.

Built on joserfc (keys, JWT signing) and authlib (PKCE, URL parameters); no cryptography of
its own. It runs as a task of the demo's process, a quart-trio app served by hypercorn.
"""

from __future__ import annotations

import base64
import hmac
import html
import json
import logging
import os
import re
import secrets
import socket
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import attrs
import trio
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc7636.challenge import compare_s256_code_challenge
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from joserfc import jwt
from joserfc.jwk import ECKey
from quart import Response, request
from quart.typing import ResponseReturnValue
from quart_trio import QuartTrio
from werkzeug.datastructures import MultiDict

from playsite.demo.settings import kept_secret

log = logging.getLogger("playsite.demo")

CLIENT_ID = "playsite-demo"
CODE_LIFETIME_S = 60
TOKEN_LIFETIME_S = 300
CODES_MAX = 1000
"""Codes waiting for their exchange at once; beyond this a sign-in is refused."""
KEY_FILE = "identity-key.json"
PORT_FILE = "identity-port"
CLIENT_SECRET_FILE = "identity-client-secret"
NICKNAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
OPERATOR = "admin"
"""The nickname whose account the demo makes its administrator (PLAY_ADMINS: cli/demo.py)."""


def subject_of(nickname: str) -> str:
    """The subject a nickname signs in as: without case, so the same nickname is the same account."""
    return f"demo:{nickname.lower()}"


AUTHORIZE_FIELDS = ("client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method")
CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' {site}; frame-ancestors 'none'; base-uri 'none'"
"""form-action also covers where the form's answer redirects: the server's callback."""
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
STYLE = """
:root { color-scheme: light dark; --bg: #f4f1ea; --card: #fff; --ink: #1d1b17; --muted: #5d5850;
  --accent: #6b8e23; --line: #d8d2c4; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #161512; --card: #262421; --ink: #e8e6e3; --muted: #a8a39a; --accent: #8fbc3f; --line: #3c3a36; }
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; padding: 1rem; }
main { width: min(26rem, 100%); background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 1.5rem 1.75rem; box-shadow: 0 2px 12px rgb(0 0 0 / 12%); }
h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
.badge { display: inline-block; font-size: .75rem; font-weight: 600; letter-spacing: .04em; text-transform: uppercase;
  color: var(--card); background: #b5651d; border-radius: 4px; padding: .1rem .45rem; margin-bottom: .75rem; }
p { margin: .5rem 0; color: var(--muted); }
label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
input[type=text] { width: 100%; font: inherit; padding: .55rem .7rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--ink); }
input[type=text]:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
button { margin-top: 1rem; width: 100%; font: inherit; font-weight: 600; padding: .6rem; border: 0; border-radius: 6px;
  background: var(--accent); color: #fff; cursor: pointer; }
button:hover { filter: brightness(1.08); }
.error { color: #c0392b; font-weight: 600; }
small { display: block; margin-top: 1rem; color: var(--muted); }
a { color: var(--accent); }
small a { display: inline-block; padding-block: .35rem; }
"""


@attrs.frozen
class Grant:
    """An issued code, until it is exchanged or expires."""

    redirect_uri: str
    challenge: str
    nonce: str | None
    nickname: str
    expires_at: float


class BadRequest(Exception):
    """An authorization request the provider does not answer with a redirect."""


def load_key(state_dir: Path) -> ECKey:
    """The signing key: read from the demo's directory, made there (0600) on the first run."""
    path = state_dir / KEY_FILE
    try:
        return ECKey.import_key(json.loads(path.read_text()))
    except FileNotFoundError:
        pass
    key = ECKey.generate_key("P-256", private=True)
    state_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(key.as_dict(private=True), file)
    return key


def kept_port(state_dir: Path, host: str) -> int:
    """The port of the previous run when it is free, else a free one (then kept)."""
    path = state_dir / PORT_FILE
    try:
        saved = int(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        saved = 0
    for port in (saved, 0) if saved else (0,):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it: a port in TIME_WAIT is free
            try:
                probe.bind((host, port))
            except OSError:
                continue
            port = probe.getsockname()[1]
        if port != saved:
            if saved:
                log.info("demo: the identity provider's port %d is taken; it moves to %d, and accounts made"
                         " through the old address are not found by sign-in", saved, port)
            path.write_text(f"{port}\n")
        return port
    raise OSError("no free port for the demo identity provider")


class DemoIdentityProvider:
    def __init__(self, state_dir: Path, *, host: str = "127.0.0.1"):
        self.host = host
        self.port = kept_port(state_dir, host)
        self.issuer = f"http://{host}:{self.port}"
        self.key = load_key(state_dir)
        self.kid = self.key.thumbprint()
        self.client_secret = kept_secret(state_dir, CLIENT_SECRET_FILE, lambda: secrets.token_urlsafe(32))
        self.redirect_uri: str | None = None
        """Set by `configure` once the server's public origin is known."""
        self.codes: dict[str, Grant] = {}
        self.clock = time.monotonic

    def configure(self, public_origin: str) -> dict[str, str]:
        """Register the server as the one client; returns the settings it signs in with."""
        self.redirect_uri = f"{public_origin}/auth/callback"
        return {
            "OIDC_ISSUER": self.issuer,
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET": self.client_secret,
        }

    async def serve(self, *, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
        config = HypercornConfig()
        config.bind = [f"{self.host}:{self.port}"]
        config.accesslog = None  # codes travel in URLs: never log them
        config.errorlog = logging.getLogger("playsite.demo.identity")
        await hypercorn_serve(self.app(), config, task_status=task_status)

    # ----- the routes -------------------------------------------------------------------------

    def app(self) -> QuartTrio:
        app = QuartTrio("demo-identity")
        app.config["MAX_CONTENT_LENGTH"] = 16 * 1024

        @app.get("/.well-known/openid-configuration")
        async def discovery() -> ResponseReturnValue:
            return self.discovery()

        @app.get("/jwks")
        async def jwks() -> ResponseReturnValue:
            return {"keys": [{**self.key.as_dict(private=False), "kid": self.kid, "use": "sig", "alg": "ES256"}]}

        icon = (Path(__file__).parents[1] / "web" / "assets" / "favicon.svg").read_bytes()

        @app.get("/favicon.ico")
        async def favicon() -> Response:
            """playsite's icon, for the tab (a browser asks for it; a 404 was a console error)."""
            return Response(icon, content_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})

        @app.get("/sign-in.css")
        async def style() -> Response:
            return Response(STYLE, content_type="text/css", headers={"Cache-Control": "no-cache"})

        @app.get("/authorize")
        async def authorize_page() -> ResponseReturnValue:
            params = {name: request.args.get(name, "") for name in AUTHORIZE_FIELDS}
            params["response_type"] = request.args.get("response_type", "")
            try:
                self.check_request(params)
            except BadRequest as error:
                return self.page(self.refusal(str(error)), 400)
            return self.page(self.form(params))

        @app.post("/authorize")
        async def authorize() -> ResponseReturnValue:
            form = await request.form
            params = {name: form.get(name, "") for name in AUTHORIZE_FIELDS}
            params["response_type"] = "code"
            try:
                self.check_request(params)
            except BadRequest as error:
                return self.page(self.refusal(str(error)), 400)
            nickname = form.get("nickname", "").strip()
            if not NICKNAME.fullmatch(nickname):
                message = f"\u201c{nickname[:40]}\u201d cannot be a nickname." if nickname else "Type a nickname first."
                return self.page(self.form(params, nickname=nickname, error=message), 400)
            self.prune()
            if len(self.codes) >= CODES_MAX:
                return self.page(self.refusal("Too many sign-ins at once; try again in a minute."), 503)
            code = secrets.token_urlsafe(32)
            self.codes[code] = Grant(
                redirect_uri=params["redirect_uri"],
                challenge=params["code_challenge"],
                nonce=params["nonce"] or None,
                nickname=nickname,
                expires_at=self.clock() + CODE_LIFETIME_S,
            )
            target = add_params_to_uri(params["redirect_uri"], [("code", code), ("state", params["state"])])
            return Response("", status=303, headers={"Location": target, "Cache-Control": "no-store"})

        @app.post("/token")
        async def token() -> ResponseReturnValue:
            form = await request.form
            status, body = self.exchange(request.headers.get("Authorization", ""), form)
            headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
            if status == 401:
                headers["WWW-Authenticate"] = 'Basic realm="playsite-demo"'
            return Response(json.dumps(body), status=status, content_type="application/json", headers=headers)

        return app

    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "scopes_supported": ["openid", "profile", "email"],
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "preferred_username", "nickname"],
        }

    # ----- the flow ---------------------------------------------------------------------------

    def check_request(self, params: dict[str, str]) -> None:
        """Refuse what the one client never sends; never redirect to an unknown address."""
        if params["client_id"] != CLIENT_ID:
            raise BadRequest("This sign-in request names an unknown application.")
        if self.redirect_uri is None or params["redirect_uri"] != self.redirect_uri:
            raise BadRequest("This sign-in request would send you to an unknown address.")
        if params["response_type"] != "code":
            raise BadRequest("This sign-in request asks for an unsupported response type.")
        if "openid" not in params["scope"].split():
            raise BadRequest("This sign-in request does not ask for OpenID Connect.")
        if params["code_challenge_method"] != "S256" or not VERIFIER.fullmatch(params["code_challenge"]):
            raise BadRequest("This sign-in request has no PKCE challenge (S256).")
        if not params["state"] or len(params["state"]) > 512 or len(params["nonce"]) > 512:
            raise BadRequest("This sign-in request has no usable state.")

    def prune(self) -> None:
        now = self.clock()
        for code in [code for code, grant in self.codes.items() if grant.expires_at <= now]:
            del self.codes[code]

    def exchange(self, authorization: str, form: MultiDict[str, str]) -> tuple[int, dict[str, object]]:
        """The token endpoint: (status, body)."""
        if not self.client_authenticated(authorization):
            return 401, {"error": "invalid_client"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        grant = self.codes.pop(form.get("code", ""), None)  # single use: gone at its first presentation
        if grant is None or grant.expires_at <= self.clock():
            return 400, {"error": "invalid_grant"}
        if form.get("redirect_uri") != grant.redirect_uri:
            return 400, {"error": "invalid_grant"}
        verifier = form.get("code_verifier", "")
        if not VERIFIER.fullmatch(verifier) or not compare_s256_code_challenge(verifier, grant.challenge):
            return 400, {"error": "invalid_grant"}
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject_of(grant.nickname),
            "aud": CLIENT_ID,
            "iat": now,
            "auth_time": now,
            "exp": now + TOKEN_LIFETIME_S,
            "preferred_username": grant.nickname,
            "nickname": grant.nickname,
        }
        if grant.nonce is not None:
            claims["nonce"] = grant.nonce
        id_token = jwt.encode({"alg": "ES256", "kid": self.kid, "typ": "JWT"}, claims, self.key, algorithms=["ES256"])
        return 200, {
            "access_token": secrets.token_urlsafe(32),
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME_S,
            "scope": "openid profile",
            "id_token": id_token,
        }

    def client_authenticated(self, authorization: str) -> bool:
        scheme, _, encoded = authorization.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            user, _, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        # RFC 6749 2.3.1: both are form-urlencoded before the Basic encoding.
        return hmac.compare_digest(unquote(user).encode(), CLIENT_ID.encode()) and hmac.compare_digest(
            unquote(password).encode(), self.client_secret.encode()
        )

    # ----- the page ---------------------------------------------------------------------------

    def page(self, main: str, status: int = 200) -> Response:
        document = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            "<title>Sign in: playsite demo identity provider</title>"
            '<link rel="stylesheet" href="/sign-in.css"></head>'
            f"<body><main>{main}</main></body></html>"
        )
        site = urlsplit(self.redirect_uri or "")
        csp = CSP.format(site=f"{site.scheme}://{site.netloc}" if site.netloc else "")
        headers = {**PAGE_HEADERS, "Content-Security-Policy": csp}
        return Response(document, status=status, content_type="text/html; charset=utf-8", headers=headers)

    def form(self, params: dict[str, str], *, nickname: str = "", error: str = "") -> str:
        hidden = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(params[name])}">' for name in AUTHORIZE_FIELDS
        )
        site = urlsplit(params["redirect_uri"])
        back = f"{site.scheme}://{site.netloc}/"
        problem = f'<p class="error" id="sign-in-error" role="alert">{html.escape(error)}</p>' if error else ""
        invalid = ' sign-in-error" aria-invalid="true' if error else ""
        return (
            '<span class="badge">Demo identity provider</span>'
            "<h1>Sign in to playsite</h1>"
            "<p>This is the demo's own sign-in: there is no password, and you become whoever you "
            "name. Type a nickname (alice in one window, bob in another) to play as two accounts. "
            "The same nickname is the same account next time.</p>"
            f'<form method="post" action="/authorize">{hidden}'
            '<label for="nickname">Nickname</label>'
            f'<input type="text" id="nickname" name="nickname" value="{html.escape(nickname)}" required autofocus'
            ' minlength="3" maxlength="20" pattern="[A-Za-z0-9_\\-]{3,20}" autocomplete="username"'
            f' spellcheck="false" aria-describedby="nickname-help{invalid}">'
            '<p id="nickname-help">3 to 20 letters, digits, _ or -.</p>'
            f'{problem}<button type="submit" id="sign-in">Sign in</button></form>'
            f'<small>Never use this provider on a network: it signs anyone in as anyone. '
            f'<a href="{html.escape(back)}">Back to playsite</a></small>'
        )

    def refusal(self, message: str) -> str:
        return (
            '<span class="badge">Demo identity provider</span><h1>Sign-in refused</h1>'
            f'<p class="error" id="sign-in-error">{html.escape(message)}</p>'
        )
