"""Who is calling, as the request or handshake says it: a bot's bearer token, a person's
credentials, the peer address. Routes never read credentials themselves: bots through
`calling_bot`, people through `playsite.accounts.service.Accounts.caller(credentials())`.
"""

from __future__ import annotations

import ipaddress
from typing import Protocol, TypeVar

from quart import current_app, has_request_context, request, websocket

from playsite.credentials import CSRF_HEADER, SESSION_COOKIE, Credentials
from playsite.http.errors import Refusal


class BotAccountLike(Protocol):
    @property
    def principal(self) -> str: ...

    @property
    def registered(self) -> bool: ...


Bot = TypeVar("Bot", bound=BotAccountLike, covariant=True)


class BotTokens(Protocol[Bot]):
    def authenticate(self, token: str) -> Bot | None: ...


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def calling_bot(tokens: BotTokens[Bot], *, registered: bool = False) -> Bot:
    """The bot whose bearer token came with the request.

    401 without a valid token; 403 `registered_only` for an anonymous bot when the feature
    needs a durable identity (`registered=True`)."""
    token = bearer_token()
    account = tokens.authenticate(token) if token else None
    if account is None:
        raise bot_unauthorized("send Authorization: Bearer <token> with a valid bot token")
    if registered and not account.registered:
        raise Refusal(403, "registered_only", "this needs a registered bot (POST /bot/register)")
    return account


def bot_unauthorized(message: str) -> Refusal:
    """The 401 of a bot token that does not open a bot (any longer)."""
    return Refusal(401, "unauthorized", message, {"WWW-Authenticate": 'Bearer realm="playsite"'})


def credentials() -> Credentials:
    """What this request or WebSocket handshake presents about a person calling (the session
    cookie, and how the request came), for `Accounts.caller` and `Accounts.signed_in`."""
    if has_request_context():
        return Credentials(
            method=request.method,
            origin=request.headers.get("Origin"),
            csrf=request.headers.get(CSRF_HEADER),
            session=request.cookies.get(SESSION_COOKIE),
        )
    return Credentials(
        method="GET",
        origin=websocket.headers.get("Origin"),
        csrf=websocket.headers.get(CSRF_HEADER),
        handshake=True,
        session=websocket.cookies.get(SESSION_COOKIE),
    )


TRUSTED_PROXIES = "PLAYSITE_TRUSTED_PROXIES"
"""The app's config key for PLAY_TRUSTED_PROXIES (the edge sets it: `install_edge`)."""


def client_address() -> str:
    """The address of the client: the connection's peer, or, when that peer is a proxy on
    PLAY_TRUSTED_PROXIES, the address that proxy saw, read from `X-Forwarded-For` from the
    right (each proxy appends the peer it saw) up to the first hop that is not a trusted proxy.
    Per-address limits count clients, not the proxy they all come through. From any other
    peer the header is ignored (a client says what it likes), and so is an entry that is not
    an address (the proxy is then the client)."""
    context = request if has_request_context() else websocket
    peer = context.remote_addr or "unknown"
    trusted = current_app.config.get(TRUSTED_PROXIES, ())
    if not _is_trusted(_address(peer), trusted):
        return peer
    hops = [hop.strip() for line in context.headers.getlist("X-Forwarded-For") for hop in line.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return peer
        if not _is_trusted(address, trusted):
            return str(address)
    return peer


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
    if _is_trusted(peer, trusted_proxies):
        return context.headers.get("X-Forwarded-Proto", "").strip().lower() == "https"
    if context.scheme in ("https", "wss"):
        return True
    if context.remote_addr == LOCAL_PEER:
        return True  # no network peer at all (a unix socket, an in-process client)
    return peer is not None and peer.is_loopback


def _address(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text or "")
    except ValueError:
        return None


def _is_trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, trusted: tuple[str, ...]) -> bool:
    return address is not None and any(address in ipaddress.ip_network(net) for net in trusted)
