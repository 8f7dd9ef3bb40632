"""The successor's colours (service.md, Rematch opportunity rule 13: "a fresh independent 50/50
colour draw, and consecutive identical colours are valid"), on a real PostgreSQL, booted
in-process. The service draws with `secrets.randbelow(2)`; here that source answers what the
test says, so each outcome is seen to seat the two participants as it says, and nothing else
of the service is replaced."""

from __future__ import annotations

import types

import pytest

from playsite.rematch import service
from playsite.tokens import matches
from playsite.wire import BLACK, SEATS, WHITE
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.rematch import finished_game, get, rematched, server

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize(("drawn", "white_moves_to"), [(0, WHITE), (1, BLACK)], ids=["same-colours", "swapped"])
async def test_each_outcome_of_the_draw_seats_the_participants_as_it_says(migrated_url, monkeypatch, drawn, white_moves_to):
    draws = []

    def randbelow(n: int) -> int:
        draws.append(n)
        return drawn

    monkeypatch.setattr(service, "secrets", types.SimpleNamespace(randbelow=randbelow))
    black_moves_to = BLACK if white_moves_to == WHITE else WHITE
    async with server(migrated_url) as (services, client):
        game_id, tokens, principals = await finished_game(services)
        _, before, _ = await get(client, game_id, tokens[WHITE])
        assert "join" not in before and draws == [], "nothing is drawn before both consent"
        black_view = await rematched(client, game_id, tokens)
        _, white_view, _ = await get(client, game_id, tokens[WHITE])
        # a draw between two outcomes; more than one when the periodic scan, which retries a
        # commit still 'starting', read the source just before this commit landed (CI s65: its
        # own attempt then meets the unique successor and changes nothing)
        assert draws and set(draws) == {2}, draws
        assert (white_view["join"]["seat"], black_view["join"]["seat"]) == (white_moves_to, black_moves_to)

        successor = services.registry.get(black_view["nextGameId"])
        assert successor.game.seats[white_moves_to].principal == principals[WHITE]
        assert successor.game.seats[black_moves_to].principal == principals[BLACK]
        for view in (white_view, black_view):
            assert matches(view["join"]["token"], successor.setup.seat(view["join"]["seat"]).token_hash)
        assert sql(migrated_url, "SELECT white_moves_to FROM rematch_successors") == [(white_moves_to,)]
        stored = sql(migrated_url, "SELECT seat, principal FROM game_seats WHERE game_id = %s ORDER BY seat",
                     (successor.game_id,))
        assert dict(stored) == {white_moves_to: principals[WHITE], black_moves_to: principals[BLACK]}
