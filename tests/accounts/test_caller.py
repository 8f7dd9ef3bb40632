"""Who is calling, answered outside any request: `Accounts.caller` reads only the credentials
it is handed (what the edge's `http.auth.credentials()` builds at a route), so the browser
boundary and the session checks hold the same for a job or a test as for a request."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from playsite.accounts import queries
from playsite.accounts.service import Accounts
from playsite.config import Settings
from playsite.credentials import NO_CREDENTIALS, Credentials
from playsite.http.origin import OriginPolicy
from playsite.store.database import Database
from tests.support.database import migrated_url  # noqa: F401 (fixture)

ALLOWED, ELSEWHERE = "https://play.example", "https://elsewhere.example"
GUEST = str(uuid.uuid4())


def settings(database_url: str | None) -> Settings:
    return Settings(
        persistence_enabled=database_url is not None,
        session_secret="a session secret of thirty-two bytes or more",
        oidc_issuer="https://id.example",
        oidc_client_id="playsite",
        oidc_client_secret="secret",
        public_origin=ALLOWED,
    )


async def test_without_accounts_a_caller_is_the_canonical_guest_id_it_gives():
    accounts = Accounts(settings(None), None, OriginPolicy(frozenset({ALLOWED})))
    assert not accounts.enabled
    session = Credentials(method="GET", origin=ALLOWED, session="anything")
    assert (await accounts.caller(session, GUEST.upper())).principal == f"guest:{GUEST}"
    assert await accounts.caller(session) is None
    for written in (f"{{{GUEST}}}", f"urn:uuid:{GUEST}", GUEST.replace("-", ""), f" {GUEST}", "guest"):
        assert await accounts.caller(NO_CREDENTIALS, written) is None, written


@pytest.mark.postgres
async def test_a_session_counts_only_where_the_browser_boundary_lets_it(migrated_url):  # noqa: F811
    database = Database(migrated_url)
    await database.open()
    try:
        accounts = Accounts(settings(migrated_url), database, OriginPolicy(frozenset({ALLOWED})))
        with psycopg.connect(migrated_url) as conn:
            account = queries.sign_in(conn, "https://id.example", f"caller-{GUEST}", {"nickname": "caller"})
            conn.commit()
        assert accounts.sessions is not None
        token = accounts.sessions.issue(account)

        def came(method: str, origin: str | None, csrf: str | None = None, handshake: bool = False) -> Credentials:
            return Credentials(method=method, origin=origin, csrf=csrf, handshake=handshake, session=token)

        for counted in (came("GET", None), came("POST", ALLOWED, csrf="1"), came("GET", ALLOWED, handshake=True)):
            caller = await accounts.caller(counted, GUEST)
            assert caller is not None and caller.principal == account.principal and caller.account == account
        for ignored in (came("POST", ELSEWHERE, csrf="1"), came("POST", ALLOWED), came("GET", ELSEWHERE, handshake=True)):
            caller = await accounts.caller(ignored, GUEST)
            assert caller is not None and caller.principal == f"guest:{GUEST}"
        assert await accounts.signed_in(came("POST", ELSEWHERE)) == account  # the route applies the boundary

        await accounts.run(lambda conn: queries.end_sessions(conn, account.id))
        assert await accounts.caller(came("GET", None)) is None
    finally:
        await database.close()
