"""Who is calling, as the request or handshake says it: a bot's bearer token, a cookie, the
peer address. Routes never read credentials themselves: bots through `calling_bot`, people
through `playsite.accounts.service.Accounts.caller`, which reads its cookie here.
"""

from __future__ import annotations

import ipaddress
from typing import Protocol

from quart import has_request_context, request, websocket

from playsite.http.errors import Refusal


class BotAccountLike(Protocol):
    @property
    def principal(self) -> str: ...

    @property
    def registered(self) -> bool: ...


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


def _context():
    return request if has_request_context() else websocket


def cookie(name: str) -> str | None:
    """A cookie of this request or WebSocket handshake."""
    return _context().cookies.get(name)


def handshake_origin() -> str | None:
    """On a WebSocket handshake, its `Origin` header; None on a plain HTTP request."""
    return None if has_request_context() else websocket.headers.get("Origin")


def request_header(name: str) -> str | None:
    return _context().headers.get(name)


def request_method() -> str:
    return request.method if has_request_context() else "GET"


def is_handshake() -> bool:
    return not has_request_context()


def client_address() -> str:
    """The peer address of the connection. Forwarding headers are not trusted: the service
    is reached directly (one serving process), and a header is whatever the client says."""
    context = request if has_request_context() else websocket
    return context.remote_addr or "unknown"


LOCAL_PEER = "<local>"
"""The peer address quart reports for a connection without one."""


def over_https(trusted_proxies: tuple[str, ...]) -> bool:
    """Whether the client's request reached us over HTTPS.

    A peer on `trusted_proxies` (a TLS-terminating proxy) is believed about the client's
    scheme through `X-Forwarded-Proto`; any other peer is judged by the connection itself:
    TLS to this server, or a loopback peer (the machine itself: development, `playsite
    demo`), whose traffic never crossed a network."""
    context = request if has_request_context() else websocket
    peer = _address(context.remote_addr)
    if peer is not None and any(peer in ipaddress.ip_network(net) for net in trusted_proxies):
        return context.headers.get("X-Forwarded-Proto", "").strip().lower() == "https"
    if context.scheme in ("https", "wss"):
        return True
    if context.remote_addr == LOCAL_PEER:
        return True  # no network peer at all (a unix socket, an in-process client)
    return peer is not None and peer.is_loopback


def _address(text: str | None):
    try:
        return ipaddress.ip_address(text or "")
    except ValueError:
        return None
