"""Creating a human-versus-human game: both seat capabilities go to the creator.

Like a friend link: the creator keeps one seat's token and passes the other on. Tokens
are returned once and kept only as digests. A creator may also name who sits in each seat
(the ecosystem's `{white, black}` guest ids): the seat is then promised to that guest, and
its token alone seats them.
"""

from __future__ import annotations

import uuid

import attrs

from playsite.rooms.admission import Purpose
from playsite.rooms.model import RoomSetup, SeatSetup
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.tokens import new_token
from playsite.wire import BLACK, SEATS, WHITE, PublicFace, Seat, TimeControl


@attrs.frozen
class CreatedGame:
    room: Room
    tokens: dict[Seat, str]
    """Seat -> the one and only copy of its token."""


def human_seat(principal: str | None = None) -> tuple[str, SeatSetup]:
    """A person's seat and the one copy of its token (kept only as a digest in the seat)."""
    token, token_digest = new_token()
    return token, SeatSetup(token_hash=token_digest, face=PublicFace(kind="Human", name=None), principal=principal)


async def create_human_game(
    registry: Registry,
    time_control: TimeControl,
    *,
    rated: bool,
    seed_window_s: float,
    durability: str,
    sitters: dict[Seat, str] | None = None,
) -> CreatedGame:
    """`sitters`: seat -> the principal promised that seat ('guest:<uuid>'), or None when
    whoever first redeems a token sits there."""
    tokens: dict[Seat, str] = {}
    seats: dict[Seat, SeatSetup] = {}
    for seat in SEATS:
        tokens[seat], seats[seat] = human_seat((sitters or {}).get(seat))
    setup = RoomSetup(
        game_id=str(uuid.uuid4()),
        time_control=time_control,
        white=seats[WHITE],
        black=seats[BLACK],
        rated=rated,
        origin="friend",
        await_joins=True,
        seed_window_s=seed_window_s,
        durability=durability,
    )
    room = await registry.create(setup, Purpose.GENERAL, participants=())
    return CreatedGame(room=room, tokens=tokens)
