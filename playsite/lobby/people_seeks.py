"""Open seeks for people: a guest (or a signed-in person) offers a game with a time control,
anyone else sits down at it, and the game starts with colours drawn at random. A signed-in
person's seek may be rated: then only another signed-in person may take it.

Ephemeral and process-local, like bot seeks and admission (service.md rule 11): an open
seek is an offer, not a record, and a restart forgets it (the creator's page sees its poll
answer 404 and can offer again). The creator holds a capability secret (only its SHA-256 is
kept) to poll and cancel; each poll keeps the seek alive, and one nobody polled for
`PEOPLE_SEEK_TTL_S` lapses. Once matched, the creator's poll carries the game and the
creator's seat token for another `PEOPLE_SEEK_TTL_S`, then the seek is forgotten.

Accepting is atomic as it is for bot seeks:

    seek = board.claim(id, accepter)      # "claimed": hidden from the list, a second accept is refused
    ... start the game ...
    board.matched_with_seat(seek, game_id, seat, token)
    board.release(seek)                   # the game could not start: open again

No HTTP here: the board refuses with `Refused(code, message)`, the Bot API's codes.
"""

from __future__ import annotations

import attrs
import trio

from playsite.lobby.seek_board import SeekLifecycle, SeekState
from playsite.wire import TimeControl, encode_time_control

PEOPLE_SEEK_TTL_S = 120
"""An open seek lives two minutes past its creator's last poll (the page polls every 2 s)."""
MAX_SEEKS_PER_PERSON = 1
"""One open seek a person: a new offer takes the place of the open one (whose poll then answers
404), and is refused only while the old one is being accepted."""
MAX_OPEN_PEOPLE_SEEKS = 500
"""All people's open seeks together: a flood of guest ids costs bounded memory."""
SEEK_PREFIX = "people-"
"""People's seek ids start with it; bot seeks' with `seek-`, so one path serves both."""


State = SeekState
"""A people's seek goes through the same states as a bot's."""


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
    name: str | None = None
    """The creator's nickname when an account with one posted it (shown in the list); a
    guest's seek names nobody."""
    rated: bool = False
    """A rated seek: posted by an account, taken only by another account (the game is rated)."""

    @property
    def principal(self) -> str:
        return self.creator


def encode_public_people_seek(seek: PeopleSeek) -> dict[str, object]:
    """The list's entry: the offer, whether it is rated, that a person makes it, and their
    nickname when they are signed in (as the game's page will name them; a guest stays unnamed)."""
    return {
        "id": seek.id, "timeControl": encode_time_control(seek.time_control), "rated": seek.rated,
        "kind": "Human", "name": seek.name,
    }


def encode_status(seek: PeopleSeek) -> dict[str, object]:
    """The creator's poll: `matched`, and once matched the game, the creator's seat token and seat."""
    return {"matched": seek.state is State.MATCHED, "gameId": seek.game_id, "token": seek.token, "seat": seek.seat}


def is_people_seek_id(seek_id: str) -> bool:
    return seek_id.startswith(SEEK_PREFIX)


class PeopleSeekBoard(SeekLifecycle[PeopleSeek, str]):
    """The seeks' lifecycle (`SeekLifecycle`), with a person's limits and messages, and the
    creator's seat token kept for the secret-gated poll."""

    seek_type = PeopleSeek
    id_prefix = SEEK_PREFIX
    per_creator = MAX_SEEKS_PER_PERSON
    replaces_open = True
    too_many = "your seek is being accepted at this moment: its game is about to start"
    own_seek = "this is your own seek: wait for someone to take it, or cancel it"
    full = "the lobby is full of open seeks; accept one or try later"

    def __init__(self, *, ttl_s: float = PEOPLE_SEEK_TTL_S, capacity: int = MAX_OPEN_PEOPLE_SEEKS):
        super().__init__(ttl_s=ttl_s)
        self.capacity = capacity

    @staticmethod
    def principal_of(creator: str) -> str:
        return creator  # a person's seek names its creator by principal already

    def release(self, seek: PeopleSeek) -> None:
        """Open again (its game did not start), with a full lease: the creator was waiting."""
        if seek.state is State.CLAIMED:
            super().release(seek)
            seek.seen_at = trio.current_time()

    def matched_with_seat(self, seek: PeopleSeek, game_id: str, creator_seat: str, creator_token: str) -> None:
        """Matched, with the creator's seat and seat token kept for its poll."""
        self.matched(seek, game_id)
        seek.seat, seek.token = creator_seat, creator_token
