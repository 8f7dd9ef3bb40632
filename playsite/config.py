"""Settings read once from the environment into one frozen value, validated at boot.

Every setting the service reads lives here, with its environment name, default and
validation. `Settings.from_environ` collects *all* problems before failing, so an
operator fixes a bad deployment in one round instead of one variable at a time.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

import attrs

from playsite.principals import canonical_uuid

SHOWCASE_RESERVED_SEATS_REQUIRED = 1
"""service.md, Admission rule 2: with the showcase enabled the reserved seat count is exactly 1."""

REDACTED = "<redacted>"


class ConfigError(Exception):
    """The environment describes a deployment that must not boot; `problems` says why."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def default_tree_workers() -> int:
    """No tree workers on one or two cores: a tree costs the serving process ~0.2 ms (p99
    ~1 ms), and on two cores shared with other work the hand-over to a worker and back waited
    far longer than that (bench/results/tree_workers.md). With three cores or more, one worker
    per core beyond the one serving sockets, at least 2 (a tree asked while the only worker
    computes a batch waits for that whole batch), at most 4."""
    cores = os.cpu_count() or 1
    return 0 if cores <= 2 else max(2, min(4, cores - 1))


@attrs.frozen(kw_only=True)
class Settings:
    host: str = "0.0.0.0"
    port: int = 8080
    database_url: str | None = attrs.field(default=None, repr=lambda url: redact_url(url) if url else "None")
    """Absent means the in-memory store: nothing survives a restart."""
    db_pool_size: int = 8
    db_statement_timeout_ms: int = 5000
    """Server-side `statement_timeout`, so a cancelled caller never waits on a hung query."""

    persistence_enabled: bool = False
    game_durability: str = "best_effort"
    """Durability of ordinary rooms: best_effort, or required (fail closed, as the showcase is)."""
    analytics_enabled: bool = False
    analytics_url: str | None = None
    analytics_token: str | None = attrs.field(default=None, repr=False)
    ladder_enabled: bool = False
    rating_batch_enabled: bool = False
    rating_period_s: int = 3600
    """A rating period: the batch rates what finished since the last one, then waits this long."""
    webhook_push_enabled: bool = False
    webhook_allow_loopback: bool = False
    """Development and tests only: lets webhook URLs resolve to loopback addresses."""
    retention_enabled: bool = False
    retention_days: int = 30

    showcase_enabled: bool = False
    showcase_reserved_seats: int = 1
    showcase_bot: str | None = None
    """Featured bot as `team/name`."""

    webhook_session_management_enabled: bool = False
    session_secret: str | None = attrs.field(default=None, repr=False)
    cors_origins: tuple[str, ...] = ()
    cors_any_origin: bool = False
    """`*` among PLAY_CORS_ORIGINS: any page may read the answers, without credentials (the
    exact origins listed keep theirs, and alone may make session writes)."""
    admins: tuple[str, ...] = ()
    """Account UUIDs allowed on `/admin/...`."""
    oidc_issuer: str | None = None
    """The OpenID Connect provider's issuer URL (its discovery document is read from it)."""
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = attrs.field(default=None, repr=False)
    public_origin: str | None = None
    """scheme://host[:port] people reach the service at: the sign-in redirect URI is built
    from it (the service never guesses its own host name from a request)."""
    session_lifetime_hours: int = 168
    """How long a sign-in lasts before the person signs in again (the session cookie's lifetime)."""

    idle_forfeit_s: int = 0
    """Unlimited games: a seat that does not play its roll within this many seconds loses on
    time (0: never; the dicechess-play ecosystem uses 120)."""
    bot_idle_forfeit_s: int = 120
    """Unlimited games with a bot seat: the same forfeit, on by default as in the ecosystem, so
    a bot that stops answering never holds a game and its capacity forever (0: never; the
    shorter of the two applies when both are set)."""
    first_move_s: int = 30
    """Clocked games: a person who has not played a turn yet and leaves a roll unplayed this
    long aborts the game (0: never), so an opponent who never moves holds nobody for a whole clock."""
    trusted_proxies: tuple[str, ...] = ()
    """Peer addresses (IPs or CIDR networks) whose `X-Forwarded-Proto` says whether the
    client's request came over HTTPS (a TLS-terminating proxy in front of the service)."""
    house_bots_enabled: bool = True
    """`house/random` and `house/greedy`, played in-process (docs/bots/house.md)."""
    metrics_token: str | None = attrs.field(default=None, repr=False)
    """When set, GET /metrics answers Prometheus text to `Authorization: Bearer <token>`."""
    secrets_key: str | None = attrs.field(default=None, repr=False)
    """32 random bytes as 64 hex characters: webhook secrets are stored sealed under it
    (AES-256-GCM, playsite/webhooks/sealing.py). Unset: they are stored in plain text."""
    secrets_key_previous: str | None = attrs.field(default=None, repr=False)
    """The key before a rotation: values sealed under it still open, and the boot re-seals them."""
    memory_finished_kept: int = 10_000
    """Without a database: how many finished games (archive, result, final snapshot) the memory
    store keeps, the oldest dropped first (about 20 KiB each)."""
    gc_tuning: bool = True
    """Freeze what boot allocated and what survives each collection, collect the youngest
    generation less often (gcwatch)."""
    gc_full_interval_s: int = 0
    """Seconds between full collections (frozen objects included) once tuned (0: never, the
    default: steady state makes no reference cycles, and the tests hold it to none)."""
    heap_trim_interval_s: int = 60
    """Seconds between two trims of the C heap (heaptrim: free pages back to the system; 0: never)."""
    tree_workers: int = 0
    """Worker processes computing legal-move trees (rooms/trees.py); 0: in the serving process.
    From the environment the default is one per core beyond the first, at most 4."""
    send_buffer_bytes: int = 0
    """Kernel send buffer of every accepted connection (0: the kernel sizes it). Bounds what
    a client that stops reading holds in the kernel before its events queue up and it is dropped."""
    send_stall_timeout_s: int = 30
    """A connection whose client has taken none of the bytes sent to it for this long is cut by
    the kernel (TCP_USER_TIMEOUT on the listening sockets, inherited by every connection)."""
    dice_seed_window_ms: int = 2000
    game_creations_per_minute: int = 30
    """`POST /games` per client address per minute."""
    unjoined_games_max: int = 1000
    """Friend games waiting for their seats that may exist at once (each holds a task for its join window)."""
    socket_connects_per_minute: int = 120
    """Game WebSocket handshakes per client address per minute."""
    bot_commands_per_minute: int = 3000
    """`POST /bot/game/{id}/seed|move|resign` per client address per minute."""
    sockets_per_address: int = 200
    """Game sockets (seats and spectators) one client address may hold at once."""
    spectators_per_game: int = 500
    """Spectator sockets one game accepts at once (seats are never limited)."""
    spectators_per_address: int = 20
    """Spectator sockets one client address may hold at once, over all games."""
    socket_frames_per_second: int = 20
    """Frames one game socket may send each second once its burst is spent (the rest wait)."""
    socket_frame_burst: int = 40
    """Frames one game socket may send at once before its pace applies."""
    ndjson_keepalive_ms: int = 25_000
    """Blank keep-alive line after this much silence on an ndjson stream."""
    move_verdict_wait_ms: int = 3000
    """How long POST /bot/game/{id}/move waits for the room's verdict before answering 202."""
    log_level: str = "info"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Parse and validate; raises ConfigError listing every problem found."""
        return _Reader(os.environ if environ is None else environ).settings()

    def effective(self) -> list[tuple[str, str]]:
        """(ENV_NAME, shown value) pairs for the start-up banner, secrets redacted."""
        shown = []
        for name, field in _FIELDS.items():
            value = getattr(self, field)
            if (value is None or value == ()) and not (field == "cors_origins" and self.cors_any_origin):
                text = "(unset)"
            elif field in _SECRET_FIELDS:
                text = REDACTED
            elif field == "database_url":
                text = redact_url(value)
            elif field == "cors_origins" and self.cors_any_origin:
                text = ",".join(("*", *value))
            elif isinstance(value, tuple):
                text = ",".join(value)
            elif isinstance(value, bool):
                text = "true" if value else "false"
            else:
                text = str(value)
            shown.append((name, text))
        return shown

    def accounts_missing(self) -> list[str]:
        """What keeps sign-in (the `/auth/...` routes) unmounted; empty when it is mounted."""
        needed = {
            "DATABASE_URL (persistence)": self.persistence_enabled,
            "PLAY_SESSION_SECRET": self.session_secret is not None,
            "OIDC_ISSUER": self.oidc_issuer is not None,
            "OIDC_CLIENT_ID": self.oidc_client_id is not None,
            "OIDC_CLIENT_SECRET": self.oidc_client_secret is not None,
            "PLAY_PUBLIC_ORIGIN": self.public_origin is not None,
        }
        return [name for name, present in needed.items() if not present]

    @property
    def accounts_enabled(self) -> bool:
        return not self.accounts_missing()

    def management_missing(self) -> list[str]:
        """What keeps `/me` and `/admin` unmounted although WEBHOOK_SESSION_MANAGEMENT_ENABLED
        asks for them (service.md: persistence, session verification, an origin allow-list)."""
        needed = {
            "DATABASE_URL (persistence)": self.persistence_enabled,
            "sign-in (" + ", ".join(self.accounts_missing()) + ")": self.accounts_enabled,
            "PLAY_CORS_ORIGINS": bool(self.cors_origins),
        }
        return [name for name, present in needed.items() if not present]

    @property
    def session_management_mountable(self) -> bool:
        """service.md: `/me` and `/admin` are mounted only when all four conditions hold."""
        return self.webhook_session_management_enabled and not self.management_missing()


# Environment name -> Settings field, in banner order.
_FIELDS = {
    "PLAY_HOST": "host",
    "PLAY_PORT": "port",
    "DATABASE_URL": "database_url",
    "PLAY_DB_POOL_SIZE": "db_pool_size",
    "PLAY_DB_STATEMENT_TIMEOUT_MS": "db_statement_timeout_ms",
    "PERSISTENCE_ENABLED": "persistence_enabled",
    "GAME_DURABILITY": "game_durability",
    "ANALYTICS_INGEST_ENABLED": "analytics_enabled",
    "ANALYTICS_URL": "analytics_url",
    "ANALYTICS_TOKEN": "analytics_token",
    "LADDER_SCHEDULER_ENABLED": "ladder_enabled",
    "RATING_BATCH_ENABLED": "rating_batch_enabled",
    "RATING_PERIOD_S": "rating_period_s",
    "WEBHOOK_PUSH_ENABLED": "webhook_push_enabled",
    "WEBHOOK_ALLOW_LOOPBACK": "webhook_allow_loopback",
    "RETENTION_ENABLED": "retention_enabled",
    "RETENTION_DAYS": "retention_days",
    "SHOWCASE_ENABLED": "showcase_enabled",
    "SHOWCASE_RESERVED_SEATS": "showcase_reserved_seats",
    "SHOWCASE_BOT": "showcase_bot",
    "WEBHOOK_SESSION_MANAGEMENT_ENABLED": "webhook_session_management_enabled",
    "PLAY_SESSION_SECRET": "session_secret",
    "PLAY_CORS_ORIGINS": "cors_origins",
    "PLAY_ADMINS": "admins",
    "OIDC_ISSUER": "oidc_issuer",
    "OIDC_CLIENT_ID": "oidc_client_id",
    "OIDC_CLIENT_SECRET": "oidc_client_secret",
    "PLAY_PUBLIC_ORIGIN": "public_origin",
    "PLAY_SESSION_LIFETIME_HOURS": "session_lifetime_hours",
    "PLAY_HOUSE_BOTS": "house_bots_enabled",
    "PLAY_METRICS_TOKEN": "metrics_token",
    "PLAY_SECRETS_KEY": "secrets_key",
    "PLAY_SECRETS_KEY_PREVIOUS": "secrets_key_previous",
    "PLAY_MEMORY_FINISHED_KEPT": "memory_finished_kept",
    "PLAY_GC_TUNING": "gc_tuning",
    "PLAY_GC_FULL_INTERVAL_S": "gc_full_interval_s",
    "PLAY_HEAP_TRIM_INTERVAL_S": "heap_trim_interval_s",
    "PLAY_SEND_BUFFER_BYTES": "send_buffer_bytes",
    "PLAY_SEND_STALL_TIMEOUT_S": "send_stall_timeout_s",
    "PLAY_TREE_WORKERS": "tree_workers",
    "PLAY_IDLE_FORFEIT_S": "idle_forfeit_s",
    "PLAY_BOT_IDLE_FORFEIT_S": "bot_idle_forfeit_s",
    "PLAY_FIRST_MOVE_S": "first_move_s",
    "PLAY_TRUSTED_PROXIES": "trusted_proxies",
    "DICE_SEED_WINDOW_MS": "dice_seed_window_ms",
    "PLAY_GAME_CREATIONS_PER_MINUTE": "game_creations_per_minute",
    "PLAY_UNJOINED_GAMES_MAX": "unjoined_games_max",
    "PLAY_SOCKET_CONNECTS_PER_MINUTE": "socket_connects_per_minute",
    "PLAY_BOT_COMMANDS_PER_MINUTE": "bot_commands_per_minute",
    "PLAY_SOCKETS_PER_ADDRESS": "sockets_per_address",
    "PLAY_SPECTATORS_PER_GAME": "spectators_per_game",
    "PLAY_SOCKET_FRAMES_PER_SECOND": "socket_frames_per_second",
    "PLAY_SOCKET_FRAME_BURST": "socket_frame_burst",
    "PLAY_SPECTATORS_PER_ADDRESS": "spectators_per_address",
    "PLAY_NDJSON_KEEPALIVE_MS": "ndjson_keepalive_ms",
    "PLAY_MOVE_VERDICT_WAIT_MS": "move_verdict_wait_ms",
    "PLAY_LOG_LEVEL": "log_level",
}
_SECRET_FIELDS = {"analytics_token", "session_secret", "oidc_client_secret", "metrics_token"}
_SECRET_FIELDS |= {"secrets_key", "secrets_key_previous"}
_SECRETS_KEY = re.compile(r"[0-9a-fA-F]{64}")
SESSION_SECRET_MIN_BYTES = 32
"""PLAY_SESSION_SECRET signs sessions with HMAC-SHA256: shorter keys are refused."""
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_LOG_LEVELS = ("debug", "info", "warning", "error")
_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """The `PLAY_*` names in `environ` that no setting reads: misspelt ones, which would
    otherwise be ignored without a word (ops review s74: `PLAY_PROT=9000` served on 8080)."""
    return sorted(name for name in environ if name.startswith("PLAY_") and name not in _FIELDS)


def redact_url(url: str) -> str:
    """Drop the password from a connection URL before it is printed anywhere: the one after the
    user name, and a `password=` parameter (libpq takes either; ops review s74: the second was printed)."""
    parts = urlsplit(url)
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{REDACTED}@{parts.hostname or ''}"
        if parts.port is not None:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    if parts.query:
        parts = parts._replace(query=_PASSWORD_PARAMETER.sub(rf"\1{REDACTED}", parts.query))
    return urlunsplit(parts)


_PASSWORD_PARAMETER = re.compile(r"((?:^|&)password=)[^&]*", re.IGNORECASE)


class _Reader:
    """Reads one variable at a time, remembering problems instead of raising at the first."""

    def __init__(self, environ: Mapping[str, str]):
        self.environ = environ
        self.problems: list[str] = []

    def raw(self, name: str) -> str | None:
        value = self.environ.get(name)
        if value is None or value.strip() == "":
            return None
        return value.strip()

    def flag(self, name: str, default: bool) -> bool:
        value = self.raw(name)
        if value is None:
            return default
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        self.problems.append(f"{name}={value!r} is not a boolean (use true or false)")
        return default

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        value = self.raw(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            self.problems.append(f"{name}={value!r} is not an integer")
            return default
        if not low <= number <= high:
            self.problems.append(f"{name}={number} is outside {low}..{high}")
            return default
        return number

    def url(self, name: str, schemes: tuple[str, ...]) -> str | None:
        value = self.raw(name)
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.hostname:
            self.problems.append(f"{name} must be a {' or '.join(schemes)} URL with a host")
            return None
        return value

    def origins(self, name: str, *, wildcard: bool = False) -> tuple[str, ...]:
        """The exact origins listed; `wildcard`: `*` may be listed too (it is not an origin,
        and is left out of the answer)."""
        value = self.raw(name)
        if value is None:
            return ()
        origins = []
        for item in (part.strip() for part in value.split(",")):
            if wildcard and item == "*":
                continue
            if "*" in item:
                self.problems.append(f"{name}: {item!r}: no patterns; list each origin, or `*` alone")
            elif _is_origin(item):
                origins.append(item)
            else:
                self.problems.append(f"{name}: {item!r} is not an origin (scheme://host[:port], no path or slash)")
        return tuple(origins)

    def origin(self, name: str) -> str | None:
        value = self.raw(name)
        if value is not None and not _is_origin(value):
            self.problems.append(f"{name}: {value!r} is not an origin (scheme://host[:port], no path or slash)")
            return None
        return value

    def networks(self, name: str) -> tuple[str, ...]:
        value = self.raw(name)
        if value is None:
            return ()
        found = []
        for item in (part.strip() for part in value.split(",")):
            try:
                found.append(str(ipaddress.ip_network(item, strict=False)))
            except ValueError:
                self.problems.append(f"{name}: {item!r} is not an IP address or CIDR network")
        return tuple(found)

    def uuids(self, name: str) -> tuple[str, ...]:
        value = self.raw(name)
        if value is None:
            return ()
        found = []
        for item in (part.strip() for part in value.split(",")):
            if (account_id := canonical_uuid(item)) is not None:
                found.append(account_id)
            else:
                self.problems.append(f"{name}: {item!r} is not an account UUID")
        return tuple(found)

    def key(self, name: str) -> str | None:
        """32 bytes as 64 hex characters (lowercased); a problem never echoes the value."""
        value = self.raw(name)
        if value is None:
            return None
        if not _SECRETS_KEY.fullmatch(value):
            self.problems.append(
                f"{name} must be 32 random bytes as 64 hex characters"
                ' (python -c "import secrets; print(secrets.token_hex(32))")'
            )
            return None
        return value.lower()

    def host(self, name: str, default: str) -> str:
        value = self.raw(name)
        if value is None:
            return default
        try:
            ipaddress.ip_address(value)
        except ValueError:
            if not _HOST_NAME.fullmatch(value):
                self.problems.append(f"{name}={value!r} is not an address or host name")
                return default
        return value

    def settings(self) -> Settings:
        database_url = self.url("DATABASE_URL", ("postgres", "postgresql"))
        persistence = self.flag("PERSISTENCE_ENABLED", database_url is not None)
        log_level = (self.raw("PLAY_LOG_LEVEL") or "info").lower()
        if log_level not in _LOG_LEVELS:
            self.problems.append(f"PLAY_LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}")
            log_level = "info"
        showcase_bot = self.raw("SHOWCASE_BOT")
        durability = (self.raw("GAME_DURABILITY") or "best_effort").lower()
        if durability not in ("best_effort", "required"):
            self.problems.append("GAME_DURABILITY must be best_effort or required")
            durability = "best_effort"
        settings = Settings(
            host=self.host("PLAY_HOST", "0.0.0.0"),
            port=self.integer("PLAY_PORT", 8080, 0, 65535),
            database_url=database_url,
            db_pool_size=self.integer("PLAY_DB_POOL_SIZE", 8, 1, 100),
            db_statement_timeout_ms=self.integer("PLAY_DB_STATEMENT_TIMEOUT_MS", 5000, 100, 600_000),
            persistence_enabled=persistence,
            game_durability=durability,
            analytics_enabled=self.flag("ANALYTICS_INGEST_ENABLED", False),
            analytics_url=self.url("ANALYTICS_URL", ("http", "https")),
            analytics_token=self.raw("ANALYTICS_TOKEN"),
            ladder_enabled=self.flag("LADDER_SCHEDULER_ENABLED", False),
            rating_batch_enabled=self.flag("RATING_BATCH_ENABLED", False),
            rating_period_s=self.integer("RATING_PERIOD_S", 3600, 1, 86400),
            webhook_push_enabled=self.flag("WEBHOOK_PUSH_ENABLED", False),
            webhook_allow_loopback=self.flag("WEBHOOK_ALLOW_LOOPBACK", False),
            retention_enabled=self.flag("RETENTION_ENABLED", False),
            retention_days=self.integer("RETENTION_DAYS", 30, 1, 36500),
            showcase_enabled=self.flag("SHOWCASE_ENABLED", False),
            showcase_reserved_seats=self.integer("SHOWCASE_RESERVED_SEATS", 1, 0, 1000),
            showcase_bot=showcase_bot,
            webhook_session_management_enabled=self.flag("WEBHOOK_SESSION_MANAGEMENT_ENABLED", False),
            session_secret=self.raw("PLAY_SESSION_SECRET"),
            cors_origins=self.origins("PLAY_CORS_ORIGINS", wildcard=True),
            cors_any_origin="*" in [part.strip() for part in (self.raw("PLAY_CORS_ORIGINS") or "").split(",")],
            admins=self.uuids("PLAY_ADMINS"),
            oidc_issuer=self.url("OIDC_ISSUER", ("http", "https")),
            oidc_client_id=self.raw("OIDC_CLIENT_ID"),
            oidc_client_secret=self.raw("OIDC_CLIENT_SECRET"),
            public_origin=self.origin("PLAY_PUBLIC_ORIGIN"),
            session_lifetime_hours=self.integer("PLAY_SESSION_LIFETIME_HOURS", 168, 1, 24 * 90),
            house_bots_enabled=self.flag("PLAY_HOUSE_BOTS", True),
            metrics_token=self.raw("PLAY_METRICS_TOKEN"),
            secrets_key=self.key("PLAY_SECRETS_KEY"),
            secrets_key_previous=self.key("PLAY_SECRETS_KEY_PREVIOUS"),
            memory_finished_kept=self.integer("PLAY_MEMORY_FINISHED_KEPT", 10_000, 100, 10_000_000),
            gc_tuning=self.flag("PLAY_GC_TUNING", True),
            gc_full_interval_s=self.integer("PLAY_GC_FULL_INTERVAL_S", 0, 0, 86_400),
            heap_trim_interval_s=self.integer("PLAY_HEAP_TRIM_INTERVAL_S", 60, 0, 86_400),
            send_buffer_bytes=self.integer("PLAY_SEND_BUFFER_BYTES", 0, 0, 64 * 1024 * 1024),
            send_stall_timeout_s=self.integer("PLAY_SEND_STALL_TIMEOUT_S", 30, 1, 3600),
            tree_workers=self.integer("PLAY_TREE_WORKERS", default_tree_workers(), 0, 16),
            idle_forfeit_s=self.integer("PLAY_IDLE_FORFEIT_S", 0, 0, 86_400),
            bot_idle_forfeit_s=self.integer("PLAY_BOT_IDLE_FORFEIT_S", 120, 0, 86_400),
            first_move_s=self.integer("PLAY_FIRST_MOVE_S", 30, 0, 3600),
            trusted_proxies=self.networks("PLAY_TRUSTED_PROXIES"),
            dice_seed_window_ms=self.integer("DICE_SEED_WINDOW_MS", 2000, 0, 60_000),
            game_creations_per_minute=self.integer("PLAY_GAME_CREATIONS_PER_MINUTE", 30, 1, 100_000),
            unjoined_games_max=self.integer("PLAY_UNJOINED_GAMES_MAX", 1000, 1, 1_000_000),
            socket_connects_per_minute=self.integer("PLAY_SOCKET_CONNECTS_PER_MINUTE", 120, 1, 100_000),
            bot_commands_per_minute=self.integer("PLAY_BOT_COMMANDS_PER_MINUTE", 3000, 1, 1_000_000),
            sockets_per_address=self.integer("PLAY_SOCKETS_PER_ADDRESS", 200, 1, 1_000_000),
            spectators_per_game=self.integer("PLAY_SPECTATORS_PER_GAME", 500, 0, 100_000),
            spectators_per_address=self.integer("PLAY_SPECTATORS_PER_ADDRESS", 20, 0, 100_000),
            socket_frames_per_second=self.integer("PLAY_SOCKET_FRAMES_PER_SECOND", 20, 1, 100_000),
            socket_frame_burst=self.integer("PLAY_SOCKET_FRAME_BURST", 40, 1, 100_000),
            ndjson_keepalive_ms=self.integer("PLAY_NDJSON_KEEPALIVE_MS", 25_000, 10, 600_000),
            move_verdict_wait_ms=self.integer("PLAY_MOVE_VERDICT_WAIT_MS", 3000, 0, 60_000),
            log_level=log_level,
        )
        self.check_combinations(settings)
        if self.problems:
            raise ConfigError(self.problems)
        return settings

    def check_combinations(self, s: Settings) -> None:
        """Cross-setting rules: a subsystem switched on without what it needs."""
        if s.persistence_enabled and s.database_url is None:
            self.problems.append("PERSISTENCE_ENABLED=true needs DATABASE_URL")
        needs_database = {
            "ANALYTICS_INGEST_ENABLED": s.analytics_enabled,
            "RATING_BATCH_ENABLED": s.rating_batch_enabled,
            "RETENTION_ENABLED": s.retention_enabled,
        }
        for name, enabled in needs_database.items():
            if enabled and not s.persistence_enabled:
                self.problems.append(f"{name}=true needs persistence (DATABASE_URL)")
        if s.game_durability == "required" and not s.persistence_enabled:
            self.problems.append("GAME_DURABILITY=required needs persistence (DATABASE_URL)")
        if s.analytics_enabled and s.analytics_url is None:
            self.problems.append("ANALYTICS_INGEST_ENABLED=true needs ANALYTICS_URL")
        if s.secrets_key_previous is not None and self.raw("PLAY_SECRETS_KEY") is None:
            self.problems.append("PLAY_SECRETS_KEY_PREVIOUS needs PLAY_SECRETS_KEY (the new key it rotates to)")
        if s.session_secret is not None and len(s.session_secret.encode()) < SESSION_SECRET_MIN_BYTES:
            self.problems.append(f"PLAY_SESSION_SECRET must be at least {SESSION_SECRET_MIN_BYTES} bytes (it signs sessions)")
        if s.showcase_enabled:
            if s.showcase_reserved_seats != SHOWCASE_RESERVED_SEATS_REQUIRED:
                self.problems.append(
                    f"SHOWCASE_RESERVED_SEATS must be exactly {SHOWCASE_RESERVED_SEATS_REQUIRED} "
                    f"when SHOWCASE_ENABLED=true (got {s.showcase_reserved_seats})"
                )
            if s.showcase_bot is None or not _is_bot_slug(s.showcase_bot):
                self.problems.append("SHOWCASE_ENABLED=true needs SHOWCASE_BOT=team/name")


def _is_origin(item: str) -> bool:
    parts = urlsplit(item)
    exact = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    return parts.scheme in ("http", "https") and bool(parts.hostname) and item == exact


def _is_bot_slug(value: str) -> bool:
    team, _, name = value.partition("/")
    return all(part and part.replace("-", "").isalnum() and part == part.lower() for part in (team, name))
