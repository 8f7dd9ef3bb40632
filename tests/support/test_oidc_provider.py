"""The test provider itself: discovery, a whole authorization-code flow with PKCE, an id_token
that verifies against its JWKS, and a redirect URI it must refuse."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import KeySet

from tests.support.oidc_provider import oidc_provider, sign_in_at_provider  # noqa: F401 (fixture)

REDIRECT = "http://127.0.0.1:49152/auth/callback"


def authorize_url(provider, metadata: dict, **overrides) -> tuple[str, dict]:
    params = {
        "response_type": "code", "client_id": provider.client_id, "redirect_uri": REDIRECT, "scope": "openid profile",
        "state": secrets.token_urlsafe(16), "nonce": secrets.token_urlsafe(16),
    }
    verifier = secrets.token_urlsafe(48)
    params.update(code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256", **overrides)
    return f"{metadata['authorization_endpoint']}?{urlencode(params)}", {**params, "verifier": verifier}


async def test_a_whole_code_flow_yields_an_id_token_that_verifies(oidc_provider):  # noqa: F811
    async with httpx.AsyncClient(timeout=15) as http:
        metadata = (await http.get(f"{oidc_provider.issuer}/.well-known/openid-configuration")).json()
        assert metadata["issuer"] == oidc_provider.issuer and "S256" in metadata["code_challenge_methods_supported"]
        url, sent = authorize_url(oidc_provider, metadata)
        back = await sign_in_at_provider(http, url, "tester")
        assert back.startswith(REDIRECT)
        query = parse_qs(urlsplit(back).query)
        assert query["state"] == [sent["state"]]
        token = await http.post(
            metadata["token_endpoint"],
            data={"grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": REDIRECT,
                  "code_verifier": sent["verifier"]},
            auth=(oidc_provider.client_id, oidc_provider.client_secret),
        )
        assert token.status_code == 200, token.text
        keys = KeySet.import_key_set((await http.get(metadata["jwks_uri"])).json())
    claims = jwt.decode(token.json()["id_token"], keys, algorithms=["RS256"]).claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": oidc_provider.issuer},
        aud={"essential": True, "value": oidc_provider.client_id},
        nonce={"essential": True, "value": sent["nonce"]},
        exp={"essential": True},
    ).validate(claims)
    assert claims["sub"] == "tester" and claims["preferred_username"] == "tester"


async def test_the_provider_refuses_another_redirect_path(oidc_provider):  # noqa: F811
    async with httpx.AsyncClient(timeout=15) as http:
        metadata = (await http.get(f"{oidc_provider.issuer}/.well-known/openid-configuration")).json()
        url, _ = authorize_url(oidc_provider, metadata, redirect_uri="http://127.0.0.1:49152/evil")
        answer = await http.get(url)
    assert answer.status_code == 400 and "redirect_uri" in answer.text
