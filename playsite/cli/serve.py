"""`playsite serve`: validate configuration, print it, run the server until a signal."""

from __future__ import annotations

import argparse
import logging
import os
import sys

import trio

from playsite.config import ConfigError, Settings, unknown_variables
from playsite.store.database import DatabaseUnavailable
from playsite.store.lease import LeaseLost, LeaseTaken
from playsite.store.migrations import MigrationError

log = logging.getLogger("playsite")

EXIT_CONFIG = 2
EXIT_BOOT = 3


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the game server (settings come from the environment; see README)"
    )
    parser.set_defaults(run=run)


def load_settings_or_exit() -> Settings:
    try:
        return Settings.from_environ()
    except ConfigError as error:
        for problem in error.problems:
            print(f"playsite: configuration error: {problem}", file=sys.stderr)
        sys.exit(EXIT_CONFIG)


def configure_logging(settings: Settings) -> None:
    """Every line of a running server: `<time> <LEVEL> <logger>: <message>` on stderr."""
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # httpx logs every request URL at INFO; outbound URLs (webhooks) may carry secrets.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit()
    configure_logging(settings)
    print("playsite: effective configuration", file=sys.stderr)
    for name, value in settings.effective():
        print(f"  {name}={value}", file=sys.stderr)
    if settings.database_url is None:
        # said, not only implied by DATABASE_URL=(unset): a secret that failed to arrive starts a
        # server whose every game goes with its next restart (ops review s74)
        log.warning(
            "no DATABASE_URL: games, accounts and ratings are kept in this process's memory only,"
            " and lost when it stops"
        )
    for name in unknown_variables(os.environ):
        log.warning("%s is not a setting of playsite (misspelt?): ignored", name)
    from playsite.server import main

    try:
        trio.run(main, settings)
    except KeyboardInterrupt:
        pass
    except Exception as failure:
        message = boot_failure(failure, settings)
        if message is None:
            raise
        log.error("%s", message)
        return EXIT_BOOT
    log.info("stopped")
    return 0


def boot_failure(failure: BaseException, settings: Settings) -> str | None:
    """An operator-facing sentence for the expected ways a boot fails, else None.

    Failures arrive wrapped in trio's exception groups; the first known leaf decides.
    """
    if isinstance(failure, BaseExceptionGroup):
        for leaf in failure.exceptions:
            if (message := boot_failure(leaf, settings)) is not None:
                return message
        return None
    if isinstance(failure, (LeaseTaken, LeaseLost)):
        return str(failure)
    if isinstance(failure, DatabaseUnavailable):
        return f"cannot reach PostgreSQL: {failure}"
    if isinstance(failure, MigrationError):
        return str(failure)
    if isinstance(failure, OSError):
        return f"cannot listen on {settings.host}:{settings.port}: {failure.strerror or failure}"
    return None
