"""A profile page of nobody is a 404 (play-through s72: a 200 saying "No player called ..."), of
somebody a 200, whether they have played or not; the page itself says which."""

from __future__ import annotations

import psycopg
import pytest

from playsite.accounts import queries as accounts
from playsite.config import Settings
from tests.support.app import booted, test_client
from tests.support.ratings import account, store  # noqa: F401 (store: a fixture)

pytestmark = pytest.mark.postgres


async def test_a_profile_page_is_404_for_a_name_nobody_has_and_200_for_an_account_or_a_bot(store, database_url):  # noqa: F811
    account(database_url, "Ann")  # never played: her profile is still hers
    gone = account(database_url, "gone")
    with psycopg.connect(database_url) as conn:
        accounts.delete(conn, gone.id)
        conn.commit()
    async with booted(Settings(database_url=database_url, persistence_enabled=True)) as services:
        client = test_client(services)
        for path in ("/@/Ann", "/@/ann", "/@/red/ant"):
            answer = await client.get(path)
            assert answer.status_code == 200, path
            assert answer.headers["Content-Type"].startswith("text/html"), path
        for path in ("/@/nobody_here", "/@/gone", "/@/x", "/@/bad%20name", "/@/red/nobody", "/@/Red%20team/ant"):
            answer = await client.get(path)
            assert answer.status_code == 404, path
            # the profile page all the same: it reads the profile and says "No player called ..."
            assert 'id="profile-name"' in await answer.get_data(as_text=True), path
