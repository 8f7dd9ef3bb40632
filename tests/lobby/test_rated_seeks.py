"""Rated seeks: a signed-in person offers a rated game in the lobby and only another signed-in
person can take it; the game is rated. A guest can neither post one nor take one (401
`not_signed_in`, and the seek stays open for the next taker). Over real sockets: a
`playsite serve` on PostgreSQL, a real OpenID Connect provider, httpx as the browsers."""

from __future__ import annotations

import uuid

import pytest

from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.documented import Documented
from tests.support.errors import assert_error
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.sign_in import site  # noqa: F401 (fixture: a real server, provider and database)

pytestmark = pytest.mark.postgres
CLOCK = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}


async def test_a_rated_seek_is_posted_and_taken_by_signed_in_people_only(site):  # noqa: F811
    documented = Documented()
    alice, bob = await site.sign_in("alice"), await site.sign_in("bob")
    guest = str(uuid.uuid4())
    async with site.client() as http:
        # a guest may not offer a rated game; a rated flag that is not a flag is refused as such
        refused = await http.post("/lobby/seeks", json={"creator": guest, "rated": True})
        assert_error(refused, 401, "not_signed_in")
        documented.check_http("post", "/lobby/seeks", refused)
        assert_error(await http.post("/lobby/seeks", json={"creator": guest, "rated": "yes"}), 400, "invalid_request")
        assert (await http.get("/lobby/seeks")).json() == []

        posted = await site.write("POST", "/lobby/seeks", alice, json={"rated": True, "timeControl": CLOCK})
        assert posted.status_code == 201, posted.text
        documented.check_http("post", "/lobby/seeks", posted)
        seek = posted.json()
        listed = await http.get("/lobby/seeks")
        documented.check_http("get", "/lobby/seeks", listed)
        entry, = listed.json()
        assert entry["rated"] is True and entry["kind"] == "Human" and entry["timeControl"] == CLOCK
        assert entry["name"], "an account's seek is named by its nickname"
        # with its rating, as the lobby shows it: a new account's, the starting one, provisional
        assert entry["rating"] == {"rating": 1500.0, "rd": 350.0, "provisional": True}

        # a guest may not take it, and it stays open for someone who may
        taken = await http.post(f"/lobby/seeks/{seek['seekId']}/accept", json={"accepter": guest})
        assert_error(taken, 401, "not_signed_in")
        documented.check_http("post", "/lobby/seeks/{id}/accept", taken)
        assert [s["id"] for s in (await http.get("/lobby/seeks")).json()] == [seek["seekId"]]
        # nor its own creator
        assert_error(await site.write("POST", f"/lobby/seeks/{seek['seekId']}/accept", alice, json={}), 400, "own_seek")

        match = await site.write("POST", f"/lobby/seeks/{seek['seekId']}/accept", bob, json={})
        assert match.status_code == 201, match.text
        documented.check_http("post", "/lobby/seeks/{id}/accept", match)
        game_id = match.json()["gameId"]
        state = (await http.get(f"/games/{game_id}")).json()
        assert state["rated"] is True and state["timeControl"] == CLOCK
        mine = (await http.get(f"/lobby/seeks/{seek['seekId']}", params={"secret": seek["secret"]})).json()
        assert mine["matched"] is True and mine["gameId"] == game_id and {mine["seat"], match.json()["seat"]} == {"White", "Black"}


async def test_a_casual_seek_stays_casual_and_open_to_guests(site):  # noqa: F811
    alice = await site.sign_in("alice")
    async with site.client() as http:
        posted = await site.write("POST", "/lobby/seeks", alice, json={"rated": False})
        assert posted.status_code == 201, posted.text
        entry, = (await http.get("/lobby/seeks")).json()
        assert entry["rated"] is False
        match = await http.post(f"/lobby/seeks/{posted.json()['seekId']}/accept", json={"accepter": str(uuid.uuid4())})
        assert match.status_code == 201, match.text
        assert (await http.get(f"/games/{match.json()['gameId']}")).json()["rated"] is False
