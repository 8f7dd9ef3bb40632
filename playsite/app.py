"""The quart-trio application: thin routes over the services the server booted.

Each subsystem mounts its own routes here, and only when configuration enables it.
"""

from __future__ import annotations

import attrs
from quart import jsonify
from quart_trio import QuartTrio

from playsite.archive.routes import archive_routes
from playsite.bots.accounts import BotDirectory
from playsite.bots.gameplay_routes import gameplay_routes
from playsite.bots.identity_routes import identity_routes
from playsite.bots.webhook_routes import webhook_routes
from playsite.bots.events import AccountEvents
from playsite.config import Settings
from playsite.games.routes import game_routes
from playsite.lobby.routes import lobby_routes
from playsite.rooms.registry import Registry
from playsite.store import Store
from playsite.transports.ndjson import ndjson_routes
from playsite.transports.websocket import websocket_routes


@attrs.frozen
class Services:
    """Everything the routes may reach, built once at boot by `server.main`."""

    settings: Settings
    store: Store
    registry: Registry
    bots: BotDirectory
    account_events: AccountEvents
    version: str
    revision: str | None


def create_app(services: Services) -> QuartTrio:
    app = QuartTrio("playsite")
    app.json.sort_keys = False

    @app.get("/health")
    async def health():
        store = await services.store.health()
        body = {
            "status": "ok" if store.reachable else "degraded",
            "store": {"kind": store.kind, "durable": store.durable, "reachable": store.reachable},
        }
        if store.detail:
            body["store"]["detail"] = store.detail
        return jsonify(body), 200, {"Cache-Control": "no-store"}

    @app.get("/version")
    async def version():
        body = {"name": "playsite", "version": services.version}
        if services.revision:
            body["revision"] = services.revision
        return jsonify(body)

    app.register_blueprint(game_routes(services))
    app.register_blueprint(websocket_routes(services))
    app.register_blueprint(archive_routes(services))
    app.register_blueprint(identity_routes(services))
    app.register_blueprint(lobby_routes(services))
    app.register_blueprint(gameplay_routes(services))
    app.register_blueprint(ndjson_routes(services))
    app.register_blueprint(webhook_routes(services))
    return app
