"""The ecosystem's site for a person signed in to playsite on the same site: its calls carry no
CSRF header, so its writes are a guest's (the guest id in the body), while its socket
handshakes carry the session cookie from an allowed page. The seat promised to the guest still
opens with its token alone: the promise, not the session, says who sits there."""

from __future__ import annotations

import json
import uuid

import pytest
from trio_websocket import open_websocket_url

from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.sign_in import site  # noqa: F401 (fixture: a real server, provider and database)
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


async def test_a_guest_id_is_claimed_once_and_for_good(site):  # noqa: F811
    """authApi.claimGuest / fetchClaimedGuests: the site's exact calls (credentials, JSON, the
    site's Origin, no X-Game-CSRF), first claim wins, a repeat changes nothing."""
    carol, dave = await site.sign_in("carol"), await site.sign_in("dave")
    first, second, theirs = (str(uuid.uuid4()) for _ in range(3))

    def as_site(session: str | None) -> dict[str, str]:
        cookie = {"Cookie": f"access_token={session}"} if session else {}
        return {**cookie, "Origin": site.origin, "content-type": "application/json"}

    async with site.client() as http:
        async def claim(session: str | None, guest_id: object, headers: dict[str, str] | None = None):
            return await http.post("/auth/me/guests", content=json.dumps({"guestId": guest_id}),
                                   headers=headers if headers is not None else as_site(session))

        listed = await http.get("/auth/me/guests", headers=as_site(carol))
        assert listed.status_code == 200 and listed.json() == {"guests": []}
        assert "no-store" in listed.headers["Cache-Control"]
        assert (await claim(carol, first.upper())).json() == {"guests": [first]}, "stored as the lowercase bare UUID"
        assert (await claim(carol, second)).json() == {"guests": [first, second]}, "oldest claim first"
        again = await claim(carol, first)
        assert again.status_code == 200 and again.json() == {"guests": [first, second]}, "claiming one's own again changes nothing"

        taken = await claim(dave, first)
        assert taken.status_code == 409 and taken.json()["code"] == "guest_claimed", "first claim wins, for good"
        assert taken.headers["content-type"] == "application/problem+json"
        assert (await claim(dave, theirs)).json() == {"guests": [theirs]}
        assert (await http.get("/auth/me/guests", headers=as_site(dave))).json() == {"guests": [theirs]}
        assert (await http.get("/auth/me/guests", headers=as_site(carol))).json() == {"guests": [first, second]}

        for guest_id in (f"guest:{theirs}", "{" + theirs + "}", theirs.replace("-", ""), 7, None):
            bad = await claim(carol, guest_id)
            assert bad.status_code == 400 and bad.json()["code"] == "invalid_request", guest_id
        unknown_field = await http.post("/auth/me/guests", content=json.dumps({"guestId": theirs, "x": 1}), headers=as_site(carol))
        assert unknown_field.status_code == 400
        signed_out = await claim(None, str(uuid.uuid4()))
        assert signed_out.status_code == 401 and signed_out.json()["code"] == "not_signed_in"
        assert (await http.get("/auth/me/guests", headers=as_site(None))).status_code == 401

        # The session is ambient: only a page of an allowed origin, sending JSON, may claim with it.
        cookie = {"Cookie": f"access_token={carol}"}
        for headers in (
            {**cookie, "content-type": "application/json"},
            {**cookie, "Origin": "http://evil.example", "content-type": "application/json"},
            {**cookie, "Origin": site.origin, "content-type": "text/plain"},
        ):
            refused = await claim(carol, str(uuid.uuid4()), headers)
            assert refused.status_code == 403 and refused.json()["code"] == "csrf_origin_rejected", headers
