"""GET /games/{id}/ratings, what the play page shows beside each name: the rating book's
answer for a principal (an account's or a bot's rating, the starting values without a row, none
for a guest), and the route over a real server (guests' seats and a server without a database
have none; a game not live here is not found)."""

from __future__ import annotations

import uuid

import httpx

from playsite.ratings.book import DEFAULT, Rating, RatingBook
from tests.support.documented import Documented
from tests.support.errors import assert_error


def test_the_book_answers_for_bots_and_accounts_and_never_for_guests():
    book = RatingBook()
    account, fresh, other = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    # as the refresh reads them: every registered bot and account, the new ones at the start
    book.replace({"acme/star": Rating(1700.0, 60.0), "acme/moon": DEFAULT},
                 {account: Rating(1612.5, 200.0), fresh: DEFAULT})
    assert book.rating_of_principal("bot:acme/star") == Rating(1700.0, 60.0)
    assert book.rating_of_principal(f"user:{account}") == Rating(1612.5, 200.0)
    assert book.rating_of_principal(f"user:{account}").provisional
    assert book.rating_of_principal("bot:acme/moon") == DEFAULT  # registered, no rated game yet
    assert book.rating_of_principal(f"user:{fresh}") == DEFAULT
    assert book.rating_of_principal("bot:anon/quick-1a2b3c4d") is None  # an anonymous bot: never rated
    assert book.rating_of_principal(f"user:{other}") == DEFAULT  # signed up since the book's last read
    assert book.rating_of_principal("bot:acme/new") == DEFAULT  # registered since
    assert book.rating_of_principal(f"guest:{other}") is None
    assert book.rating_of_principal(None) is None
    book.replace({})  # a refresh of the bots alone keeps the accounts
    assert book.rating_of_principal(f"user:{account}") == Rating(1612.5, 200.0)


async def test_the_route_has_none_for_guests_or_without_a_database(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    documented = Documented()
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        game = (await http.post("/games", json={})).json()
        answer = await http.get(f"/games/{game['gameId']}/ratings")
        documented.check_http("get", "/games/{id}/ratings", answer)
        assert answer.json() == {"gameId": game["gameId"], "white": None, "black": None}
        assert answer.headers["cache-control"] == "no-cache"
        missing = await http.get(f"/games/{uuid.uuid4()}/ratings")
        assert_error(missing, 404, "game_not_found")
        documented.check_http("get", "/games/{id}/ratings", missing)
