"""Who is calling. Today: a bot, by `Authorization: Bearer <token>`.

The account session and the guest join this module when accounts exist; every route asks
here, never reads credentials itself.
"""

from __future__ import annotations

from typing import Protocol

from quart import has_request_context, request, websocket

from playsite.http.errors import Refusal


class BotAccountLike(Protocol):
    principal: str
    registered: bool


class BotTokens(Protocol):
    def authenticate(self, token: str) -> BotAccountLike | None: ...


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def calling_bot(tokens: BotTokens, *, registered: bool = False):
    """The bot whose bearer token came with the request.

    401 without a valid token; 403 `registered_only` for an anonymous bot when the feature
    needs a durable identity (`registered=True`)."""
    token = bearer_token()
    account = tokens.authenticate(token) if token else None
    if account is None:
        raise Refusal(
            401, "unauthorized", "send Authorization: Bearer <token> with a valid bot token",
            {"WWW-Authenticate": 'Bearer realm="playsite"'},
        )
    if registered and not account.registered:
        raise Refusal(403, "registered_only", "this needs a registered bot (POST /bot/register)")
    return account


def client_address() -> str:
    """The peer address of the connection. Forwarding headers are not trusted: the service
    is reached directly (one serving process), and a header is whatever the client says."""
    context = request if has_request_context() else websocket
    return context.remote_addr or "unknown"
