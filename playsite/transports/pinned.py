"""Outbound HTTP to URLs that bot owners supply (webhooks): resolve once, validate, pin.

service.md, "Outbound webhook transport": the URL is resolved and validated once, the
connection goes to that validated address, and the hostname is kept for the `Host`
header and TLS SNI (so certificate verification is still against the name). Nothing
between the check and the connect resolves the name again, so a DNS answer cannot be
swapped for an internal address after it was checked (no rebinding window).

How: an httpx client whose transport is an httpcore connection pool with a network
backend of our own. httpcore asks the backend to open `(host, port)`; ours opens the
pinned address instead and refuses any other origin. TLS is then started over that
socket by httpcore with `server_hostname=<host>`, and httpx writes `Host` from the URL.

Redirects are never followed, proxies from the environment are never used, and a
response body is read only up to `RESPONSE_BODY_MAX` (a larger one is reported, not
truncated into something that might parse).
"""

from __future__ import annotations

import ipaddress
import typing
import zlib
from collections.abc import AsyncIterable, Awaitable, Callable

import attrs
import httpcore
import httpx
import trio

from playsite.config import Settings

RESPONSE_BODY_MAX = 64 * 1024
"""Bytes of a response body we read; one more makes it `oversized`."""
URL_MAX = 2048
DNS_TIMEOUT_S = 5.0
USER_AGENT = "playsite-webhook/1"

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""(host, port) -> the addresses the name resolves to, as text."""


class UrlRefused(Exception):
    """The URL breaks the outbound policy; `reason` is safe to show the caller (no addresses)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class OutboundFailure(Exception):
    """No HTTP answer: `kind` is 'timed_out' or 'unreachable'; `detail` is for the server log only."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@attrs.frozen
class UrlPolicy:
    allow_loopback: bool = False
    """Development and tests only (WEBHOOK_ALLOW_LOOPBACK): loopback targets and http:// allowed."""

    @classmethod
    def from_settings(cls, settings: Settings) -> UrlPolicy:
        return cls(allow_loopback=settings.webhook_allow_loopback)

    @property
    def schemes(self) -> tuple[str, ...]:
        return ("https", "http") if self.allow_loopback else ("https",)


@attrs.frozen
class PinnedTarget:
    """A URL whose host was resolved once and every address of it validated."""

    url: str
    host: str
    """The host as it goes on the wire (IDNA-encoded; no brackets for IPv6)."""
    port: int
    addresses: tuple[Address, ...]
    """Validated addresses, tried in resolver order; nothing else is ever connected to."""


@attrs.frozen
class Answer:
    status: int
    body: bytes
    oversized: bool
    """The body was larger than the cap; `body` then holds only its first bytes."""


def address_problem(address: Address, policy: UrlPolicy) -> str | None:
    """Why `address` may not be a webhook target, or None when it may (a public address)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return "an IPv4-mapped IPv6 address"
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            problem = address_problem(embedded, UrlPolicy())
            if problem is not None:
                return f"an IPv6 address that embeds {problem}"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_loopback:
        return None if policy.allow_loopback else "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return "a carrier-grade NAT (CGNAT) address"
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return "a site-local address"
    if not address.is_global:
        return "a non-public address"
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a translation prefix (NAT64, 6to4) would reach through this one."""
    if any(address in network for network in _NAT64):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    return None


def check_url(url: object, policy: UrlPolicy) -> httpx.URL:
    """The parsed URL if its form is acceptable (before any lookup); UrlRefused otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise UrlRefused("url must be a non-empty string")
    if len(url) > URL_MAX:
        raise UrlRefused(f"the URL is longer than {URL_MAX} characters")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise UrlRefused("not a valid URL") from None
    if parsed.scheme not in policy.schemes:
        raise UrlRefused("the URL must use https" if not policy.allow_loopback else "the URL must use http or https")
    if not parsed.host:
        raise UrlRefused("the URL must have a host")
    if parsed.userinfo:
        raise UrlRefused("the URL must not carry credentials (user:password@)")
    if parsed.fragment:
        raise UrlRefused("the URL must not have a fragment")
    return parsed


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await trio.socket.getaddrinfo(host, port, type=trio.socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def resolve_and_pin(url: object, policy: UrlPolicy, resolver: Resolver | None = None) -> PinnedTarget:
    """Resolve the URL's host once and require every address to pass `address_problem`."""
    parsed = check_url(url, policy)
    host = parsed.raw_host.decode("ascii")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    literal = _literal_address(host)
    texts: list[str] | None
    if literal is not None:
        texts = [str(literal)]
    else:
        texts = None
        with trio.move_on_after(DNS_TIMEOUT_S):
            try:
                texts = await (resolver or system_resolver)(host, port)
            except OSError:
                raise UrlRefused("the host name does not resolve") from None
        if texts is None:
            raise UrlRefused(f"the host name did not resolve within {DNS_TIMEOUT_S:g} s")
    addresses = []
    for text in texts:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            raise UrlRefused("the host name resolves to something that is not an IP address") from None
        problem = address_problem(address, policy)
        if problem is not None:
            # Never name the address: a refusal must not turn into a probe of internal DNS.
            what = "is" if literal is not None else "resolves to"
            raise UrlRefused(f"the host {what} {problem}")
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise UrlRefused("the host name does not resolve")
    return PinnedTarget(url=str(parsed), host=host, port=port, addresses=tuple(addresses))


def _literal_address(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


# ----- the transport ----------------------------------------------------------------------


SocketOption = typing.Union[
    tuple[int, int, int], tuple[int, int, typing.Union[bytes, bytearray]], tuple[int, int, None, int]
]
"""A socket option as httpcore's network backends take it (httpcore's own alias is private)."""


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens the pinned addresses for the target's origin, and nothing else."""

    def __init__(self, target: PinnedTarget) -> None:
        self._target = target
        self._tcp = httpcore.TrioBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if (host, port) != (self._target.host, self._target.port):
            raise httpcore.ConnectError("only the pinned origin may be reached")
        failure: Exception | None = None
        for address in self._target.addresses:
            try:
                return await self._tcp.connect_tcp(str(address), port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        raise failure or httpcore.ConnectError("no address to connect to")

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: typing.Iterable[SocketOption] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are never a webhook target")

    async def sleep(self, seconds: float) -> None:
        await trio.sleep(seconds)


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport over one pinned target: HTTP/1.1, no proxies, no pooled reuse across targets."""

    def __init__(self, target: PinnedTarget, *, verify: typing.Any = True):
        ssl_context = httpx.create_ssl_context(verify=verify, trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=1,
            http1=True,
            http2=False,
            retries=0,
            network_backend=_PinnedBackend(target),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        response = await self._pool.handle_async_request(core_request)
        assert isinstance(response.stream, AsyncIterable), "an async pool answers with an async stream"
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_CoreStream(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class _CoreStream(httpx.AsyncByteStream):
    def __init__(self, stream: typing.AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> typing.AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            await self._stream.aclose()


_NETWORK_ERRORS = (
    httpx.TransportError,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    OSError,
)
_TIMEOUTS = (httpx.TimeoutException, httpcore.TimeoutException)


async def post_pinned(
    target: PinnedTarget,
    body: bytes,
    headers: dict[str, str],
    *,
    timeout_s: float,
    body_max: int = RESPONSE_BODY_MAX,
    verify: typing.Any = True,
) -> Answer:
    """POST `body` to the pinned target; the whole exchange ends within `timeout_s`.

    Raises OutboundFailure when there is no HTTP answer. Never follows a redirect: a 3xx
    is an answer like any other.
    """
    request_headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity", **headers}
    with trio.move_on_after(timeout_s) as deadline:
        try:
            async with httpx.AsyncClient(
                transport=PinnedTransport(target, verify=verify),
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(timeout_s),
            ) as client:
                async with client.stream("POST", target.url, content=body, headers=request_headers) as response:
                    data, oversized = await _read_capped(response, body_max)
                    return Answer(status=response.status_code, body=data, oversized=oversized)
        except _TIMEOUTS as error:
            raise OutboundFailure("timed_out", type(error).__name__) from None
        except _NETWORK_ERRORS as error:
            raise OutboundFailure("unreachable", f"{type(error).__name__}: {str(error)[:200]}") from None
    assert deadline.cancelled_caught
    raise OutboundFailure("timed_out", f"no complete answer within {timeout_s:g} s")


async def _read_capped(response: httpx.Response, body_max: int) -> tuple[bytes, bool]:
    """At most `body_max` bytes of the (decoded) body, and whether there was more."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding in ("gzip", "x-gzip", "deflate"):
        decoder = zlib.decompressobj(wbits=47 if encoding != "deflate" else 15)
    elif encoding in ("identity", ""):
        decoder = None
    else:
        return b"", False  # an encoding we do not read: the empty body reads as garbled
    data = bytearray()
    async for chunk in response.aiter_raw():
        if decoder is not None:
            try:
                chunk = decoder.decompress(chunk, body_max + 1 - len(data))
            except zlib.error:
                return bytes(data), False
        data += chunk
        if len(data) > body_max:
            return bytes(data[:body_max]), True
    return bytes(data), False
