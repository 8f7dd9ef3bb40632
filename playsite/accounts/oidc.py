"""Sign-in with an OpenID Connect provider: authorization code flow with PKCE, state and nonce.

The provider is found by discovery (`<issuer>/.well-known/openid-configuration`), whose
`issuer` must equal the configured one exactly. The id_token from the token endpoint is
verified here, locally, against the provider's published keys (JWKS): its signature with an
asymmetric algorithm the provider announces (never `none`, never an HMAC algorithm, so a
token "signed" with the public key as an HMAC secret is refused), its issuer, its audience
(our client id; `azp` too when there are several), its expiry and issue time, and the nonce
this sign-in sent. Keys are re-read when a token names a key id not seen yet (a rotation),
at most once a minute.

authlib provides PKCE and the request parameters; joserfc verifies the JWT. The token
request is one form POST with the client's credentials in HTTP Basic (client_secret_basic).
"""

from __future__ import annotations

import hmac
import logging
from typing import cast
from urllib.parse import quote

import httpx
import trio
from authlib.common.security import generate_token
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, KeySetSerialization

log = logging.getLogger("playsite.accounts")

HTTP_TIMEOUT_S = 10
JWKS_REFRESH_MIN_S = 60
CLOCK_LEEWAY_S = 60
SCOPES = "openid profile email"
ASYMMETRIC_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
SUBJECT_MAX = 255


class SignInFailed(Exception):
    """The provider's answer cannot be trusted or used. The message is for the log: it names
    what failed and never contains a token or a code."""


class ProviderUnavailable(Exception):
    """The provider could not be reached (discovery, keys, token endpoint)."""


def new_secret() -> str:
    """A state, nonce or PKCE verifier: 48 URL-safe characters (about 286 bits)."""
    return generate_token(48)


class OidcClient:
    def __init__(self, issuer: str, client_id: str, client_secret: str, redirect_uri: str):
        self.issuer = issuer
        self.client_id = client_id
        self._client_secret = client_secret
        self.redirect_uri = redirect_uri
        self._metadata: dict | None = None
        self._keys: KeySet | None = None
        self._keys_read_at = -float("inf")
        self._lock = trio.Lock()

    # ----- discovery and keys -------------------------------------------------------------------

    async def metadata(self) -> dict:
        if self._metadata is None:
            url = self.issuer.rstrip("/") + "/.well-known/openid-configuration"
            document = await self._get_json(url)
            if document.get("issuer") != self.issuer:
                raise ProviderUnavailable("the discovery document names another issuer than OIDC_ISSUER")
            for field in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                if not isinstance(document.get(field), str):
                    raise ProviderUnavailable(f"the discovery document has no {field}")
            self._metadata = document
        return self._metadata

    async def _key_set(self, *, refresh: bool = False) -> KeySet:
        async with self._lock:
            stale = trio.current_time() - self._keys_read_at >= JWKS_REFRESH_MIN_S
            if self._keys is None or (refresh and stale):
                document = await self._get_json((await self.metadata())["jwks_uri"])
                try:
                    # Checked by the import itself (which raises on anything else than a JWKS).
                    self._keys = KeySet.import_key_set(cast(KeySetSerialization, document))
                except (JoseError, ValueError, TypeError, KeyError) as error:
                    raise ProviderUnavailable(f"the provider's JWKS cannot be read: {type(error).__name__}") from None
                self._keys_read_at = trio.current_time()
            return self._keys

    async def _get_json(self, url: str) -> dict:
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S, follow_redirects=False) as http:
                response = await http.get(url, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise ProviderUnavailable(f"{url}: {type(error).__name__}") from None
        if response.status_code != 200:
            raise ProviderUnavailable(f"{url}: HTTP {response.status_code}")
        try:
            document = response.json()
        except ValueError:
            raise ProviderUnavailable(f"{url}: not JSON") from None
        if not isinstance(document, dict):
            raise ProviderUnavailable(f"{url}: not a JSON object")
        return document

    # ----- the flow ---------------------------------------------------------------------------------

    async def authorization_url(self, *, state: str, nonce: str, verifier: str) -> str:
        endpoint = (await self.metadata())["authorization_endpoint"]
        return add_params_to_uri(
            endpoint,
            [
                ("response_type", "code"),
                ("client_id", self.client_id),
                ("redirect_uri", self.redirect_uri),
                ("scope", SCOPES),
                ("state", state),
                ("nonce", nonce),
                ("code_challenge", create_s256_code_challenge(verifier)),
                ("code_challenge_method", "S256"),
            ],
        )

    async def exchange(self, code: str, verifier: str) -> str:
        """The id_token the token endpoint gives for this code (not yet verified)."""
        endpoint = (await self.metadata())["token_endpoint"]
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "code_verifier": verifier,
        }
        # RFC 6749 2.3.1: the client id and secret are form-urlencoded before Basic encoding.
        auth = httpx.BasicAuth(quote(self.client_id, safe=""), quote(self._client_secret, safe=""))
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S, follow_redirects=False) as http:
                response = await http.post(endpoint, data=form, auth=auth, headers={"Accept": "application/json"})
        except httpx.HTTPError as error:
            raise ProviderUnavailable(f"token endpoint: {type(error).__name__}") from None
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        if response.status_code != 200:
            # The provider's error code only (e.g. invalid_grant); its description may echo input.
            refused = answer.get("error") if isinstance(answer, dict) else None
            raise SignInFailed(f"token endpoint refused the code: HTTP {response.status_code} {refused or ''}".strip())
        id_token = answer.get("id_token") if isinstance(answer, dict) else None
        if not isinstance(id_token, str):
            raise SignInFailed("the token endpoint answered without an id_token")
        return id_token

    async def verify_id_token(self, id_token: str, nonce: str) -> dict:
        """The id_token's claims, once every check in the module docstring has passed."""
        announced = (await self.metadata()).get("id_token_signing_alg_values_supported") or ["RS256"]
        algorithms = [alg for alg in announced if alg in ASYMMETRIC_ALGORITHMS]
        if not algorithms:
            raise SignInFailed("the provider announces no asymmetric id_token algorithm")
        keys = await self._key_set()
        try:
            decoded = self._decode(id_token, keys, algorithms)
        except JoseError as error:
            if not _unknown_key(error):
                raise SignInFailed(f"id_token refused: {error.error}") from None
            try:  # a key id not seen yet: the provider may have rotated its keys
                decoded = self._decode(id_token, await self._key_set(refresh=True), algorithms)
            except JoseError as again:
                raise SignInFailed(f"id_token refused: {again.error}") from None
        claims = decoded.claims
        try:
            jwt.JWTClaimsRegistry(
                leeway=CLOCK_LEEWAY_S,
                iss={"essential": True, "value": self.issuer},
                aud={"essential": True, "value": self.client_id},
                sub={"essential": True},
                exp={"essential": True},
                iat={"essential": True},
            ).validate(claims)
        except JoseError as error:
            raise SignInFailed(f"id_token claims refused: {error.error} {getattr(error, 'claim', '')}".strip()) from None
        audience = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audience) > 1 and claims.get("azp") != self.client_id:
            raise SignInFailed("id_token for several audiences without our client as azp")
        sent = claims.get("nonce")
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), nonce.encode()):
            raise SignInFailed("id_token nonce does not match this sign-in")
        subject = claims.get("sub")
        if not isinstance(subject, str) or not 0 < len(subject) <= SUBJECT_MAX:
            raise SignInFailed("id_token subject is not a usable string")
        return claims

    @staticmethod
    def _decode(id_token: str, keys: KeySet, algorithms: list[str]) -> jwt.Token:
        try:
            return jwt.decode(id_token, keys, algorithms=algorithms)
        except (ValueError, TypeError) as error:
            raise SignInFailed(f"id_token is malformed: {type(error).__name__}") from None


def _unknown_key(error: JoseError) -> bool:
    return error.error in ("invalid_key_id", "missing_key")
