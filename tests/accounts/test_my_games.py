"""`GET /auth/me/games`: the signed-in account's own finished games, in a guest's pages
(`/players/{guestId}/games`), for the history page's "Your games"."""

from __future__ import annotations

import uuid

import pytest

from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.ratings import History, query
from tests.support.sign_in import site  # noqa: F401 (fixture: a real server, provider and database)

pytestmark = pytest.mark.postgres


async def test_a_signed_in_person_pages_through_their_own_games_only(site):  # noqa: F811
    session = await site.sign_in("erin")
    nickname = (await site.me(session)).json()["nickname"]
    [(account_id,)] = query(site.database_url, "SELECT id FROM accounts WHERE nickname = %s", (nickname,))
    me, other_guest = f"user:{account_id}", f"guest:{uuid.uuid4()}"
    history = History(site.database_url)
    clock = {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}
    mine = [history.add(None, None, result, principals=players, time_control=clock)
            for result, players in [(1, (me, "bot:red/ant")), (-1, (me, other_guest)), (1, (other_guest, me))] * 8]
    history.add(None, None, 1, principals=(other_guest, "bot:red/ant"), time_control=clock)  # not theirs
    cookie = {"Cookie": f"access_token={session}"}
    async with site.client() as http:
        first = await http.get("/auth/me/games", headers=cookie)
        assert first.status_code == 200, first.text
        assert "no-store" in first.headers["Cache-Control"], "one person's list, never cached for another"
        page = first.json()
        assert page["hasMore"] is True and len(page["games"]) == 20
        assert [game["gameId"] for game in page["games"]] == [str(game) for game in reversed(mine)][:20]
        newest = page["games"][0]
        assert newest["seat"] == "Black" and newest["result"] == "loss" and newest["opponent"]["kind"] == "Human"
        rest = (await http.get("/auth/me/games", params={"before": page["games"][-1]["finishedAt"]}, headers=cookie)).json()
        assert rest["hasMore"] is False and [game["gameId"] for game in rest["games"]] == [str(game) for game in reversed(mine)][20:]
        wins = (await http.get("/auth/me/games", params={"result": "win"}, headers=cookie)).json()["games"]
        assert len(wins) == 8 and all(game["result"] == "win" and game["opponent"]["kind"] == "Bot" for game in wins)
        assert (await http.get("/auth/me/games")).status_code == 401, "no session, no list"
        bad = await http.get("/auth/me/games", params={"before": "yesterday"}, headers=cookie)
        assert bad.status_code == 400


async def test_the_guests_an_account_claimed_are_in_its_own_list(site):  # noqa: F811
    """Once a browser's guest id is linked to the account (`POST /auth/me/guests`), its games are
    the account's own in "Your games", in one list, newest first; a game between the account and
    a guest it then claimed has no side to tell (as a game against oneself) and leaves the list;
    the public profile still counts the account's own games only."""
    session = await site.sign_in("fern")
    nickname = (await site.me(session)).json()["nickname"]
    [(account_id,)] = query(site.database_url, "SELECT id FROM accounts WHERE nickname = %s", (nickname,))
    me, browser, stranger = f"user:{account_id}", str(uuid.uuid4()), f"guest:{uuid.uuid4()}"
    history = History(site.database_url)
    clock = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}
    as_guest = history.add(None, None, 1, principals=(f"guest:{browser}", "bot:red/ant"), time_control=clock)
    signed_in = history.add(None, None, 1, principals=(stranger, me), time_control=clock)  # a loss
    against_itself = history.add(None, None, 1, principals=(me, f"guest:{browser}"), time_control=clock)
    cookie = {"Cookie": f"access_token={session}"}
    async with site.client() as http:
        read = await http.get("/auth/me/games", headers=cookie)
        assert read.status_code == 200, read.text
        before = read.json()["games"]
        assert [game["gameId"] for game in before] == [str(against_itself), str(signed_in)], "not yet the guest's"
        claimed = await site.write("POST", "/auth/me/guests", session, json={"guestId": browser})
        assert claimed.status_code == 200, claimed.text
        after = (await http.get("/auth/me/games", headers=cookie)).json()
        assert [game["gameId"] for game in after["games"]] == [str(signed_in), str(as_guest)], after
        assert after["games"][1]["seat"] == "White" and after["games"][1]["result"] == "win"  # from the guest's side
        losses = (await http.get("/auth/me/games", params={"result": "loss"}, headers=cookie)).json()["games"]
        assert [game["gameId"] for game in losses] == [str(signed_in)]
        profile = (await http.get(f"/players/{nickname}")).json()
        assert [game["gameId"] for game in profile["recent"]] == [str(against_itself), str(signed_in)], "the profile: its own"
