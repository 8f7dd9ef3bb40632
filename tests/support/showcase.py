"""The showcase's durable records, changed as a test needs them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import psycopg


def created_earlier(url: str, game_id: str, seconds: float) -> None:
    """As if the game had been created `seconds` earlier (the server was down that long)."""
    with psycopg.connect(url) as conn:
        snapshot = conn.execute("SELECT snapshot FROM games WHERE id = %s", (game_id,)).fetchone()[0]
        created = datetime.fromisoformat(snapshot["setup"]["createdAt"].replace("Z", "+00:00"))
        stamp = (created - timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        conn.execute(
            "UPDATE games SET snapshot = jsonb_set(snapshot, '{setup,createdAt}', %s::jsonb) WHERE id = %s",
            (json.dumps(stamp), game_id),
        )
