"""Every time control is inherited exactly (service.md, "All variants must be preserved without
lossy conversion", and rule 13: the successor "copies the root game's time control"), on a real
PostgreSQL, booted in-process: a game of each variant is rematched, and the settings its
participants read, the successor's room and the successor's stored first version all carry
the source's time control as it was."""

from __future__ import annotations

import pytest

from playsite.wire import Fischer, PerMove, SuddenDeath, Unlimited
from tests.support.database import migrated_url, sql  # noqa: F401 (fixture)
from tests.support.rematch import finished_game, rematched, server

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize(
    ("time_control", "on_the_wire"),
    [
        (Unlimited(), {"Unlimited": {}}),
        (SuddenDeath(240), {"SuddenDeath": {"initialSeconds": 240}}),
        (PerMove(45), {"PerMove": {"secondsPerMove": 45}}),
        (Fischer(90, 0), {"Fischer": {"initialSeconds": 90, "incrementSeconds": 0}}),
    ],
    ids=["Unlimited", "SuddenDeath", "PerMove", "Fischer"],
)
async def test_the_successor_has_its_sources_time_control(migrated_url, time_control, on_the_wire):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services, time_control=time_control)
        assert services.registry.get(game_id).setup.time_control == time_control
        matched = await rematched(client, game_id, tokens)
        assert matched["settings"] == {"timeControl": on_the_wire, "rated": False, "mode": "classic"}
        successor = services.registry.get(matched["nextGameId"])
        assert successor.setup.time_control == time_control
        stored = sql(migrated_url, "SELECT snapshot -> 'setup' -> 'timeControl' FROM games WHERE id = %s",
                     (successor.game_id,))
        assert stored == [(on_the_wire,)]
