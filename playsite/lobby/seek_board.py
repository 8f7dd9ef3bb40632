"""The life of an open seek, shared by bots' seeks (`lobby.seeks`) and people's
(`lobby.people_seeks`): the creator holds a capability secret (only its SHA-256 is kept) to
poll and cancel; each poll keeps the seek alive, and one nobody polled for the board's
`ttl_s` lapses. Accepting is atomic:

    seek = board.claim(id, accepter)   # "claimed": hidden from the list, a second accept is refused
    ... create the game ...
    board.matched(seek, game_id)       # the creator's next poll reports the game
    board.release(seek)                # the game could not start: open again

A matched seek stays readable by its creator's poll for another `ttl_s`. No HTTP: a board
refuses with `Refused` and the Bot API's codes (bots/refusals.py), its messages its own.
"""

from __future__ import annotations

import abc
import enum
import secrets
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import trio

from playsite.refusals import Refused
from playsite.tokens import matches, new_token
from playsite.wire import TimeControl


class SeekState(enum.Enum):
    OPEN = "open"
    CLAIMED = "claimed"
    MATCHED = "matched"


class OpenSeek(Protocol):
    """What the lifecycle reads and moves of a board's seek."""

    @property
    def id(self) -> str: ...

    @property
    def principal(self) -> str:
        """Whose seek it is."""

    @property
    def secret_hash(self) -> bytes: ...

    seen_at: float
    state: SeekState
    game_id: str | None


Seek = TypeVar("Seek", bound=OpenSeek)
Creator = TypeVar("Creator")


class SeekLifecycle(abc.ABC, Generic[Seek, Creator]):
    """Open seeks by id: post, poll, cancel, claim, release, matched, expiry. A board sets the
    class attributes and says whose a new seek is (`principal_of` its creator)."""

    seek_type: Callable[..., Seek]
    """Made with id, creator, secret_hash, time_control, seen_at."""
    id_prefix: str
    per_creator: int
    """Open (or claimed) seeks one creator may hold."""
    too_many: str
    own_seek: str
    replaces_open = False
    """Whether a creator's new seek takes the place of its open ones (people's: the tab holding
    the old one may be gone, and nobody else can cancel it) instead of counting against
    `per_creator`; one being accepted at that moment stays and counts."""
    capacity: int | None = None
    """All open seeks together, when bounded."""
    full = ""
    """Why a post is refused at `capacity`."""

    def __init__(self, *, ttl_s: float):
        self.ttl_s = ttl_s
        self._seeks: dict[str, Seek] = {}

    @staticmethod
    @abc.abstractmethod
    def principal_of(creator: Creator) -> str:
        """Whose seek a new one of `creator`'s is (a principal): each board says."""

    def post(self, creator: Creator, time_control: TimeControl) -> tuple[Seek, str]:
        """A new open seek and its secret (shown once)."""
        self.expire()
        principal = self.principal_of(creator)
        if self.replaces_open:
            self.withdraw_all_of(principal)
        standing = [s for s in self._seeks.values() if s.principal == principal and s.state is not SeekState.MATCHED]
        if len(standing) >= self.per_creator:
            raise Refused("too_many_seeks", self.too_many)
        if self.capacity is not None and len(self._seeks) >= self.capacity:
            raise Refused("too_many_seeks", self.full)
        secret, secret_hash = new_token()
        seek = self.seek_type(
            id=f"{self.id_prefix}{secrets.token_hex(8)}",
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
            raise Refused("seek_taken", "this seek was already accepted")
        del self._seeks[seek.id]

    def claim(self, seek_id: str, accepter: str) -> Seek:
        """Take an open seek for `accepter` (a principal) while its game is created."""
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None:
            raise Refused("seek_not_found", "no such open seek")
        if seek.principal == accepter:
            raise Refused("own_seek", self.own_seek)
        if seek.state is not SeekState.OPEN:
            raise Refused("seek_taken", "someone else accepted this seek first")
        seek.state = SeekState.CLAIMED
        return seek

    def release(self, seek: Seek) -> None:
        if seek.state is SeekState.CLAIMED:
            seek.state = SeekState.OPEN

    def matched(self, seek: Seek, game_id: str) -> None:
        seek.state, seek.game_id = SeekState.MATCHED, game_id
        seek.seen_at = trio.current_time()

    def withdraw_all_of(self, principal: str) -> list[str]:
        """Drop `principal`'s open seeks (it has just sat down to a game: nobody may start
        another with it unseen); the ids dropped. A seek being accepted or matched stays."""
        gone = [s.id for s in self._seeks.values() if s.principal == principal and s.state is SeekState.OPEN]
        for seek_id in gone:
            del self._seeks[seek_id]
        return gone

    def _owned(self, seek_id: str, secret: str) -> Seek:
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None or not matches(secret, seek.secret_hash):
            raise Refused("seek_not_found", "no seek with that id and secret")
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
