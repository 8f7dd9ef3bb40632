"""The pinned outbound transport: URL policy, one resolution, connect to the pinned address,
Host and SNI kept, no redirects, bounded bodies, timeouts — against real local servers."""

from __future__ import annotations

import datetime
import gzip
import ipaddress
import ssl

import httpcore
import httpx
import pytest
import trio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from playsite.transports.pinned import (
    RESPONSE_BODY_MAX,
    OutboundFailure,
    PinnedTarget,
    PinnedTransport,
    UrlPolicy,
    UrlRefused,
    address_problem,
    check_url,
    post_pinned,
    resolve_and_pin,
)
from tests.support.receiver import Reply, WebhookReceiver

PUBLIC = UrlPolicy()
LOOPBACK_OK = UrlPolicy(allow_loopback=True)


def mapped(names: dict[str, list[str]], calls: list | None = None):
    """A resolver of our own: host names we map to addresses we choose."""

    async def resolve(host: str, port: int) -> list[str]:
        if calls is not None:
            calls.append((host, port))
        if host not in names:
            raise OSError(f"{host} does not resolve")
        return names[host]

    return resolve


# ----- URL policy --------------------------------------------------------------------------

REFUSED_ADDRESSES = [
    ("127.0.0.1", "loopback"),
    ("127.8.9.10", "loopback"),
    ("::1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("169.254.169.254", "link-local"),
    ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"),
    ("ff02::1", "multicast"),
    ("100.64.0.1", "CGNAT"),
    ("100.127.255.254", "CGNAT"),
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("::ffff:127.0.0.1", "IPv4-mapped"),
    ("::ffff:8.8.8.8", "IPv4-mapped"),
    ("64:ff9b::a00:1", "embeds a private"),
    ("2002:7f00:1::1", "embeds a loopback"),
    ("192.0.2.10", "private"),  # documentation range
    ("198.18.0.1", "private"),  # benchmarking
]


@pytest.mark.parametrize(("address", "word"), REFUSED_ADDRESSES)
def test_url_policy_refuses_non_public_addresses(address, word):
    problem = address_problem(ipaddress.ip_address(address), PUBLIC)
    assert problem is not None and word in problem


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "93.184.216.34"])
def test_url_policy_accepts_public_addresses(address):
    assert address_problem(ipaddress.ip_address(address), PUBLIC) is None


def test_loopback_mode_allows_loopback_only():
    assert address_problem(ipaddress.ip_address("127.0.0.1"), LOOPBACK_OK) is None
    assert address_problem(ipaddress.ip_address("::1"), LOOPBACK_OK) is None
    for still_refused in ("10.0.0.1", "169.254.169.254", "::ffff:127.0.0.1", "100.64.0.1"):
        assert address_problem(ipaddress.ip_address(still_refused), LOOPBACK_OK) is not None


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://example.com/hook", "https"),
        ("ftp://example.com/hook", "https"),
        ("https://user:pw@example.com/hook", "credentials"),
        ("https://example.com/hook#frag", "fragment"),
        ("https:///nohost", "host"),
        ("not a url", "https"),
        ("", "non-empty"),
        ("https://example.com/" + "a" * 2100, "longer"),
    ],
)
def test_url_form_is_checked_before_any_lookup(url, words):
    with pytest.raises(UrlRefused) as refused:
        check_url(url, PUBLIC)
    assert words in refused.value.reason


def test_url_must_be_a_string():
    for value in (None, 42, ["https://example.com"]):
        with pytest.raises(UrlRefused):
            check_url(value, PUBLIC)


def test_loopback_mode_allows_plain_http():
    assert check_url("http://localhost:8000/hook", LOOPBACK_OK).scheme == "http"
    with pytest.raises(UrlRefused):
        check_url("http://localhost:8000/hook", PUBLIC)


async def test_every_resolved_address_must_be_public():
    resolver = mapped({"mixed.example": ["93.184.216.34", "10.0.0.7"]})
    with pytest.raises(UrlRefused) as refused:
        await resolve_and_pin("https://mixed.example/hook", PUBLIC, resolver)
    assert refused.value.reason == "the host resolves to a private address"
    assert "10.0.0.7" not in refused.value.reason  # never a probe of internal DNS


async def test_a_public_name_is_pinned_to_its_addresses():
    calls = []
    resolver = mapped({"bot.example": ["93.184.216.34", "2606:2800:220:1::1"]}, calls)
    target = await resolve_and_pin("https://bot.example/hook?x=1", PUBLIC, resolver)
    assert target.host == "bot.example" and target.port == 443
    assert [str(a) for a in target.addresses] == ["93.184.216.34", "2606:2800:220:1::1"]
    assert calls == [("bot.example", 443)]


async def test_literal_addresses_are_checked_without_lookup():
    calls = []
    with pytest.raises(UrlRefused) as refused:
        await resolve_and_pin("https://[::ffff:169.254.169.254]/", PUBLIC, mapped({}, calls))
    assert "IPv4-mapped" in refused.value.reason and calls == []


async def test_a_name_that_does_not_resolve_is_refused():
    with pytest.raises(UrlRefused) as refused:
        await resolve_and_pin("https://nowhere.example/", PUBLIC, mapped({}))
    assert "does not resolve" in refused.value.reason


async def test_a_resolver_that_hangs_is_given_up(autojump_clock):
    async def hang(host, port):
        await trio.sleep_forever()

    with pytest.raises(UrlRefused) as refused:
        await resolve_and_pin("https://slow.example/", PUBLIC, hang)
    assert "did not resolve within" in refused.value.reason


# ----- the pinned connection ---------------------------------------------------------------


async def test_connects_to_the_pinned_address_with_the_original_host_header():
    calls = []
    with WebhookReceiver(lambda seen: Reply(200, b"{}")) as receiver:
        # "bot.example" exists nowhere but in our resolver: only the pinned address can reach it.
        resolver = mapped({"bot.example": ["127.0.0.1"]}, calls)
        target = await resolve_and_pin(receiver.url("bot.example"), LOOPBACK_OK, resolver)
        answer = await post_pinned(target, b'{"a":1}', {"Content-Type": "application/json"}, timeout_s=5)
    assert answer.status == 200
    assert calls == [("bot.example", receiver.port)]  # resolved once, never again at connect
    (seen,) = receiver.seen
    assert seen.headers["host"] == f"bot.example:{receiver.port}"
    assert seen.path == "/hook" and seen.body == b'{"a":1}'


async def test_localhost_is_resolved_by_the_system_and_keeps_its_host_header():
    with WebhookReceiver(lambda seen: Reply(204)) as receiver:
        target = await resolve_and_pin(receiver.url("localhost"), LOOPBACK_OK)
        assert all(address.is_loopback for address in target.addresses)
        answer = await post_pinned(target, b"{}", {}, timeout_s=5)
    assert answer.status == 204
    assert receiver.seen[0].headers["host"] == f"localhost:{receiver.port}"


async def test_the_transport_refuses_any_origin_but_the_pinned_one():
    with WebhookReceiver(lambda seen: Reply(200)) as receiver:
        target = await resolve_and_pin(receiver.url(), LOOPBACK_OK)
        async with httpx.AsyncClient(transport=PinnedTransport(target)) as client:
            with pytest.raises(httpcore.ConnectError):
                await client.post(f"http://127.0.0.1:{receiver.port + 1}/elsewhere")
            with pytest.raises(httpcore.ConnectError):
                await client.post(f"http://other.example:{receiver.port}/hook")
        assert receiver.seen == []


async def test_redirects_are_never_followed():
    def redirect(seen):
        return Reply(302, headers={"Location": f"http://127.0.0.1:{seen.headers['host'].split(':')[1]}/second"})

    with WebhookReceiver(redirect) as receiver:
        target = await resolve_and_pin(receiver.url(), LOOPBACK_OK)
        answer = await post_pinned(target, b"{}", {}, timeout_s=5)
    assert answer.status == 302
    assert [seen.path for seen in receiver.seen] == ["/hook"]


async def test_response_bodies_are_capped():
    sizes = iter([RESPONSE_BODY_MAX, RESPONSE_BODY_MAX + 1])
    with WebhookReceiver(lambda seen: Reply(200, b"x" * next(sizes))) as receiver:
        target = await resolve_and_pin(receiver.url(), LOOPBACK_OK)
        exact = await post_pinned(target, b"{}", {}, timeout_s=5)
        over = await post_pinned(target, b"{}", {}, timeout_s=5)
    assert not exact.oversized and len(exact.body) == RESPONSE_BODY_MAX
    assert over.oversized and len(over.body) == RESPONSE_BODY_MAX


async def test_a_compressed_body_is_capped_after_decompression():
    bomb = gzip.compress(b" " * (20 * 1024 * 1024))
    small = gzip.compress(b'{"moves":[]}')
    replies = iter([bomb, small])
    with WebhookReceiver(lambda seen: Reply(200, next(replies), headers={"Content-Encoding": "gzip"})) as receiver:
        target = await resolve_and_pin(receiver.url(), LOOPBACK_OK)
        big = await post_pinned(target, b"{}", {}, timeout_s=5)
        fine = await post_pinned(target, b"{}", {}, timeout_s=5)
    assert big.oversized
    assert fine.body == b'{"moves":[]}' and not fine.oversized
    assert receiver.seen[0].headers["accept-encoding"] == "identity"


async def test_a_slow_answer_times_out():
    with WebhookReceiver(lambda seen: Reply(200, b"{}", delay_s=3)) as receiver:
        target = await resolve_and_pin(receiver.url(), LOOPBACK_OK)
        started = trio.current_time()
        with pytest.raises(OutboundFailure) as failure:
            await post_pinned(target, b"{}", {}, timeout_s=0.3)
    assert failure.value.kind == "timed_out"
    assert trio.current_time() - started < 2


async def test_nothing_listening_is_unreachable():
    with WebhookReceiver() as receiver:
        port = receiver.port
    target = PinnedTarget(f"http://127.0.0.1:{port}/hook", "127.0.0.1", port, (ipaddress.ip_address("127.0.0.1"),))
    with pytest.raises(OutboundFailure) as failure:
        await post_pinned(target, b"{}", {}, timeout_s=5)
    assert failure.value.kind == "unreachable"


# ----- TLS: SNI and certificate verification use the host name -----------------------------


def certificate_for(name: str) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def tls_pair(name: str, tmp_path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context serving a certificate for `name`, client context trusting only it)."""
    cert_pem, key_pem = certificate_for(name)
    cert_file, key_file = tmp_path / f"{name}.crt", tmp_path / f"{name}.key"
    cert_file.write_bytes(cert_pem)
    key_file.write_bytes(key_pem)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cafile=str(cert_file))
    return server, client


async def test_tls_uses_the_host_name_for_sni_and_verification(tmp_path):
    server_tls, client_tls = tls_pair("bot.example", tmp_path)
    with WebhookReceiver(lambda seen: Reply(200, b"ok"), tls=server_tls) as receiver:
        resolver = mapped({"bot.example": ["127.0.0.1"]})
        target = await resolve_and_pin(receiver.url("bot.example"), LOOPBACK_OK, resolver)
        answer = await post_pinned(target, b"{}", {}, timeout_s=5, verify=client_tls)
    assert answer.status == 200 and answer.body == b"ok"
    (seen,) = receiver.seen
    assert seen.sni == "bot.example"
    assert seen.headers["host"] == f"bot.example:{receiver.port}"


async def test_tls_refuses_a_certificate_for_another_name(tmp_path):
    server_tls, _ = tls_pair("evil.example", tmp_path)
    _, client_tls = tls_pair("bot.example", tmp_path)
    with WebhookReceiver(lambda seen: Reply(200, b"ok"), tls=server_tls) as receiver:
        resolver = mapped({"bot.example": ["127.0.0.1"]})
        target = await resolve_and_pin(receiver.url("bot.example"), LOOPBACK_OK, resolver)
        with pytest.raises(OutboundFailure) as failure:
            await post_pinned(target, b"{}", {}, timeout_s=5, verify=client_tls)
    assert failure.value.kind == "unreachable"
    assert receiver.seen == []
