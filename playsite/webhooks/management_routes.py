"""`/me/...` and `/admin/...`: one set of routes mounted twice (docs/webhook-management.md).

`management_routes(management, accounts, origins, "owner")` mounts `/me/...`, `("admin")` mounts `/admin/...`.
Both go through the same steps, in this order, so a refused request costs nothing:

1. a mutation passes the browser boundary: exact allowed `Origin`, `X-Game-CSRF: 1`
   (403 `csrf_origin_rejected`) and `Content-Type: application/json` (415);
2. a live session (401 `not_signed_in`); for `/admin`, an account on `PLAY_ADMINS`
   (403 `admin_required`; the database then also checks the generation is the sole live one);
3. the per-account limit (429 with Retry-After);
4. `WebhookManagement` does the rest under the bot's fence (`If-Match`, leases, budget).

Every answer is `Cache-Control: no-store, private`; a slot's answers carry its `ETag`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import TypeVar

from quart import Response, request

from playsite.accounts.model import Account
from playsite.accounts.routes import PRIVATE, csrf_origin_rejected, not_signed_in
from playsite.accounts.service import Accounts
from playsite.http.auth import credentials
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import PROBLEM_SHAPE, Refusal, RouteFamily, rate_limited
from playsite.http.origin import OriginPolicy
from playsite.http.ratelimit import RateLimiter
from playsite.http.responses import empty_response, json_response
from playsite.webhooks.management import Actor, SlotRefusal, WebhookManagement, admin_required

BODY_MAX = 4096
READS_PER_MINUTE = 240
CHANGES_PER_MINUTE = 60
CLAIMS_PER_MINUTE = 10
"""Per account. A claim checks a bot token, so it is held to fewer."""
_ETAG = re.compile(r'"(\d{1,18})"')
T = TypeVar("T")

STATUSES = {
    "bot_token_rejected": 403,
    "admin_required": 403,
    "bot_not_found": 404,
    "activation_in_progress": 409,
    "attempts_exhausted": 409,
    "bot_owned": 409,
    "no_registration": 409,
    "no_setup": 409,
    "setup_changed": 409,
    "setup_expired": 410,
    "revision_mismatch": 412,
    "url_policy": 422,
    "handshake_failed": 422,
    "revision_required": 428,
}
"""docs/webhook-management.md: the status of each code `WebhookManagement` refuses with."""


def etag(revision: int) -> str:
    return f'"{revision}"'


def if_match() -> int | None:
    """The revision named by a strong `If-Match`; None when absent; -1 when it names none of
    ours (a weak tag, `*`, a list: never equal to a revision, so 412)."""
    value = request.headers.get("If-Match")
    if value is None:
        return None
    match = _ETAG.fullmatch(value.strip())
    return int(match[1]) if match else -1


def management_routes(
    configured: WebhookManagement | None, accounts: Accounts, origins: OriginPolicy, authority: str
) -> RouteFamily:
    prefix = "/me" if authority == "owner" else "/admin"
    routes = RouteFamily(f"manage_{authority}", __name__, shape=PROBLEM_SHAPE, statuses=STATUSES)

    def management() -> WebhookManagement:
        """The service: the family is mounted only with it (a route table may be listed without it)."""
        assert configured is not None, "webhook management is not configured"
        return configured

    reads = RateLimiter(READS_PER_MINUTE, 60)
    changes = RateLimiter(CHANGES_PER_MINUTE, 60)
    claims = RateLimiter(CLAIMS_PER_MINUTE, 60)

    @routes.after_request
    async def private(response: Response) -> Response:
        """Every answer of the family, refusals included, is for this person only (one place
        sets it, so no route or refusal can forget it)."""
        response.headers["Cache-Control"] = PRIVATE["Cache-Control"]
        response.vary.add("Cookie")
        return response

    async def actor(*, write: bool, limiter: RateLimiter | None = None) -> Actor:
        if write:
            await origins.require_write(csrf_origin_rejected())
            if request.mimetype != "application/json":
                raise Refusal(415, "unsupported_media_type", "send mutations as application/json")
        account: Account | None = await accounts.signed_in(credentials())
        if account is None:
            raise not_signed_in()
        if authority == "admin" and not management().admins.is_admin(account.id):
            raise refusal_of(admin_required())
        limiter = limiter or (changes if write else reads)
        if (retry_after := limiter.attempt(str(account.id))) is not None:
            raise rate_limited("management requests", retry_after)
        return Actor(account, authority)

    def refusal_of(refused: SlotRefusal) -> Refusal:
        """The family's refusal, with what the domain says about retrying and the revision."""
        refusal = routes.refusal(refused)
        if refused.retry_after_s is not None:
            refusal.headers["Retry-After"] = str(refused.retry_after_s)
        if refused.revision is not None:
            refusal.headers["ETag"] = etag(refused.revision)
        return refusal

    async def managed(call: Awaitable[T]) -> T:
        try:
            return await call
        except SlotRefusal as refused:
            raise refusal_of(refused) from None

    def slot_answer(view: dict, revision: int, status: int = 200, extra: dict | None = None) -> Response:
        return json_response({**view, **(extra or {})}, status, {"ETag": etag(revision)})

    async def no_fields() -> None:
        reject_unknown_fields(await json_object(), set())

    @routes.get(f"{prefix}/bots")
    async def list_bots() -> Response:
        who = await actor(write=False)
        return json_response({"bots": await managed(management().bots_of(who))})

    if authority == "owner":

        @routes.post("/me/bots")
        @body_limit(BODY_MAX)
        async def claim_bot() -> Response:
            who = await actor(write=True, limiter=claims)
            body = await json_object()
            reject_unknown_fields(body, {"token"})
            bot, new, revision = await managed(management().claim(who.account, body.get("token"), if_match()))
            return json_response(bot, 201 if new else 200, {"ETag": etag(revision)})

        @routes.post("/me/bots/<team>/<name>/token")
        @body_limit(BODY_MAX)
        async def replace_token(team: str, name: str) -> Response:
            who = await actor(write=True)
            await no_fields()
            token, revision = await managed(management().new_token(who.account, f"{team}/{name}", if_match()))
            return json_response({"token": token}, 200, {"ETag": etag(revision)})

        @routes.delete("/me/bots/<team>/<name>")
        @body_limit(BODY_MAX)
        async def release_bot(team: str, name: str) -> Response:
            who = await actor(write=True)
            await no_fields()
            await managed(management().release(who.account, f"{team}/{name}", if_match()))
            return empty_response(204)

    @routes.get(f"{prefix}/bots/<team>/<name>/webhook")
    async def read_slot(team: str, name: str) -> Response:
        who = await actor(write=False)
        view, revision = await managed(management().view(who, f"{team}/{name}"))
        return slot_answer(view, revision)

    @routes.put(f"{prefix}/bots/<team>/<name>/webhook/setup")
    @body_limit(BODY_MAX)
    async def stage_setup(team: str, name: str) -> Response:
        who = await actor(write=True)
        body = await json_object()
        reject_unknown_fields(body, {"url"})
        view, revision = await managed(management().stage(who, f"{team}/{name}", if_match(), body.get("url")))
        return slot_answer(view, revision)

    @routes.delete(f"{prefix}/bots/<team>/<name>/webhook/setup")
    @body_limit(BODY_MAX)
    async def discard_setup(team: str, name: str) -> Response:
        who = await actor(write=True)
        await no_fields()
        view, revision = await managed(management().discard(who, f"{team}/{name}", if_match()))
        return slot_answer(view, revision)

    @routes.post(f"{prefix}/bots/<team>/<name>/webhook/setup/activate")
    @body_limit(BODY_MAX)
    async def activate_setup(team: str, name: str) -> Response:
        who = await actor(write=True)
        await no_fields()
        activated = await managed(management().activate(who, f"{team}/{name}", if_match()))
        return slot_answer(activated.view, activated.revision, extra={"secret": activated.secret})

    @routes.delete(f"{prefix}/bots/<team>/<name>/webhook")
    @body_limit(BODY_MAX)
    async def remove_registration(team: str, name: str) -> Response:
        who = await actor(write=True)
        await no_fields()
        view, revision = await managed(management().remove(who, f"{team}/{name}", if_match()))
        return slot_answer(view, revision)

    return routes
