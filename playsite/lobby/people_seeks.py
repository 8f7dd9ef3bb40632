"""Open seeks for people: a guest (or a signed-in person) offers a game with a time control,
anyone else sits down at it, and the game starts with colours drawn at random.

Ephemeral and process-local, like bot seeks and admission (service.md rule 11): an open
seek is an offer, not a record, and a restart forgets it (the creator's page sees its poll
answer 404 and can offer again). The creator holds a capability secret (only its SHA-256 is
kept) to poll and cancel; each poll keeps the seek alive, and one nobody polled for
`PEOPLE_SEEK_TTL_S` lapses. Once matched, the creator's poll carries the game and the
creator's seat token for another `PEOPLE_SEEK_TTL_S`, then the seek is forgotten.

Accepting is atomic as it is for bot seeks:

    seek = board.claim(id, accepter)      # "claimed": hidden from the list, a second accept is refused
    ... start the game ...
    board.matched(seek, game_id, seat, token)
    board.release(seek)                   # the game could not start: open again

No HTTP here: refusals are `PeopleSeekRefused(code, message)`, which the routes render.
"""

from __future__ import annotations

import enum
import secrets

import attrs
import trio

from playsite.tokens import matches, new_token
from playsite.wire import TimeControl, encode_time_control

PEOPLE_SEEK_TTL_S = 120
"""An open seek lives two minutes past its creator's last poll (the page polls every 2 s)."""
MAX_SEEKS_PER_PERSON = 1
"""One open seek a person: a second offer is refused until the first is cancelled or taken."""
MAX_OPEN_PEOPLE_SEEKS = 500
"""All people's open seeks together: a flood of guest ids costs bounded memory."""
SEEK_PREFIX = "people-"
"""People's seek ids start with it; bot seeks' with `seek-`, so one path serves both."""


class PeopleSeekRefused(Exception):
    """What a person asked of the seek board that it will not do (`code`: a Bot API error code)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class State(enum.Enum):
    OPEN = "open"
    CLAIMED = "claimed"
    MATCHED = "matched"


@attrs.define(eq=False)
class PeopleSeek:
    id: str
    creator: str
    """The creator's principal: `guest:<uuid>` or `user:<uuid>`."""
    secret_hash: bytes = attrs.field(repr=False)
    time_control: TimeControl
    seen_at: float
    state: State = State.OPEN
    game_id: str | None = None
    seat: str | None = None
    """The creator's seat in the game, once matched."""
    token: str | None = attrs.field(default=None, repr=False)
    """The creator's seat token, once matched (handed over by the secret-gated poll)."""


def encode_public_people_seek(seek: PeopleSeek) -> dict:
    """The list's entry: the offer and that a person makes it, never who (people are anonymous here)."""
    return {"id": seek.id, "timeControl": encode_time_control(seek.time_control), "kind": "Human", "name": None}


def encode_status(seek: PeopleSeek) -> dict:
    """The creator's poll: `matched`, and once matched the game, the creator's seat token and seat."""
    return {"matched": seek.state is State.MATCHED, "gameId": seek.game_id, "token": seek.token, "seat": seek.seat}


def is_people_seek_id(seek_id: str) -> bool:
    return seek_id.startswith(SEEK_PREFIX)


class PeopleSeekBoard:
    def __init__(self, *, ttl_s: float = PEOPLE_SEEK_TTL_S, capacity: int = MAX_OPEN_PEOPLE_SEEKS):
        self.ttl_s = ttl_s
        self.capacity = capacity
        self._seeks: dict[str, PeopleSeek] = {}

    def post(self, creator: str, time_control: TimeControl) -> tuple[PeopleSeek, str]:
        """A new open seek and its secret (shown once)."""
        self.expire()
        standing = [s for s in self._seeks.values() if s.creator == creator and s.state is not State.MATCHED]
        if len(standing) >= MAX_SEEKS_PER_PERSON:
            raise PeopleSeekRefused("too_many_seeks", "you already have an open seek; cancel it or wait for a taker")
        if len(self._seeks) >= self.capacity:
            raise PeopleSeekRefused("too_many_seeks", "the lobby is full of open seeks; accept one or try later")
        secret, secret_hash = new_token()
        seek = PeopleSeek(
            id=f"{SEEK_PREFIX}{secrets.token_hex(8)}",
            creator=creator,
            secret_hash=secret_hash,
            time_control=time_control,
            seen_at=trio.current_time(),
        )
        self._seeks[seek.id] = seek
        return seek, secret

    def open_seeks(self) -> list[PeopleSeek]:
        self.expire()
        return [s for s in self._seeks.values() if s.state is State.OPEN]

    def poll(self, seek_id: str, secret: str) -> PeopleSeek:
        """The creator's poll: keeps the seek alive and reports its state."""
        seek = self._owned(seek_id, secret)
        seek.seen_at = trio.current_time()
        return seek

    def cancel(self, seek_id: str, secret: str) -> None:
        seek = self._owned(seek_id, secret)
        if seek.state is not State.OPEN:
            raise PeopleSeekRefused("seek_taken", "this seek was already accepted")
        del self._seeks[seek.id]

    def claim(self, seek_id: str, accepter: str) -> PeopleSeek:
        """Take an open seek for `accepter` (a principal) while its game starts."""
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None:
            raise PeopleSeekRefused("seek_not_found", "no such open seek")
        if seek.creator == accepter:
            raise PeopleSeekRefused("own_seek", "this is your own seek: wait for someone to take it, or cancel it")
        if seek.state is not State.OPEN:
            raise PeopleSeekRefused("seek_taken", "someone else accepted this seek first")
        seek.state = State.CLAIMED
        return seek

    def release(self, seek: PeopleSeek) -> None:
        """Open again (its game did not start), with a full lease: the creator was waiting."""
        if seek.state is State.CLAIMED:
            seek.state = State.OPEN
            seek.seen_at = trio.current_time()

    def matched(self, seek: PeopleSeek, game_id: str, creator_seat: str, creator_token: str) -> None:
        seek.state, seek.game_id, seek.seat, seek.token = State.MATCHED, game_id, creator_seat, creator_token
        seek.seen_at = trio.current_time()

    def _owned(self, seek_id: str, secret: str) -> PeopleSeek:
        self.expire()
        seek = self._seeks.get(seek_id)
        if seek is None or not matches(secret, seek.secret_hash):
            raise PeopleSeekRefused("seek_not_found", "no seek with that id and secret")
        return seek

    def expire(self) -> int:
        """Drop seeks (open or matched) whose creator stopped polling; a claimed one finishes first."""
        now = trio.current_time()
        lapsed = [s.id for s in self._seeks.values() if s.state is not State.CLAIMED and now - s.seen_at >= self.ttl_s]
        for seek_id in lapsed:
            del self._seeks[seek_id]
        return len(lapsed)

    def __len__(self) -> int:
        return len(self._seeks)
