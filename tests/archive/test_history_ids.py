"""GET /games/{id}/history takes game ids only as the service writes them."""

from __future__ import annotations

import uuid

import pytest

from tests.support.app import booted, test_client


@pytest.mark.parametrize(
    "path_id",
    [
        "urn:uuid:{id}",
        "{{{id}}}",
        "{hex}",
        "{misplaced}",
        "not-a-game",
    ],
)
async def test_a_non_canonical_id_is_404_game_not_found(path_id):
    game_id = str(uuid.uuid4())
    misplaced = game_id[:7] + "-" + game_id[7] + game_id[9:]  # the first hyphen one place early
    raw = path_id.format(id=game_id, hex=game_id.replace("-", ""), misplaced=misplaced)
    if raw != "not-a-game":
        uuid.UUID(raw)  # Python's parser takes every one of these; PostgreSQL refuses some
    async with booted() as services:
        response = await test_client(services).get(f"/games/{raw}/history")
    assert response.status_code == 404
    assert (await response.get_json())["error"]["code"] == "game_not_found"


async def test_an_unknown_canonical_id_is_404_and_not_cached():
    async with booted() as services:
        response = await test_client(services).get(f"/games/{uuid.uuid4()}/history")
    assert response.status_code == 404 and response.headers["Cache-Control"] == "no-cache"
