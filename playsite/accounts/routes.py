"""`/auth/...`: sign in with the OpenID Connect provider, read and change one's account, sign out.

    GET    /auth/login?next=/path   303 to the provider (state, nonce, PKCE verifier in a signed cookie)
    GET    /auth/callback           the provider's answer: account upserted, session cookie set, 303 to next
    GET    /auth/me                 the signed-in account (401 not_signed_in)
    PATCH  /auth/me                 {"nickname": "..."}: 409 nickname_taken
    DELETE /auth/me                 {"confirm": "delete my account"}: the account is forgotten
    POST   /auth/logout             sign out: every session of the account ends, or with
                                    {"everywhere": false} this one alone

Mutations pass the browser boundary (`http.origin`): exact Origin, `X-Game-CSRF: 1`, JSON;
a failure is 403 `csrf_origin_rejected`. Errors are problem+json. A failed callback answers
one generic `sign_in_failed` (or `account_deactivated`, `provider_unavailable`, `rate_limited`),
as a 303 to the page `/sign-in-failed?reason=<code>`, which says it in words (only a browser
comes to the callback); the log says why, never with a code or a token in it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from urllib.parse import urlencode

from quart import Response, request

from playsite.accounts import queries
from playsite.accounts.model import DELETE_CONFIRMATION, NICKNAME, Account
from playsite.accounts.oidc import OidcClient, ProviderUnavailable, SignInFailed, new_secret
from playsite.accounts.queries import NicknameReserved, NicknameTaken
from playsite.accounts.service import Accounts
from playsite.accounts.sessions import LOGIN_COOKIE, LOGIN_STATE_LIFETIME_S, SESSION_COOKIE, LoginState, Sessions
from playsite.http.auth import client_address, credentials
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import PROBLEM_SHAPE, Refusal, RouteFamily, invalid_request, render
from playsite.http.origin import OriginPolicy
from playsite.http.ratelimit import RateLimiter, limit_by_address, limit_by_key
from playsite.http.responses import json_response
from playsite.rooms.registry import Registry

log = logging.getLogger("playsite.accounts")

SIGN_INS_PER_MINUTE = 30
"""`/auth/login` and `/auth/callback` per client address per minute: each costs a round trip
to the provider."""
CHANGES_PER_MINUTE = 30
"""`PATCH` and `DELETE /auth/me` per account per minute."""
PRIVATE = {"Cache-Control": "no-store, private", "Vary": "Cookie"}
NEXT_MAX = 512
SIGN_IN_FAILED_PAGE = "/sign-in-failed"
"""Where a browser goes when its sign-in cannot complete: the page says why (`?reason=<code>`)."""
NICKNAME_TAKEN_PARAM = "nickname_taken"
"""Added to the address a first sign-in returns to when the new account could not have the
nickname the provider asked for (another account's): its value is that nickname."""


def csrf_origin_rejected() -> Refusal:
    return Refusal(
        403, "csrf_origin_rejected", "send this from an allowed origin with the X-Game-CSRF: 1 header"
    )


def not_signed_in() -> Refusal:
    return Refusal(401, "not_signed_in", "sign in first (GET /auth/login)")


class SignInRefused(Exception):
    """Why a callback signs nobody in: the `reason` the page SIGN_IN_FAILED_PAGE says in words
    (`sign_in_failed`, `account_deactivated`, `provider_unavailable`, `rate_limited`)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def provider_unavailable() -> Refusal:
    return Refusal(503, "provider_unavailable", "the sign-in provider is unavailable; try again", {"Retry-After": "30"})


def safe_next(value: str | None) -> str:
    """Where to send the person after sign-in: a path on this site, never another site."""
    if not value or len(value) > NEXT_MAX or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in value):
        return "/"
    return value


def sign_in_parts(accounts: Accounts) -> tuple[Sessions, OidcClient]:
    """The session issuer and the provider's client: the routes using them are mounted only
    when accounts are on (app.py), so they are there whenever a request reaches one."""
    if accounts.sessions is None or accounts.oidc is None:
        raise RuntimeError("accounts are off: the /auth routes are not mounted")
    return accounts.sessions, accounts.oidc


def account_routes(accounts: Accounts, origins: OriginPolicy, registry: Registry) -> RouteFamily:
    routes = RouteFamily("accounts", __name__, shape=PROBLEM_SHAPE)
    sign_ins = RateLimiter(SIGN_INS_PER_MINUTE, 60)
    changes = RateLimiter(CHANGES_PER_MINUTE, 60)
    secure = True  # the cookies are Secure: browsers keep them on https, and on http://localhost

    def cookie(response: Response, name: str, value: str, *, max_age: int, path: str) -> None:
        # Host-only (no Domain), HttpOnly, Secure, SameSite=Lax: sent on top-level navigations
        # (the provider's redirect back), never on other sites' subresource requests.
        response.set_cookie(name, value, max_age=max_age, path=path, secure=secure, httponly=True, samesite="Lax")

    def clear(response: Response, name: str, *, path: str) -> None:
        response.delete_cookie(name, path=path, secure=secure, httponly=True, samesite="Lax")

    async def me_or_401() -> Account:
        account = await accounts.signed_in(credentials())
        if account is None:
            raise not_signed_in()
        return account

    def me_body(account: Account) -> dict[str, object]:
        """The account as its owner sees it, with the live games it holds a seat in (`playing`:
        a page warns before signing out of them, which would leave them to the disconnect
        grace), and of those the ones still waiting for a player to join (`waiting`: nobody is
        counted away from them)."""
        rooms = registry.seated_unfinished(account.principal)
        return {
            "id": str(account.id), "nickname": account.nickname, "principal": account.principal,
            "playing": sorted(room.game_id for room in rooms),
            "waiting": sorted(room.game_id for room in rooms if room.awaiting_joins),
        }

    async def write_checks() -> None:
        await origins.require_write(csrf_origin_rejected())

    async def account_change(fields: set[str]) -> tuple[Account, dict]:
        """A change to the signed-in account: the boundary, the session, the per-account
        limit, then the body with exactly `fields` allowed."""
        await write_checks()
        account = await me_or_401()
        limit_by_key(changes, str(account.id), "account changes")
        body = await json_object()
        reject_unknown_fields(body, fields)
        return account, body

    @routes.get("/auth/login")
    async def login() -> Response:
        limit_by_address(sign_ins, "sign-in attempts")
        sessions, oidc = sign_in_parts(accounts)
        login_state = LoginState(
            state=new_secret(), nonce=new_secret(), verifier=new_secret(), next_path=safe_next(request.args.get("next"))
        )
        try:
            location = await oidc.authorization_url(
                state=login_state.state, nonce=login_state.nonce, verifier=login_state.verifier
            )
        except ProviderUnavailable as error:
            log.warning("sign-in: provider unavailable: %s", error)
            raise provider_unavailable() from None
        response = Response(b"", status=303, headers={"Location": location, **PRIVATE})
        cookie(response, LOGIN_COOKIE, sessions.seal_login(login_state), max_age=LOGIN_STATE_LIFETIME_S, path="/auth/callback")
        return response

    @routes.get("/auth/callback")
    async def callback() -> Response:
        try:
            account, next_path, wanted = await signed_in_account()
        except SignInRefused as refused:
            # Only a browser comes here (the provider sends it): a page that says why, never an
            # error body (play-through s62: a deactivated account read raw problem+json here).
            where = f"{SIGN_IN_FAILED_PAGE}?{urlencode({'reason': refused.reason})}"
            return Response(b"", status=303, headers={"Location": where, **PRIVATE})
        if wanted is not None:
            # a new account that could not have the nickname it asked for: the page says so
            # (and offers the menu to choose another), then takes the word out of its address
            next_path += ("&" if "?" in next_path else "?") + urlencode({NICKNAME_TAKEN_PARAM: wanted})
        response = Response(b"", status=303, headers={"Location": next_path, **PRIVATE})
        clear(response, LOGIN_COOKIE, path="/auth/callback")
        sessions, _ = sign_in_parts(accounts)
        cookie(response, SESSION_COOKIE, sessions.issue(account), max_age=sessions.lifetime_s, path="/")
        log.info("signed in: account %s", account.id)
        return response

    async def signed_in_account() -> tuple[Account, str, str | None]:
        """The account the provider's answer signs in, where to send it, and the nickname a new
        account asked for and could not have; SignInRefused if none."""
        try:
            limit_by_address(sign_ins, "sign-in attempts")
        except Refusal as refusal:
            raise SignInRefused(refusal.code) from None
        try:
            account, next_path, wanted = await complete_sign_in()
        except SignInFailed as error:
            log.warning("sign-in failed from %s: %s", client_address(), error)
            raise SignInRefused("sign_in_failed") from None
        except ProviderUnavailable as error:
            log.warning("sign-in: provider unavailable: %s", error)
            raise SignInRefused("provider_unavailable") from None
        if not account.active:
            log.info("sign-in refused: account %s is %s", account.id, account.status)
            raise SignInRefused("account_deactivated")
        return account, next_path, wanted

    async def complete_sign_in() -> tuple[Account, str, str | None]:
        sessions, oidc = sign_in_parts(accounts)
        if "error" in request.args:
            # The provider's error code is a short registered word (access_denied, ...).
            raise SignInFailed(f"the provider answered error={request.args['error'][:40]!r}")
        code, state = request.args.get("code"), request.args.get("state")
        sealed = request.cookies.get(LOGIN_COOKIE)
        if not code or not state:
            raise SignInFailed("callback without code or state")
        if not sealed:
            raise SignInFailed("no sign-in state cookie (expired, or another browser)")
        login_state = sessions.open_login(sealed, state)
        if login_state is None:
            raise SignInFailed("state does not match this browser's sign-in, or it expired")
        id_token = await oidc.exchange(code, login_state.verifier)
        claims = await oidc.verify_id_token(id_token, login_state.nonce)
        account, wanted = await accounts.run(
            lambda conn: queries.sign_in_reporting_nickname(conn, oidc.issuer, claims["sub"], claims)
        )
        return account, login_state.next_path, wanted

    @routes.get("/auth/me")
    async def read_me() -> Response:
        account = await accounts.signed_in(credentials())
        if account is None:
            refusal = not_signed_in()
            refusal.headers.update(PRIVATE)
            response = render(refusal)
            if SESSION_COOKIE in request.cookies:
                clear(response, SESSION_COOKIE, path="/")  # a dead session: let the browser forget it
            return response
        return json_response(me_body(account), headers=PRIVATE)

    @routes.get("/auth/me/games/<game_id>")
    async def my_seat(game_id: str) -> Response:
        """The seat the signed-in account holds in this live game (null: none): how a page
        opened without the seat's token (another tab, another device) finds its way back to it."""
        account = await accounts.signed_in(credentials())
        if account is None:
            raise not_signed_in()
        room = registry.get(game_id)
        seat = None if room is None else next(
            (seat for seat, principal in room.principals.items() if principal == account.principal), None)
        # 200 either way (null: no seat, or no such live game), so a page that asks logs no error
        return json_response({"gameId": game_id, "seat": None if seat is None else str(seat)}, headers=PRIVATE)

    @routes.patch("/auth/me")
    @body_limit(1024)
    async def change_me() -> Response:
        account, body = await account_change({"nickname"})
        nickname = body.get("nickname")
        if not isinstance(nickname, str) or not NICKNAME.fullmatch(nickname):
            raise invalid_request("nickname: 3-20 letters, digits, '_' or '-'")
        try:
            changed = await accounts.run(lambda conn: queries.rename(conn, account.id, nickname))
        except NicknameReserved:
            raise Refusal(409, "nickname_reserved", "another player had this nickname and keeps it for their old links") from None
        except NicknameTaken:
            raise Refusal(409, "nickname_taken", "another player has this nickname") from None
        if changed is None:
            raise not_signed_in()
        return json_response(me_body(changed), headers=PRIVATE)

    @routes.delete("/auth/me")
    @body_limit(1024)
    async def delete_me() -> Response:
        account, body = await account_change({"confirm"})
        if body.get("confirm") != DELETE_CONFIRMATION:
            raise invalid_request(f'to delete the account, send {{"confirm": "{DELETE_CONFIRMATION}"}}')
        if registry.seated_unfinished(account.principal):
            raise Refusal(409, "account_in_game", "finish or resign your unfinished games first")
        await accounts.run(lambda conn: queries.delete(conn, account.id))
        log.info("account deleted: %s", account.id)
        response = Response(b"", status=204, headers=PRIVATE)
        clear(response, SESSION_COOKIE, path="/")
        return response

    @routes.post("/auth/logout")
    @body_limit(1024)
    async def logout() -> Response:
        await write_checks()
        body = await json_object()
        reject_unknown_fields(body, {"everywhere"})
        everywhere = body.get("everywhere", True)
        if not isinstance(everywhere, bool):
            raise invalid_request("everywhere: true (every session of the account, the default) or false (this one)")
        found = await accounts.session(credentials())
        if found is not None:
            account, claims = found
            if everywhere or claims.session_id is None:  # a session without an id ends only with all of them
                await accounts.run(lambda conn: queries.end_sessions(conn, account.id))
                log.info("signed out everywhere: account %s", account.id)
            else:
                session_id, ends = claims.session_id, datetime.fromtimestamp(claims.expires_at, timezone.utc)
                await accounts.run(lambda conn: queries.end_session(conn, account.id, session_id, ends))
                log.info("signed out one session: account %s", account.id)
        response = Response(b"", status=204, headers=PRIVATE)
        clear(response, SESSION_COOKIE, path="/")
        return response

    return routes
