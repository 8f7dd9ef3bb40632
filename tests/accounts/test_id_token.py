"""id_token verification without a network: the client's discovery metadata and key set are
given directly, tokens are made here with joserfc (and by hand where joserfc would refuse)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
import trio
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey

from playsite.accounts.oidc import OidcClient, SignInFailed

ISSUER = "https://id.example"
CLIENT = "playsite"
NONCE = "nonce-0123456789"
RSA = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
EC = ECKey.generate_key("P-256", parameters={"kid": "ec-1"})


def client(algorithms=("RS256", "ES256"), keys=(RSA, EC)) -> OidcClient:
    oidc = OidcClient(ISSUER, CLIENT, "secret", "https://play.example/auth/callback")
    oidc._metadata = {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/auth",
        "token_endpoint": f"{ISSUER}/token",
        "jwks_uri": "http://127.0.0.1:9/jwks",  # nothing listens: a fetch would fail loudly
        "id_token_signing_alg_values_supported": list(algorithms),
    }
    oidc._keys = KeySet(list(keys))
    oidc._keys_read_at = trio.current_time()
    return oidc


def claims(**overrides) -> dict:
    now = int(time.time())
    values = {"iss": ISSUER, "aud": CLIENT, "sub": "subject-1", "nonce": NONCE, "iat": now, "exp": now + 300}
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def signed(payload: dict, key=RSA, alg="RS256") -> str:
    return jwt.encode({"alg": alg, "kid": key.kid}, payload, key)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def test_a_valid_token_gives_its_claims():
    assert (await client().verify_id_token(signed(claims()), NONCE))["sub"] == "subject-1"
    assert (await client().verify_id_token(signed(claims(), EC, "ES256"), NONCE))["sub"] == "subject-1"
    several = claims(aud=[CLIENT, "other"], azp=CLIENT)
    assert (await client().verify_id_token(signed(several), NONCE))["azp"] == CLIENT


async def refused(token: str, oidc: OidcClient | None = None) -> None:
    with pytest.raises(SignInFailed):
        with trio.fail_after(2):  # never a network round trip
            await (oidc or client()).verify_id_token(token, NONCE)


async def test_forged_signatures_are_refused():
    impostor = RSAKey.generate_key(2048, parameters={"kid": "rsa-1"})
    await refused(signed(claims(), impostor))
    header = {"alg": "HS256", "kid": "rsa-1", "typ": "JWT"}
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims()).encode())}"
    public_pem = RSA.as_pem(private=False)
    confused = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    await refused(f"{signing_input}.{b64(confused)}")  # the public key used as an HMAC secret
    unsigned = f"{b64(json.dumps({'alg': 'none'}).encode())}.{b64(json.dumps(claims()).encode())}."
    await refused(unsigned)
    await refused("not-a-jwt")


@pytest.mark.parametrize(
    "bad",
    [
        {"iss": "https://evil.example"},
        {"aud": "another-client"},
        {"aud": [CLIENT, "other"]},  # several audiences and no azp
        {"aud": [CLIENT, "other"], "azp": "other"},
        {"exp": int(time.time()) - 120},  # beyond the 60 s leeway
        {"nonce": "another-nonce"},
        {"nonce": None},
        {"sub": None},
        {"sub": "x" * 256},
    ],
)
async def test_claims_that_do_not_belong_to_this_sign_in_are_refused(bad):
    await refused(signed(claims(**bad)))


async def test_an_algorithm_the_provider_does_not_announce_is_refused():
    await refused(signed(claims(), EC, "ES256"), client(algorithms=("RS256",)))


async def test_an_unknown_key_is_refused_without_refetching_keys_read_just_now():
    stranger = RSAKey.generate_key(2048, parameters={"kid": "rotated-2"})
    await refused(signed(claims(), stranger))
