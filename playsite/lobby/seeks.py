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

import enum
import secrets

import attrs
import trio

from playsite.bots.accounts import BotAccount
from playsite.bots.refusals import BotApiRefusal
from playsite.tokens import matches, new_token
from playsite.wire import TimeControl, encode_time_control

SEEK_TTL_S = 120
"""A bot seek lives about two minutes without a poll."""
MAX_OPEN_SEEKS_PER_BOT = 3


class SeekState(enum.Enum):
    OPEN = "open"
    CLAIMED = "claimed"
    MATCHED = "matched"


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


def encode_public_seek(seek: Seek) -> dict:
    """What everyone may see: the offer and the creator's public face, never a secret."""
    face = seek.creator.face
    return {"id": seek.id, "timeControl": encode_time_control(seek.time_control), "kind": face.kind, "name": face.name}


class SeekBoard:
    def __init__(self, *, ttl_s: float = SEEK_TTL_S):
        self.ttl_s = ttl_s
        self._seeks: dict[str, Seek] = {}

    def post(self, creator: BotAccount, time_control: TimeControl) -> tuple[Seek, str]:
        """A new open seek and its secret (shown once)."""
        self.expire()
        standing = [s for s in self._seeks.values() if s.creator.id == creator.id and s.state is not SeekState.MATCHED]
        if len(standing) >= MAX_OPEN_SEEKS_PER_BOT:
            raise BotApiRefusal(
                "too_many_seeks", f"at most {MAX_OPEN_SEEKS_PER_BOT} open seeks; cancel one or let it expire"
            )
        secret, secret_hash = new_token()
        seek = Seek(
            id=f"seek-{secrets.token_hex(8)}",
            creator=creator,
            secret_hash=secret_hash,
            time_control=time_control,
            seen_at=trio.current_time(),
        )
        self._seeks[seek.id] = seek
        return seek, secret

    def open_seeks(self) -> list[Seek]:
        self.expire()
        return [s for s in self._seeks.values() if s.state is SeekState.OPEN]

    def poll(self, seek_id: str, secret: str) -> Seek:
        """The creator's poll: keeps the seek alive and reports its state."""
        seek = self._owned(seek_id, secret)
        seek.seen_at = trio.current_time()
        return seek

    def cancel(self, seek_id: str, secret: str) -> None:
        seek = self._owned(seek_id, secret)
        if seek.state is not SeekState.OPEN:
            raise BotApiRefusal("seek_taken", "this seek was already accepted")
        del self._seeks[seek.id]

    def claim(self, seek_id: str, accepter: str) -> Seek:
        """Take an open seek for `accepter` (a principal) while its game is created."""
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None:
            raise BotApiRefusal("seek_not_found", "no such open seek")
        if seek.creator.principal == accepter:
            raise BotApiRefusal("own_seek", "a bot cannot accept its own seek")
        if seek.state is not SeekState.OPEN:
            raise BotApiRefusal("seek_taken", "someone else accepted this seek first")
        seek.state = SeekState.CLAIMED
        return seek

    def release(self, seek: Seek) -> None:
        if seek.state is SeekState.CLAIMED:
            seek.state = SeekState.OPEN

    def matched(self, seek: Seek, game_id: str) -> None:
        seek.state, seek.game_id = SeekState.MATCHED, game_id
        seek.seen_at = trio.current_time()

    def _owned(self, seek_id: str, secret: str) -> Seek:
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None or not matches(secret, seek.secret_hash):
            raise BotApiRefusal("seek_not_found", "no seek with that id and secret")
        return seek

    def expire(self) -> int:
        """Drop seeks (open or matched) whose creator stopped polling; a claimed one finishes first."""
        now = trio.current_time()
        lapsed = [
            s.id for s in self._seeks.values() if s.state is not SeekState.CLAIMED and now - s.seen_at >= self.ttl_s
        ]
        for seek_id in lapsed:
            del self._seeks[seek_id]
        return len(lapsed)

    def __len__(self) -> int:
        return len(self._seeks)

