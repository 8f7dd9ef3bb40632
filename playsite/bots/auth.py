"""Bearer authentication of the Bot API: `Authorization: Bearer <token>`."""

from __future__ import annotations

from quart import request

from playsite.bots.accounts import BotAccount, BotDirectory
from playsite.games.errors import error_response


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def authenticate(directory: BotDirectory) -> BotAccount | tuple:
    """The calling bot, or a 401 error response tuple to return as is."""
    token = bearer_token()
    account = directory.authenticate(token) if token else None
    if account is None:
        return error_response(
            401, "unauthorized", "send Authorization: Bearer <token> with a valid bot token",
            {"WWW-Authenticate": 'Bearer realm="playsite"'},
        )
    return account


def registered_only(account: BotAccount) -> tuple | None:
    """403 for anonymous bots on features that need a durable identity."""
    if account.registered:
        return None
    return error_response(403, "registered_only", "this needs a registered bot (POST /bot/register)")
