"""The quart-trio application: thin routes over the services `boot` built.

Each route family mounts its own blueprint; the edge they all share (`playsite.http.edge`)
is installed once, before them.
"""

from __future__ import annotations

from quart import Response
from quart.json.provider import DefaultJSONProvider
from quart_trio import QuartTrio

from playsite.accounts.routes import account_routes
from playsite.archive.routes import archive_routes
from playsite.bots.gameplay_routes import gameplay_routes
from playsite.bots.identity_routes import identity_routes
from playsite.bots.stream_routes import stream_routes
from playsite.games.routes import game_routes
from playsite.games.socket_routes import websocket_routes
from playsite.games.standing import game_standing
from playsite.guests.routes import guest_claim_routes, guest_routes
from playsite.http.edge import install_edge
from playsite.http.errors import Refusal
from playsite.http.responses import json_response
from playsite.http.routercycles import install as install_cycleless_matcher
from playsite.http.wsreceive import use_direct_receive
from playsite.ingest_routes import ingest_routes
from playsite.lobby.routes import lobby_routes
from playsite.metrics import metrics_routes
from playsite.ratings.routes import ratings_routes
from playsite.ratings.standing import profile_standing
from playsite.rematch.routes import rematch_routes
from playsite.services import Services
from playsite.showcase.routes import showcase_routes
from playsite.specs_routes import specs_routes
from playsite.store.database import DatabaseUnavailable
from playsite.strength.routes import strength_routes
from playsite.web.routes import web_routes
from playsite.webhooks.management_routes import management_routes
from playsite.webhooks.routes import webhook_routes


def create_app(services: Services) -> QuartTrio:
    app = QuartTrio("playsite", static_folder=None)
    use_direct_receive(app)
    assert isinstance(app.json, DefaultJSONProvider)  # quart's own, the one that sorts keys
    install_cycleless_matcher(app.url_map)
    app.json.sort_keys = False
    install_edge(
        app, unavailable=(DatabaseUnavailable,), origins=services.origins, any_origin=services.settings.cors_any_origin,
        trusted_proxies=services.settings.trusted_proxies,
    )

    @app.get("/health")
    async def health() -> Response:
        store = await services.store.health()
        described: dict[str, object] = {"kind": store.kind, "durable": store.durable, "reachable": store.reachable}
        if store.detail:
            described["detail"] = store.detail
        body = {"status": "ok" if store.reachable else "degraded", "store": described}
        return json_response(body, 200, {"Cache-Control": "no-store"})

    @app.get("/ready")
    async def ready() -> Response:
        """Readiness for a load balancer: 200 while this process serves, 503 once it is stopping.
        Not 503 while the database is unreachable: one process serves a database, so there is no
        other to send its players to, and its games go on meanwhile (ops review s74: a database
        restart took the only backend out of rotation). `/health` says how the store is."""
        if services.stopping.begun:
            raise Refusal(503, "not_ready", "the server is stopping", {"Retry-After": "5", "Cache-Control": "no-store"})
        return json_response({"status": "ready"}, 200, {"Cache-Control": "no-store"})

    @app.get("/version")
    async def version() -> Response:
        body: dict[str, str] = {"name": "playsite", "version": services.version}
        if services.revision:
            body["revision"] = services.revision
        return json_response(body)

    settings = services.settings
    for family in (
        game_routes(services.registry, services.store, services.sockets, settings, services.ratings),
        rematch_routes(
            services.rematches, services.accounts, services.origins, trusted_proxies=settings.trusted_proxies
        ),
        websocket_routes(
            services.registry, services.accounts, services.sockets, services.stopping,
            connects_per_minute=settings.socket_connects_per_minute,
        ),
        archive_routes(services.store, services.database),
        identity_routes(services.bots, services.registry, services.ratings),
        lobby_routes(
            services.lobby, bots=services.bots, events=services.bot_events, accounts=services.accounts,
            admission=services.registry.admission, ratings=services.ratings, wakes=services.wakes,
        ),
        gameplay_routes(services.registry, services.bots, settings),
        stream_routes(
            services.bots, services.bot_events, services.registry, services.stopping,
            keepalive_s=settings.ndjson_keepalive_ms / 1000,
        ),
        webhook_routes(services.webhooks, services.bots),
        ratings_routes(services.database),
        strength_routes(services.strength, services.bots),
        guest_routes(services.database),
        guest_claim_routes(services.accounts, services.origins),
        ingest_routes(),
        specs_routes(),
        web_routes(
            services.accounts, showcase=services.showcase is not None, ratings=services.database is not None,
            rating_period_s=settings.rating_period_s, public_origin=settings.public_origin,
            bot_admins=None if services.management is None else services.management.admins,
            standing=lambda game_id: game_standing(services.registry, services.store, game_id),
            profile=lambda names: profile_standing(services.database, names),
        ),
    ):
        app.register_blueprint(family)
    if services.accounts.enabled:
        app.register_blueprint(account_routes(services.accounts, services.origins, services.registry))
    if services.management is not None:
        for authority in ("owner", "admin"):
            app.register_blueprint(
                management_routes(services.management, services.accounts, services.origins, authority)
            )
    if services.showcase is not None:
        app.register_blueprint(showcase_routes(services.showcase, services.accounts, services.origins))
    if settings.metrics_token:
        app.register_blueprint(metrics_routes(services))
    return app
