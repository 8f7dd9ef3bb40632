"""The demo's settings: the operator's environment wins over the demo's defaults, except
DATABASE_URL, which is always the demo's own cluster. (`playsite.cli.demo` runs it all.)

Secrets the demo needs are made once into its data directory (mode 0600) and never printed:
`secrets-key` (PLAY_SECRETS_KEY: webhook secrets are sealed at rest) and `session-secret`
(PLAY_SESSION_SECRET: signs the session cookies, so sign-ins survive a restart).

The demo knows the address it serves before the server starts (`--port 0` is resolved to a
free port first), so it sets the public origin and the allowed origins from it: every
browser feature that needs an exact Origin (rematch, sign-out, nickname changes) works out
of the box."""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from collections.abc import Callable, Mapping
from pathlib import Path

from playsite.config import Settings
from playsite.demo.bot import BOT_ID

DEFAULTS = {
    "PLAY_HOST": "127.0.0.1",
    "PLAY_PORT": "8080",
    "RATING_BATCH_ENABLED": "true",
    "RATING_PERIOD_S": "10",  # ratings, profiles and the ranking move within seconds of a game
    "RETENTION_ENABLED": "true",
    "WEBHOOK_PUSH_ENABLED": "true",
    "WEBHOOK_ALLOW_LOOPBACK": "true",  # the featured bot answers on 127.0.0.1
    "SHOWCASE_ENABLED": "true",
    "SHOWCASE_BOT": BOT_ID,
}
SECRETS_KEY_FILE = "secrets-key"
SESSION_SECRET_FILE = "session-secret"
METRICS_TOKEN_FILE = "metrics-token"


def kept_secret(state_dir: Path, name: str, make: Callable[[], str]) -> str:
    """A secret read from the data directory, made there (0600) by `make()` on first use."""
    path = state_dir / name
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    state_dir.mkdir(parents=True, exist_ok=True)
    value = make()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made meanwhile by another run: use that one
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as file:
        file.write(value + "\n")
    return value


def demo_secrets_key(state_dir: Path) -> str:
    """The demo's PLAY_SECRETS_KEY (64 hex characters)."""
    return kept_secret(state_dir, SECRETS_KEY_FILE, lambda: secrets.token_hex(32))


def demo_session_secret(state_dir: Path) -> str:
    """The demo's PLAY_SESSION_SECRET (64 URL-safe characters)."""
    return kept_secret(state_dir, SESSION_SECRET_FILE, lambda: secrets.token_urlsafe(48))


def demo_metrics_token(state_dir: Path) -> str:
    """The demo's PLAY_METRICS_TOKEN: the bearer token GET /metrics asks for (43 URL-safe characters)."""
    return kept_secret(state_dir, METRICS_TOKEN_FILE, lambda: secrets.token_urlsafe(32))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_address(environ: Mapping[str, str], host: str | None, port: int | None) -> tuple[str, int]:
    """The address the demo will serve: --host/--port, else PLAY_HOST/PLAY_PORT, else the
    defaults; port 0 becomes a free port now, so the origins can name it."""
    host = host or environ.get("PLAY_HOST", "").strip() or DEFAULTS["PLAY_HOST"]
    if port is None:
        raw = environ.get("PLAY_PORT", "").strip() or DEFAULTS["PLAY_PORT"]
        port = int(raw) if raw.isdigit() else int(DEFAULTS["PLAY_PORT"])
    if port == 0:
        port = free_port(host)
    return host, port


def free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.bind((host.strip("[]"), 0))
        return probe.getsockname()[1]


def reserve_port(host: str, port: int) -> socket.socket | None:
    """Hold host:port until the server has bound it, so that no other program takes the port
    picked for `--port 0` meanwhile: a socket bound with SO_REUSEADDR but not listening, which
    the server (SO_REUSEADDR too) can bind beside; close it once the server listens. None when
    it cannot be held (the server's own bind then says why)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind((host.strip("[]"), port))
    except OSError:
        holder.close()
        return None
    return holder


def origins_for(host: str, port: int) -> tuple[str, list[str]]:
    """(public origin, allowed origins) of a server listening on host:port. A wildcard address
    is announced as 127.0.0.1; a loopback one is allowed under both names a browser may use."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    public = f"http://{shown}:{port}"
    allowed = [public]
    if is_loopback(host):
        allowed += [o for o in (f"http://127.0.0.1:{port}", f"http://localhost:{port}") if o not in allowed]
    return public, allowed


def demo_settings(
    environ: Mapping[str, str],
    database_url: str,
    *,
    host: str | None = None,
    port: int | None = None,
    secrets_key: str | None = None,
    sign_in: Mapping[str, str] | None = None,
    metrics_token: str | None = None,
    operator: str | None = None,
) -> Settings:
    """`sign_in`: OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and PLAY_SESSION_SECRET of
    the demo's own identity provider, or None (sign-in off, or configured by the operator).
    `metrics_token` mounts GET /metrics; `operator`, an account id, is the one administrator
    (PLAY_ADMINS) of `/admin`, mounted with `/me` (WEBHOOK_SESSION_MANAGEMENT_ENABLED)."""
    host, port = resolve_address(environ, host, port)
    public, allowed = origins_for(host, port)
    values = {
        **DEFAULTS,
        "PLAY_PUBLIC_ORIGIN": public,
        "PLAY_CORS_ORIGINS": ",".join(allowed),
        **(sign_in or {}),
        **({"PLAY_METRICS_TOKEN": metrics_token} if metrics_token else {}),
        **({"WEBHOOK_SESSION_MANAGEMENT_ENABLED": "true", "PLAY_ADMINS": operator} if operator else {}),
        **environ,
        "DATABASE_URL": database_url,
        "PERSISTENCE_ENABLED": "true",
        "PLAY_HOST": host,
        "PLAY_PORT": str(port),
    }
    if secrets_key is not None and not environ.get("PLAY_SECRETS_KEY", "").strip():
        values["PLAY_SECRETS_KEY"] = secrets_key
    return Settings.from_environ(values)
