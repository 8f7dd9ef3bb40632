"""Webhook registration routes: /bot/webhook and /bot/webhook/stats.

POST, GET and DELETE /bot/webhook answer 503 while WEBHOOK_PUSH_ENABLED is off. The stats
are not gated on it: they read history, which outlives the feature being switched off.
Every route is for registered bots only (403 `registered_only` for anonymous ones).
"""

from __future__ import annotations

from quart import Blueprint, Response, current_app

from playsite.bots.auth import authenticate, registered_only
from playsite.bots.webhook_store import iso_utc
from playsite.bots.webhooks import RegistrationRateLimited, RegistrationRefused
from playsite.games.errors import error_response
from playsite.games.routes import json_response, read_json_body
from playsite.store.database import DatabaseUnavailable
from playsite.transports.webhook import dispatch_for

REGISTER_BODY_MAX = 4096
NO_STORE = {"Cache-Control": "no-store"}


def webhook_routes(services) -> Blueprint:
    routes = Blueprint("webhook_routes", __name__)
    # Built at mount time, so a registration reaches live games' dispatchers from the first request.
    dispatch = dispatch_for(services)
    webhooks = dispatch.webhooks

    @routes.before_app_serving
    async def start_sweeps():
        # The safety net behind the creation hook (resumed games, any creation path); it
        # ends with serving. A no-op when push is off or a sweep already runs.
        await current_app.nursery.start(dispatch.run_sweeps)

    def registered_caller():
        """The calling registered bot, or the error response to return."""
        account = authenticate(services.bots)
        if isinstance(account, tuple):
            return account
        return registered_only(account) or account

    def disabled():
        return error_response(
            503, "webhooks_disabled", "webhook push is not enabled on this server", {"Retry-After": "3600"}
        )

    def unavailable():
        return error_response(
            503, "temporarily_unavailable", "the store is unavailable; try again", {"Retry-After": "5"}
        )

    @routes.post("/bot/webhook")
    async def register_webhook():
        caller = registered_caller()
        if isinstance(caller, tuple):
            return caller
        if not webhooks.enabled:
            return disabled()
        body = await read_json_body(REGISTER_BODY_MAX)
        if isinstance(body, tuple):
            return body
        if unknown := set(body) - {"url"}:
            return error_response(400, "invalid_request", f"unknown field(s): {', '.join(sorted(unknown))}")
        if not isinstance(body.get("url"), str):
            return error_response(400, "invalid_request", "send {\"url\": \"https://...\"}")
        try:
            registration = await webhooks.register(caller.id, body["url"])
        except RegistrationRefused as refused:
            return error_response(422, refused.code, refused.reason)
        except RegistrationRateLimited as limited:
            return error_response(
                429, "rate_limited", str(limited), {"Retry-After": str(limited.retry_after_s)}
            )
        except DatabaseUnavailable:
            return unavailable()
        return json_response({"url": registration.url, "secret": registration.secret}, 201, NO_STORE)

    @routes.get("/bot/webhook")
    async def read_webhook():
        caller = registered_caller()
        if isinstance(caller, tuple):
            return caller
        if not webhooks.enabled:
            return disabled()
        try:
            registration = await webhooks.current(caller.id)
        except DatabaseUnavailable:
            return unavailable()
        if registration is None:
            return error_response(404, "webhook_not_found", "no webhook is registered")
        body = {"url": registration.url, "verifiedAt": iso_utc(registration.verified_at)}
        return json_response(body, 200, NO_STORE)

    @routes.delete("/bot/webhook")
    async def delete_webhook():
        caller = registered_caller()
        if isinstance(caller, tuple):
            return caller
        if not webhooks.enabled:
            return disabled()
        try:
            removed = await webhooks.remove(caller.id)
        except DatabaseUnavailable:
            return unavailable()
        if not removed:
            return error_response(404, "webhook_not_found", "no webhook was registered")
        return Response("", status=204, headers=NO_STORE)

    @routes.get("/bot/webhook/stats")
    async def webhook_stats():
        caller = registered_caller()
        if isinstance(caller, tuple):
            return caller
        try:
            stats = await webhooks.stats(caller.id)
        except DatabaseUnavailable:
            return unavailable()
        return json_response(stats.to_json(), 200, NO_STORE)

    return routes
