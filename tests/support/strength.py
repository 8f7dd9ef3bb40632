"""Rated results written through the store's own terminal write, as a room's ending writes them."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from playsite.store.base import GameEnding, GameWrite, ResultRow

FISCHER = {"Fischer": {"initialSeconds": 180, "incrementSeconds": 2}}


async def finish(store, white: str | None, black: str | None, result: int | None, *, rated: bool = True) -> str:
    """One ended game between two principals; `result` from White's side (None: aborted)."""
    game_id = str(uuid.uuid4())
    write = GameWrite(
        game_id=game_id, version=1, status="ended", origin="ladder" if rated else "challenge", durability="best_effort",
        rated=rated, snapshot={}, seats={"White": (b"w", white), "Black": (b"b", black)},
    )
    row = ResultRow(
        game_id=game_id, finished_at=datetime.now(timezone.utc), rated=rated, origin=write.origin,
        white_principal=white, black_principal=black, result=result,
        termination="checkmate" if result is not None else "aborted", time_control=FISCHER,
    )
    await store.finish_game(write, GameEnding(result=row, archive={}, outbox_key=game_id, outbox_payload={}))
    return game_id


async def play_results(store, white: str, black: str, *, wins: int = 0, draws: int = 0, losses: int = 0) -> None:
    """`wins`/`draws`/`losses` of White against Black, all rated."""
    for result, count in ((1, wins), (0, draws), (-1, losses)):
        for _ in range(count):
            await finish(store, white, black, result)
