"""Configuration is validated at boot: every bad value is named, nothing boots half-configured."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from playsite.config import REDACTED, ConfigError, Settings, default_tree_workers, redact_url


def problems(env: dict[str, str]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        Settings.from_environ(env)
    return caught.value.problems


def test_embedded_default_needs_no_configuration():
    settings = Settings.from_environ({})
    assert (settings.host, settings.port) == ("0.0.0.0", 8080)
    assert settings.database_url is None and not settings.persistence_enabled
    # service.md: every optional subsystem is enabled only by configuration.
    optional = {
        "analytics ingest": settings.analytics_enabled,
        "ladder scheduler": settings.ladder_enabled,
        "rating batch": settings.rating_batch_enabled,
        "webhook push": settings.webhook_push_enabled,
        "retention": settings.retention_enabled,
        "showcase table": settings.showcase_enabled,
        "session-based webhook management": settings.webhook_session_management_enabled,
    }
    assert [name for name, enabled in optional.items() if enabled] == []
    assert not settings.session_management_mountable


DATABASE = {"DATABASE_URL": "postgresql://db/play"}


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({**DATABASE, "ANALYTICS_INGEST_ENABLED": "true", "ANALYTICS_URL": "https://analytics.example"}, "analytics_enabled"),
        ({"LADDER_SCHEDULER_ENABLED": "true"}, "ladder_enabled"),
        ({**DATABASE, "RATING_BATCH_ENABLED": "true"}, "rating_batch_enabled"),
        ({"WEBHOOK_PUSH_ENABLED": "true"}, "webhook_push_enabled"),
        ({**DATABASE, "RETENTION_ENABLED": "true"}, "retention_enabled"),
        ({"SHOWCASE_ENABLED": "true", "SHOWCASE_BOT": "acme/alice"}, "showcase_enabled"),
    ],
)
def test_each_optional_subsystem_is_switched_on_by_its_own_setting(env, field):
    assert getattr(Settings.from_environ(env), field)
    [switch] = [name for name in env if name.endswith("_ENABLED")]
    assert not getattr(Settings.from_environ({**env, switch: "false"}), field), "the rest of its settings alone"


def test_database_url_switches_persistence_on_by_default():
    settings = Settings.from_environ({"DATABASE_URL": "postgresql://u:p@db:5432/play"})
    assert settings.persistence_enabled


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"PLAY_PORT": "http"}, "PLAY_PORT='http' is not an integer"),
        ({"PLAY_PORT": "70000"}, "PLAY_PORT=70000 is outside 0..65535"),
        ({"PLAY_HOST": "not a host"}, "PLAY_HOST"),
        ({"DATABASE_URL": "mysql://db/play"}, "DATABASE_URL must be a postgres or postgresql URL"),
        ({"PERSISTENCE_ENABLED": "true"}, "PERSISTENCE_ENABLED=true needs DATABASE_URL"),
        ({"PERSISTENCE_ENABLED": "maybe"}, "PERSISTENCE_ENABLED='maybe' is not a boolean"),
        ({"SHOWCASE_ENABLED": "yes please"}, "SHOWCASE_ENABLED='yes please' is not a boolean"),
        ({"ANALYTICS_INGEST_ENABLED": "true"}, "ANALYTICS_INGEST_ENABLED=true needs persistence"),
        (
            {"DATABASE_URL": "postgresql://db/play", "ANALYTICS_INGEST_ENABLED": "true"},
            "ANALYTICS_INGEST_ENABLED=true needs ANALYTICS_URL",
        ),
        ({"ANALYTICS_URL": "ftp://analytics"}, "ANALYTICS_URL must be a http or https URL"),
        ({"RATING_BATCH_ENABLED": "true"}, "RATING_BATCH_ENABLED=true needs persistence"),
        ({"RETENTION_ENABLED": "true"}, "RETENTION_ENABLED=true needs persistence"),
        ({"RETENTION_DAYS": "0"}, "RETENTION_DAYS=0 is outside"),
        ({"RATING_PERIOD_S": "0"}, "RATING_PERIOD_S=0 is outside"),
        ({"PLAY_CORS_ORIGINS": "https://play.example/"}, "is not an origin"),
        ({"PLAY_CORS_ORIGINS": "play.example"}, "is not an origin"),
        ({"PLAY_ADMINS": "alice"}, "PLAY_ADMINS: 'alice' is not an account UUID"),
        ({"DICE_SEED_WINDOW_MS": "-1"}, "DICE_SEED_WINDOW_MS=-1 is outside"),
        ({"PLAY_LOG_LEVEL": "loud"}, "PLAY_LOG_LEVEL must be one of"),
        ({"PLAY_DB_POOL_SIZE": "0"}, "PLAY_DB_POOL_SIZE=0 is outside"),
        ({"GAME_DURABILITY": "sometimes"}, "GAME_DURABILITY must be best_effort or required"),
        ({"GAME_DURABILITY": "required"}, "GAME_DURABILITY=required needs persistence"),
        ({"SHOWCASE_ENABLED": "true", "SHOWCASE_BOT": "acme/alice"}, None),
    ],
)
def test_each_bad_value_is_rejected_with_its_name(env, fragment):
    if fragment is None:
        Settings.from_environ(env)  # the valid control case of the table
        return
    assert any(fragment in problem for problem in problems(env)), problems(env)


def test_play_admins_are_account_ids_written_as_the_service_writes_them():
    written = "1b7c0a3e-3c63-4b6c-9d7e-0a4b0f3d2c11"
    settings = Settings.from_environ({"PLAY_ADMINS": f"{written.upper()}, {written}"})
    assert settings.admins == (written, written)
    for other_spelling in ("{" + written + "}", f"urn:uuid:{written}", written.replace("-", "")):
        assert problems({"PLAY_ADMINS": other_spelling}) == [f"PLAY_ADMINS: {other_spelling!r} is not an account UUID"]


@pytest.mark.parametrize("seats", ["0", "2", "5"])
def test_showcase_reserved_seats_must_be_exactly_one(seats):
    env = {"SHOWCASE_ENABLED": "true", "SHOWCASE_BOT": "acme/alice", "SHOWCASE_RESERVED_SEATS": seats}
    assert problems(env) == [
        f"SHOWCASE_RESERVED_SEATS must be exactly 1 when SHOWCASE_ENABLED=true (got {seats})"
    ]


def test_showcase_reserved_seats_is_free_while_showcase_disabled():
    assert Settings.from_environ({"SHOWCASE_RESERVED_SEATS": "0"}).showcase_reserved_seats == 0


def test_showcase_needs_a_featured_bot():
    assert problems({"SHOWCASE_ENABLED": "true"}) == ["SHOWCASE_ENABLED=true needs SHOWCASE_BOT=team/name"]


def test_all_problems_are_reported_at_once():
    found = problems({"PLAY_PORT": "x", "PLAY_ADMINS": "bob", "RETENTION_DAYS": "-3"})
    assert len(found) == 3


def test_booleans_accept_the_usual_spellings():
    for spelling in ("1", "true", "TRUE", "yes", "on"):
        assert Settings.from_environ({"LADDER_SCHEDULER_ENABLED": spelling}).ladder_enabled
    for spelling in ("0", "false", "No", "off"):
        assert not Settings.from_environ({"LADDER_SCHEDULER_ENABLED": spelling}).ladder_enabled


def test_effective_configuration_redacts_secrets():
    settings = Settings.from_environ(
        {
            "DATABASE_URL": "postgresql://play:hunter2@db:5432/play",
            "ANALYTICS_TOKEN": "tok-secret",
            "PLAY_SESSION_SECRET": "session-secret-of-at-least-32-bytes",
        }
    )
    shown = dict(settings.effective())
    text = repr(shown) + repr(settings)
    for secret in ("hunter2", "tok-secret", "session-secret"):
        assert secret not in text
    assert shown["DATABASE_URL"] == f"postgresql://play:{REDACTED}@db:5432/play"
    assert shown["ANALYTICS_TOKEN"] == REDACTED



def test_a_password_given_as_a_url_parameter_is_redacted_too():
    """Ops review s74: `?password=` (libpq takes it) was printed in clear by `migrate` and at boot."""
    url = "postgresql://play:hunter2@db:5432/play?sslmode=disable&password=QueryPW&passwordless=kept"
    shown = redact_url(url)
    assert "hunter2" not in shown and "QueryPW" not in shown
    assert shown == f"postgresql://play:{REDACTED}@db:5432/play?sslmode=disable&password={REDACTED}&passwordless=kept"
    assert dict(Settings.from_environ({"DATABASE_URL": url}).effective())["DATABASE_URL"] == shown


def test_session_management_mounts_only_when_all_conditions_hold():
    base = {
        "WEBHOOK_SESSION_MANAGEMENT_ENABLED": "true",
        "DATABASE_URL": "postgresql://db/play",
        "PLAY_SESSION_SECRET": "s" * 32,
        "OIDC_ISSUER": "https://id.example",
        "OIDC_CLIENT_ID": "playsite",
        "OIDC_CLIENT_SECRET": "c" * 16,
        "PLAY_PUBLIC_ORIGIN": "https://play.example",
        "PLAY_CORS_ORIGINS": "https://play.example",
    }
    assert Settings.from_environ(base).session_management_mountable
    assert Settings.from_environ(base).management_missing() == []
    for missing in base:
        env = {k: v for k, v in base.items() if k != missing}
        assert not Settings.from_environ(env).session_management_mountable, missing


def test_serve_with_bad_configuration_exits_2_without_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "playsite", "serve"],
        env={"PATH": "/usr/bin:/bin", "PLAY_PORT": "eighty", "SHOWCASE_ENABLED": "true",
             "SHOWCASE_BOT": "acme/alice", "SHOWCASE_RESERVED_SEATS": "2"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "configuration error: PLAY_PORT='eighty' is not an integer" in result.stderr
    assert "SHOWCASE_RESERVED_SEATS must be exactly 1" in result.stderr
    assert "Traceback" not in result.stderr


ACCOUNTS_ENV = {
    "DATABASE_URL": "postgresql://db/play",
    "PLAY_SESSION_SECRET": "k" * 32,
    "OIDC_ISSUER": "https://id.example",
    "OIDC_CLIENT_ID": "playsite",
    "OIDC_CLIENT_SECRET": "client-secret-value",
    "PLAY_PUBLIC_ORIGIN": "https://play.example",
}


def test_sign_in_is_enabled_only_when_every_setting_it_needs_is_present():
    assert Settings.from_environ(ACCOUNTS_ENV).accounts_enabled
    for missing in ACCOUNTS_ENV:
        settings = Settings.from_environ({k: v for k, v in ACCOUNTS_ENV.items() if k != missing})
        assert not settings.accounts_enabled, missing
        assert len(settings.accounts_missing()) == 1 and missing in settings.accounts_missing()[0]


def test_account_settings_are_validated_and_the_client_secret_redacted():
    with pytest.raises(ConfigError) as error:
        Settings.from_environ(
            {**ACCOUNTS_ENV, "PLAY_SESSION_SECRET": "short", "PLAY_PUBLIC_ORIGIN": "https://play.example/",
             "OIDC_ISSUER": "ftp://id.example", "PLAY_SESSION_LIFETIME_HOURS": "0"}
        )
    problems = " ".join(error.value.problems)
    for name in ("PLAY_SESSION_SECRET", "PLAY_PUBLIC_ORIGIN", "OIDC_ISSUER", "PLAY_SESSION_LIFETIME_HOURS"):
        assert name in problems
    settings = Settings.from_environ(ACCOUNTS_ENV)
    shown = dict(settings.effective())
    assert shown["OIDC_CLIENT_SECRET"] == REDACTED and shown["PLAY_SESSION_SECRET"] == REDACTED
    assert "client-secret-value" not in repr(settings) + repr(shown)


@pytest.mark.parametrize(("cores", "workers"), [(1, 0), (2, 0), (3, 2), (4, 3), (5, 4), (64, 4)])
def test_tree_workers_default_to_none_on_two_cores_and_to_at_least_two_beyond(monkeypatch, cores, workers):
    # On two cores the hand-over to a worker costs more than the tree; with one worker, a tree
    # asked while it computes a batch waits for that whole batch.
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert default_tree_workers() == workers
