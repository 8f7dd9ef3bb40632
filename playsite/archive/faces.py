"""The names the people of finished games go by now.

An archive record is immutable and cached forever, so it never carries a person's nickname: a
nickname changes, and a deleted account's must disappear. Its faces say `{"kind": "Human",
"name": null}` for every person. Where a page shows a finished game (the history list, the
replay), the names come from here, read at that moment: the results row's principals and the
accounts' current nicknames. Guests and deleted accounts stay unnamed; bots are named in the
record already.
"""

from __future__ import annotations

from collections.abc import Iterable

import psycopg

from playsite.ratings.queries import face_of, nicknames_of

Faces = dict[str, dict]
"""{"white": face, "black": face}."""


def current_faces(conn: psycopg.Connection, game_ids: Iterable[str]) -> dict[str, Faces]:
    """Game id -> the faces of its two seats now, for the games among `game_ids` that have a
    results row."""
    ids = sorted(set(game_ids))
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT game_id::text, white_principal, black_principal FROM game_results WHERE game_id::text = ANY(%s)",
        (ids,),
    ).fetchall()
    names = nicknames_of(conn, [principal for _, white, black in rows for principal in (white, black)])
    return {game_id: {"white": face_of(white, names), "black": face_of(black, names)} for game_id, white, black in rows}


def named(players: Faces | None, now: Faces | None) -> Faces | None:
    """The record's `players` with each unnamed person named as they are now, where they are."""
    if players is None or now is None:
        return players
    out = dict(players)
    for seat in ("white", "black"):
        face = players.get(seat)
        if face is not None and face.get("kind") == "Human" and face.get("name") is None and now[seat].get("name"):
            out[seat] = now[seat]
    return out
