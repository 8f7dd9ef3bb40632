"""The ecosystem's site for a person signed in to playsite on the same site: its calls carry no
CSRF header, so its writes are a guest's (the guest id in the body), while its socket
handshakes carry the session cookie from an allowed page. The seat promised to the guest still
opens with its token alone: the promise, not the session, says who sits there."""

from __future__ import annotations

import json
import uuid

import pytest
from trio_websocket import open_websocket_url

from tests.accounts.test_sign_in_e2e import site  # noqa: F401 (fixture: a real server, provider and database)
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.waiting import deadline

pytestmark = pytest.mark.postgres


async def test_a_signed_in_persons_guest_seat_opens_with_its_token_and_session(site):  # noqa: F811
    session = await site.sign_in("carol")
    creator, accepter = str(uuid.uuid4()), str(uuid.uuid4())
    cookie = {"Cookie": f"access_token={session}", "Origin": site.origin}
    async with site.client() as http:
        posted = await http.post("/lobby/seeks", json={"creator": creator}, headers=cookie)  # no X-Game-CSRF: a guest's
        assert posted.status_code == 201, posted.text
        match = await http.post(f"/lobby/seeks/{posted.json()['seekId']}/accept", json={"accepter": accepter})
        assert match.status_code == 201, match.text
        status = await http.get(f"/lobby/seeks/{posted.json()['seekId']}", params={"secret": posted.json()["secret"]})
    seat = status.json()
    url = f"{site.server.ws_url}/games/{seat['gameId']}/ws?token={seat['token']}"
    with deadline(10, "the creator's seat, opened by a page carrying the session"):
        async with open_websocket_url(url, extra_headers=list(cookie.items())) as ws:
            (name, snapshot), = json.loads(await ws.get_message()).items()
    assert name == "Snapshot"
    faces = snapshot["state"]["players"]
    assert faces["white"] == faces["black"] == {"kind": "Human", "name": None}, "seated as the guest, not as carol"
