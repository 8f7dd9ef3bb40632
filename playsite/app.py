"""The quart-trio application: thin routes over the services the server booted.

Each subsystem mounts its own routes here, and only when configuration enables it.
"""

from __future__ import annotations

import attrs
from quart import jsonify, request
from quart_trio import QuartTrio
from werkzeug.exceptions import RequestEntityTooLarge

from playsite.archive.routes import archive_routes
from playsite.bots.accounts import BotDirectory
from playsite.bots.gameplay_routes import gameplay_routes
from playsite.bots.identity_routes import identity_routes
from playsite.bots.webhook_routes import webhook_routes
from playsite.bots.events import AccountEvents
from playsite.config import Settings
from playsite.games.errors import error_response
from playsite.games.routes import game_routes
from playsite.lobby.routes import lobby_routes
from playsite.ratings.routes import ratings_routes
from playsite.rooms.registry import Registry
from playsite.specs_routes import specs_routes
from playsite.store import Store
from playsite.transports.ndjson import ndjson_routes
from playsite.transports.websocket import websocket_routes


REQUEST_BODY_MAX = 64 * 1024
"""No endpoint takes more; each route checks its own, smaller limit."""
CLOSE = {"Connection": "close"}


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
    app = QuartTrio("playsite", static_folder=None)
    app.json.sort_keys = False
    app.config["MAX_CONTENT_LENGTH"] = REQUEST_BODY_MAX

    @app.before_request
    async def read_body_first():
        """Read every (bounded) body before any route answers: a reply sent over an unread
        body can be cut off, and a kept-alive connection would stall on the leftover bytes."""
        if request.method in ("GET", "HEAD", "OPTIONS") and not request.content_length:
            return None
        if request.content_length is not None and request.content_length > REQUEST_BODY_MAX:
            return error_response(413, "request_too_large", f"body is over {REQUEST_BODY_MAX} bytes", CLOSE)
        try:
            await request.get_data()
        except RequestEntityTooLarge:
            return error_response(413, "request_too_large", f"body is over {REQUEST_BODY_MAX} bytes", CLOSE)
        return None

    @app.errorhandler(404)
    async def not_found(_error):
        return error_response(404, "not_found", "no such resource")

    @app.errorhandler(500)
    async def server_error(error):
        # Logged with its traceback by quart; the client gets JSON and no internals.
        return error_response(500, "internal_error", "the server failed on this request; it has been logged")

    @app.errorhandler(405)
    async def method_not_allowed(_error):
        return error_response(405, "method_not_allowed", f"{request.method} is not allowed here")

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
    app.register_blueprint(ratings_routes(services))
    app.register_blueprint(specs_routes(services))
    return app
