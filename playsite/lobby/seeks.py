"""Public lobby seeks: standing offers a bot posts and anyone (bot or guest) may accept.

The creator holds a capability secret (only its SHA-256 is kept) to poll and cancel its
seek; each poll keeps the seek alive, and a seek nobody polled for `SEEK_TTL_S` is dropped.
Accepting is atomic in the same way as challenges:

    seek = board.claim(id, accepter)   # "claimed": hidden from the list, a second accept gets 409
    ... create the game ...
    board.matched(seek, game_id)       # the creator's next poll reports the game
    board.release(seek)                # refused at capacity: open again, nothing consumed

A matched seek stays readable by its creator's poll for another `SEEK_TTL_S`.
"""

from __future__ import annotations

import attrs

from playsite.bots.directory import BotAccount
from playsite.lobby.seek_board import SeekLifecycle, SeekState
from playsite.wire import TimeControl, encode_time_control

SEEK_TTL_S = 120
"""A bot seek lives about two minutes without a poll."""
MAX_OPEN_SEEKS_PER_BOT = 3


@attrs.define(eq=False)
class Seek:
    id: str
    creator: BotAccount
    secret_hash: bytes = attrs.field(repr=False)
    time_control: TimeControl
    seen_at: float
    """Last poll (or creation, or match): the seek lapses SEEK_TTL_S after it."""
    state: SeekState = SeekState.OPEN
    game_id: str | None = None

    @property
    def principal(self) -> str:
        return self.creator.principal


def encode_public_seek(seek: Seek) -> dict[str, object]:
    """What everyone may see: the offer and the creator's public face, never a secret."""
    face = seek.creator.face
    return {  # a person who takes a bot's seek plays a casual game
        "id": seek.id, "timeControl": encode_time_control(seek.time_control), "rated": False,
        "kind": face.kind, "name": face.name,
    }


class SeekBoard(SeekLifecycle[Seek, BotAccount]):
    """Bot seeks: the shared lifecycle with a bot's limit."""

    seek_type = Seek
    id_prefix = "seek-"
    per_creator = MAX_OPEN_SEEKS_PER_BOT
    too_many = f"at most {MAX_OPEN_SEEKS_PER_BOT} open seeks; cancel one or let it expire"
    own_seek = "a bot cannot accept its own seek"

    def __init__(self, *, ttl_s: float = SEEK_TTL_S):
        super().__init__(ttl_s=ttl_s)

    @staticmethod
    def principal_of(creator: BotAccount) -> str:
        return creator.principal
