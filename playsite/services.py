"""The typed `Services` of one running server, and `boot`, the one place that builds them.

`boot(settings, nursery)` reads top to bottom in the order docs/architecture.md gives: the store
(schema checked), the bot directory, the room registry with every durable room resumed
(before the port opens: nothing is served half-restored), then every loop the
configuration enables, each started with `await nursery.start(...)` in the caller's
nursery, so a loop's failure to start stops the boot. `server.main` and every test harness
call it; nothing else starts a loop and no module keeps state of its own.
"""

from __future__ import annotations

import logging
from functools import partial

import attrs
import trio

from playsite.accounts.admins import AdminAuthority
from playsite.accounts.service import Accounts
from playsite.analytics import run_outbox_pump
from playsite.archive.retention import run_retention
from playsite.bots.directory import BotDirectory
from playsite.bots.events import BotEvents
from playsite.bots.games import BotGames
from playsite.bots.resumed import abort_games_of_forgotten_bots
from playsite.bots.store import bot_store_for
from playsite.config import Settings
from playsite.dice import SeedSource, SystemSeedSource
from playsite.games.socket_limits import SocketLimits
from playsite.gcwatch import GcWatch, run_gc_watch
from playsite.house.players import HouseBots
from playsite.http.origin import OriginPolicy
from playsite.lobby.service import Lobby
from playsite.lobby.wake import Wakes
from playsite.heaptrim import HeapTrim, run_heap_trim
from playsite.loopwatch import LoopWatch, run_loop_watch
from playsite.ratings.batch import run_rating_batch
from playsite.ratings.book import RatingBook
from playsite.ratings.ladder import Ladder, run_ladder
from playsite.rematch.service import Rematches
from playsite.rooms.admission import Admission
from playsite.rooms.registry import Registry
from playsite.rooms.trees import TreePool
from playsite.showcase.table import ShowcaseTable
from playsite.stopping import Stopping
from playsite.store import Store, run_store
from playsite.store.database import Database
from playsite.store.lease import ServingLease, run_serving_lease
from playsite.store.postgres import PostgresStore
from playsite.strength.service import StrengthReports
from playsite.version import git_revision, package_version
from playsite.webhooks.delivery import WebhookDispatch
from playsite.webhooks.management import WebhookManagement
from playsite.webhooks.registrations import Webhooks
from playsite.webhooks.sealing import Sealer
from playsite.webhooks.store import seal_at_boot

log = logging.getLogger("playsite")


@attrs.frozen
class Services:
    """Everything the routes may reach, built once by `boot`."""

    settings: Settings
    store: Store
    database: Database | None
    """PostgreSQL, when the store is PostgreSQL (decided once, in `boot`); None on the memory store."""
    registry: Registry
    bots: BotDirectory
    bot_events: BotEvents
    bot_games: BotGames
    """How lobby and ladder games start: every game with a bot in it."""
    lobby: Lobby
    ratings: RatingBook
    webhooks: Webhooks
    webhook_dispatch: WebhookDispatch
    sockets: SocketLimits
    origins: OriginPolicy
    accounts: Accounts
    """Sign-in and sessions; `accounts.enabled` is False without persistence, a session secret and OIDC."""
    showcase: ShowcaseTable | None
    """The showcase table, when SHOWCASE_ENABLED."""
    rematches: Rematches | None
    """Rematch and continuation (PostgreSQL only)."""
    house: HouseBots | None
    """The house bots, when PLAY_HOUSE_BOTS (the default)."""
    lease: ServingLease | None
    """This process's serving lease (PostgreSQL only)."""
    ladder: Ladder | None
    strength: StrengthReports
    """The strength report (SPRT verdicts, Bradley-Terry ranking), recomputed by its loop."""
    wakes: Wakes
    """Waking catalog bots: probes in flight and recent answers, per bot."""
    management: WebhookManagement | None
    """Account-owned bots and staged webhook management (`/me`, `/admin`), when mountable."""
    version: str
    revision: str | None
    gc_watch: GcWatch
    """Pauses of the garbage collector, timed while the services run."""
    loop_watch: LoopWatch
    """How late the event loop wakes up (its lag), measured while the services run."""
    heap_trim: HeapTrim
    """The C heap's free pages given back to the system, once serving (PLAY_HEAP_TRIM_INTERVAL_S)."""
    stopping: Stopping
    """The server's stop, in order: long-lived responses end, then the last work (stopping.py)."""


async def boot(
    settings: Settings,
    nursery: trio.Nursery,
    *,
    store: Store | None = None,
    seed_source: SeedSource | None = None,
) -> Services:
    """Build the services and start every loop the settings enable in `nursery`.

    `store` and `seed_source` replace the configured ones (tests: a store that fails on
    purpose, dice from fixed seeds)."""
    stopping = Stopping()
    gc_watch = await nursery.start(run_gc_watch, settings.gc_full_interval_s)
    loop_watch = await nursery.start(run_loop_watch)
    heap_trim = await nursery.start(run_heap_trim, settings.heap_trim_interval_s)
    if store is None:
        store = await nursery.start(run_store, settings)
    # The one place that asks "is this PostgreSQL?": everything else is handed `database`.
    postgres = store if isinstance(store, PostgresStore) else None
    database = postgres.database if postgres is not None else None
    lease = None
    if settings.persistence_enabled and settings.database_url:
        # Before any room is resumed: a second process on this database stops here.
        # a lease another process takes ends this one's sockets as a stop does, then the process
        lease = await nursery.start(run_serving_lease, settings.database_url, stopping.begin)
        if database is not None:
            database.serving_epoch = lease.epoch  # every game write is fenced on it from now on
    if repaired := await store.end_archived_games():
        log.error(
            "store repair: %d game(s) were stored both active and archived; marked ended, not resumed: %s",
            len(repaired), ", ".join(repaired),
        )
    bots = BotDirectory(bot_store_for(database), featured=settings.showcase_bot if settings.showcase_enabled else None)
    await bots.load()
    admission = Admission(limits_of=bots.limits_of)
    trees = await nursery.start(TreePool(settings.tree_workers).run) if settings.tree_workers else None
    registry = await nursery.start(
        Registry(
            admission, seed_source or SystemSeedSource(), store, idle_forfeit_s=settings.idle_forfeit_s or None,
            bot_idle_forfeit_s=settings.bot_idle_forfeit_s or None, first_move_s=settings.first_move_s or None,
            trees=trees,
        ).run
    )
    await registry.resume_all()
    await abort_games_of_forgotten_bots(registry)

    bot_events = BotEvents()
    bot_games = BotGames(
        registry, bot_events, seed_window_s=settings.dice_seed_window_ms / 1000, durability=settings.game_durability
    )
    ratings = RatingBook(database)
    webhooks = Webhooks.from_settings(database, settings)
    await seal_at_boot(webhooks.store, settings)  # PLAY_SECRETS_KEY: seal or re-seal stored webhook secrets
    dispatch = WebhookDispatch(webhooks, registry, bots, enabled=settings.webhook_push_enabled)
    lobby = Lobby(bot_games, bots)
    registry.creation_hooks.append(lobby.seated)
    ladder = Ladder(bot_games, bots, ratings) if settings.ladder_enabled else None

    await nursery.start(lobby.run)
    house = None
    if settings.house_bots_enabled:
        house = await nursery.start(HouseBots(bots, registry, lobby, bot_events).run)
    if database is not None:
        await nursery.start(ratings.run_refresh)
    if settings.webhook_push_enabled:
        registry.creation_hooks.append(dispatch.attach)
        dispatch.attach_to_live_games()  # the games resumed above
        await nursery.start(dispatch.run_sweeps)  # bots that register mid-game
    if settings.analytics_enabled:
        await nursery.start(run_outbox_pump, store, settings)
    if settings.rating_batch_enabled:
        await nursery.start(partial(run_rating_batch, database, period_s=settings.rating_period_s, book=ratings))
    if settings.retention_enabled:
        await nursery.start(run_retention, store, settings.retention_days)
    if ladder is not None:
        await nursery.start(run_ladder, ladder)
    strength = StrengthReports(store, database, bots)
    await nursery.start(strength.run, registry)  # the first report is computed in the background
    wakes = Wakes(bots, admission, bot_events, webhooks, house)
    showcase = None
    if settings.showcase_enabled and settings.showcase_bot is not None:  # validation requires the bot
        showcase = ShowcaseTable(
            bot_id=settings.showcase_bot, database=database, registry=registry, bots=bots, webhooks=webhooks,
            seed_window_s=settings.dice_seed_window_ms / 1000, sealer=Sealer.from_settings(settings),
        )
        await nursery.start(showcase.run)  # reconciled before the port opens

    origins = OriginPolicy(frozenset(settings.cors_origins))
    accounts = Accounts(settings, database, origins)
    warn_accounts(settings, accounts)

    rematches = None
    if database is not None and postgres is not None:
        rematches = Rematches(
            database, postgres, registry,
            seed_window_s=settings.dice_seed_window_ms / 1000,
            durability=settings.game_durability,
            accounts_enabled=accounts.enabled, sealer=Sealer.from_settings(settings),
        )
        await nursery.start(rematches.run)  # unfinished offers closed before the port opens
        if not settings.cors_origins:
            log.warning("PLAY_CORS_ORIGINS is empty: rematch reads work, every rematch command is refused")

    management = None
    if settings.session_management_mountable and database is not None:  # mountable implies persistence
        admins = await nursery.start(AdminAuthority(database, settings.admins).run)
        stopping.at_finish(admins.withdraw)  # while the database is open
        management = WebhookManagement(database, webhooks, bots, admins)
    elif settings.webhook_session_management_enabled:
        log.warning("webhook management (/me, /admin) is not mounted: missing %s", "; ".join(settings.management_missing()))
    elif settings.admins:
        log.warning("PLAY_ADMINS has no effect: it names who may use /admin, mounted only with "
                    "WEBHOOK_SESSION_MANAGEMENT_ENABLED")

    return Services(
        settings=settings,
        store=store,
        database=database,
        registry=registry,
        bots=bots,
        bot_events=bot_events,
        bot_games=bot_games,
        lobby=lobby,
        ratings=ratings,
        webhooks=webhooks,
        webhook_dispatch=dispatch,
        sockets=SocketLimits(
            per_address=settings.sockets_per_address,
            spectators_per_game=settings.spectators_per_game,
            spectators_per_address=settings.spectators_per_address,
            frames_per_second=settings.socket_frames_per_second,
            frame_burst=settings.socket_frame_burst,
        ),
        origins=origins,
        accounts=accounts,
        showcase=showcase,
        rematches=rematches,
        house=house,
        lease=lease,
        ladder=ladder,
        strength=strength,
        wakes=wakes,
        management=management,
        version=package_version(),
        revision=git_revision(),
        gc_watch=gc_watch,
        loop_watch=loop_watch,
        heap_trim=heap_trim,
        stopping=stopping,
    )


def warn_accounts(settings: Settings, accounts: Accounts) -> None:
    """Say why sign-in is off when it was half configured, and what a working one still lacks."""
    missing = settings.accounts_missing()
    asked = settings.session_secret is not None or settings.oidc_issuer is not None or settings.oidc_client_id is not None
    if asked and missing:
        log.warning("sign-in (/auth/...) is not mounted: missing %s", ", ".join(missing))
    if accounts.enabled and not settings.cors_origins:
        log.warning("PLAY_CORS_ORIGINS is empty: signed-in people cannot sign out or change their account")
    elif accounts.enabled and settings.public_origin not in settings.cors_origins:
        log.warning("PLAY_PUBLIC_ORIGIN %s is not in PLAY_CORS_ORIGINS: pages served here cannot make session writes",
                    settings.public_origin)
