"""The session and sign-in state tokens, without a network: what verifies and what never does."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from playsite.accounts.model import Account
from playsite.accounts.sessions import LOGIN_STATE_LIFETIME_S, LoginState, Sessions, derive_key

SECRET = "unit-test-session-secret-" + "q" * 20
ACCOUNT = Account(uuid.UUID("6f1c1a52-2a4e-4a3e-9d0e-0f3a8e1b2c01"), "alice", "active", 4)


def b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def claims_of(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def test_a_session_round_trips_the_account_and_its_generation():
    sessions = Sessions(SECRET, 3600, now=lambda: 1_000_000)
    verified = sessions.verify(sessions.issue(ACCOUNT))
    assert verified.account_id == ACCOUNT.id and verified.generation == 4
    assert claims_of(sessions.issue(ACCOUNT))["exp"] == 1_003_600


def test_tokens_not_made_by_this_secret_for_this_purpose_are_refused():
    sessions = Sessions(SECRET, 3600)
    token = sessions.issue(ACCOUNT)
    header, payload, signature = token.split(".")
    tampered = f"{header}.{b64({**claims_of(token), 'sub': str(uuid.uuid4())})}.{signature}"
    refused = {
        "another secret": Sessions("another-secret-" + "w" * 30, 3600).issue(ACCOUNT),
        "a changed claim": tampered,
        "alg none": f"{b64({'alg': 'none', 'typ': 'JWT'})}.{payload}.",
        "no signature": f"{header}.{payload}.",
        "garbage": "not.a.token",
        "empty": "",
        "a sign-in state cookie": sessions.seal_login(LoginState("s", "n", "v", "/")),
    }
    for why, candidate in refused.items():
        assert sessions.verify(candidate) is None, why


def test_other_algorithms_and_claims_are_refused_even_with_the_right_key():
    key = derive_key(SECRET, "session")
    base = {"iss": "playsite", "aud": "access_token", "sub": str(ACCOUNT.id), "gen": 0, "iat": 1, "exp": 4_000_000_000}
    sessions = Sessions(SECRET, 3600)
    assert sessions.verify(jwt.encode({"alg": "HS256"}, base, key)) is not None, "the control case verifies"
    for why, header, claims in [
        ("HS512", {"alg": "HS512"}, base),
        ("wrong issuer", {"alg": "HS256"}, {**base, "iss": "elsewhere"}),
        ("wrong audience", {"alg": "HS256"}, {**base, "aud": "signin_state"}),
        ("no expiry", {"alg": "HS256"}, {k: v for k, v in base.items() if k != "exp"}),
        ("a sub that is no UUID", {"alg": "HS256"}, {**base, "sub": "alice"}),
        ("a boolean generation", {"alg": "HS256"}, {**base, "gen": True}),
        ("a negative generation", {"alg": "HS256"}, {**base, "gen": -1}),
        ("a string generation", {"alg": "HS256"}, {**base, "gen": "0"}),
    ]:
        registry = jwt.JWSRegistry(algorithms=["HS256", "HS512"]) if header["alg"] == "HS512" else None
        token = jwt.encode(header, claims, key, registry=registry) if registry else jwt.encode(header, claims, key)
        assert sessions.verify(token) is None, why


def test_an_expired_session_is_refused():
    issued = Sessions(SECRET, 3600, now=lambda: 1_000_000).issue(ACCOUNT)
    assert Sessions(SECRET, 3600, now=lambda: 1_003_599).verify(issued) is not None
    assert Sessions(SECRET, 3600, now=lambda: 1_003_601).verify(issued) is None


def test_the_sign_in_state_opens_only_with_its_exact_state_and_only_while_fresh():
    sealed = Sessions(SECRET, 3600, now=lambda: 2_000_000).seal_login(LoginState("state-abc", "nonce", "verifier", "/next"))
    fresh = Sessions(SECRET, 3600, now=lambda: 2_000_000 + LOGIN_STATE_LIFETIME_S - 1)
    assert fresh.open_login(sealed, "state-abc") == LoginState("state-abc", "nonce", "verifier", "/next")
    for wrong in ("state-abd", "state-ab", "", "STATE-ABC"):
        assert fresh.open_login(sealed, wrong) is None, wrong
    late = Sessions(SECRET, 3600, now=lambda: 2_000_000 + LOGIN_STATE_LIFETIME_S + 1)
    assert late.open_login(sealed, "state-abc") is None
    assert fresh.open_login(fresh.issue(ACCOUNT), "state-abc") is None, "a session is no sign-in state"


@pytest.mark.parametrize("purpose", ["session", "sign-in state"])
def test_each_purpose_has_its_own_key(purpose):
    other = "sign-in state" if purpose == "session" else "session"
    assert derive_key(SECRET, purpose).raw_value != derive_key(SECRET, other).raw_value
    assert derive_key(SECRET, purpose).raw_value != SECRET.encode()
    assert isinstance(derive_key(SECRET, purpose), OctKey)
