"""Webhook registration routes: /bot/webhook and /bot/webhook/stats.

POST, GET and DELETE /bot/webhook answer 503 while WEBHOOK_PUSH_ENABLED is off. The stats
are not gated on it: they read history, which outlives the feature being switched off.
Every route is for registered bots only (403 `registered_only` for anonymous ones).
"""

from __future__ import annotations

from quart import Response

from playsite.bots.directory import BotAccount, BotDirectory
from playsite.http.auth import calling_bot
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import Refusal, RouteFamily, invalid_request, rate_limited
from playsite.http.responses import NO_STORE, empty_response, json_response
from playsite.webhooks.registrations import RegistrationRateLimited, Webhooks
from playsite.wire.instant import encode_instant

REGISTER_BODY_MAX = 4096
STATUSES = {"url_policy": 422, "handshake_failed": 422}
"""The registrations' refusals (`RegistrationRefused`): the URL or its handshake is not acceptable."""


def webhook_routes(webhooks: Webhooks, bots: BotDirectory) -> RouteFamily:
    routes = RouteFamily("webhook_routes", __name__, statuses=STATUSES)

    def registered_caller() -> BotAccount:
        """The calling registered bot (401/403 otherwise); 503 while push is off."""
        caller = calling_bot(bots, registered=True)
        if not webhooks.enabled:
            raise Refusal(503, "webhooks_disabled", "webhook push is not enabled on this server", {"Retry-After": "3600"})
        return caller

    @routes.post("/bot/webhook")
    @body_limit(REGISTER_BODY_MAX)
    async def register_webhook() -> Response:
        caller = registered_caller()
        body = await json_object()
        reject_unknown_fields(body, {"url"})
        if not isinstance(body.get("url"), str):
            raise invalid_request('send {"url": "https://..."}')
        try:
            registration = await webhooks.register(caller.id, body["url"])
        except RegistrationRateLimited as limited:
            raise rate_limited("registration attempts", limited.retry_after_s) from None
        return json_response({"url": registration.url, "secret": registration.secret}, 201, NO_STORE)

    @routes.get("/bot/webhook")
    async def read_webhook() -> Response:
        caller = registered_caller()
        registration = await webhooks.current(caller.id)
        if registration is None:
            raise Refusal(404, "webhook_not_found", "no webhook is registered")
        body = {"url": registration.url, "verifiedAt": encode_instant(registration.verified_at)}
        return json_response(body, 200, NO_STORE)

    @routes.delete("/bot/webhook")
    async def delete_webhook() -> Response:
        caller = registered_caller()
        if not await webhooks.remove(caller.id):
            raise Refusal(404, "webhook_not_found", "no webhook was registered")
        return empty_response(204, NO_STORE)

    @routes.get("/bot/webhook/stats")
    async def webhook_stats() -> Response:
        # Not gated on push being enabled: the stats read history, which outlives the switch.
        caller = calling_bot(bots, registered=True)
        stats = await webhooks.stats(caller.id)
        return json_response(stats.to_json(), 200, NO_STORE)

    return routes
