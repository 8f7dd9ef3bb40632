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
