"""Direct bot-to-bot challenges, held in this process's memory.

A challenge is pending until its target accepts or declines it, or it expires. Creating one
tells the target (`ChallengeReceived`); a decline or an expiry tells the challenger
(`ChallengeDeclined`, with its `reason`). Accepting is two steps around the game creation:

    challenge = book.claim(target, id)   # now "accepting": a second accept or decline waits its turn
    ... create the game (may be refused at capacity) ...
    book.settle(challenge)               # created: gone from the book
    book.release(challenge)              # refused: pending again, nothing consumed

Colours are fixed, as in the anchor: the challenger plays White, the target Black.
"""

from __future__ import annotations

import secrets
from typing import Literal

import attrs
import trio

from playsite.bots.directory import BotAccount
from playsite.bots.events import BotEvents
from playsite.refusals import Refused
from playsite.wire import TimeControl, encode_time_control

CHALLENGE_TTL_S = 300
"""An unanswered challenge lapses after five minutes (the anchor documents ~5)."""
MAX_PENDING_PER_CHALLENGER = 10

DeclineReason = Literal["declined", "expired", "cancelled"]
"""Why a challenge went without a game, as ChallengeDeclined says: its target declined it (a house
bot at capacity too), nobody answered it within CHALLENGE_TTL_S, or its challenger no longer exists."""


@attrs.define(eq=False)
class Challenge:
    id: str
    challenger: BotAccount
    target: BotAccount
    time_control: TimeControl
    expires_at: float
    accepting: bool = False
    """Claimed by an accept whose game creation is under way."""


def bot_principal(account: BotAccount) -> dict:
    return {"Bot": {"team": account.team, "name": account.name}}


def encode_challenge(challenge: Challenge) -> dict:
    return {
        "id": challenge.id,
        "challenger": bot_principal(challenge.challenger),
        "target": bot_principal(challenge.target),
        "timeControl": encode_time_control(challenge.time_control),
    }


class ChallengeBook:
    def __init__(self, events: BotEvents, *, ttl_s: float = CHALLENGE_TTL_S):
        self.events = events
        self.ttl_s = ttl_s
        self._pending: dict[str, Challenge] = {}

    def create(self, challenger: BotAccount, target: BotAccount, time_control: TimeControl) -> Challenge:
        self.expire()
        if challenger.id == target.id:
            raise Refused("self_challenge", "a bot cannot challenge itself")
        if sum(1 for c in self._pending.values() if c.challenger.id == challenger.id) >= MAX_PENDING_PER_CHALLENGER:
            raise Refused(
                "too_many_challenges",
                f"at most {MAX_PENDING_PER_CHALLENGER} pending challenges; wait for answers or expiry",
            )
        challenge = Challenge(
            id=f"challenge-{secrets.token_hex(8)}",
            challenger=challenger,
            target=target,
            time_control=time_control,
            expires_at=trio.current_time() + self.ttl_s,
        )
        self._pending[challenge.id] = challenge
        received = {"id": challenge.id, "challenger": bot_principal(challenger)}
        received["timeControl"] = encode_time_control(time_control)
        self.events.publish(target.id, {"ChallengeReceived": received})
        return challenge

    def involving(self, account: BotAccount) -> tuple[list[Challenge], list[Challenge]]:
        """(addressed to `account`, created by `account`), oldest first."""
        self.expire()
        pending = list(self._pending.values())
        return (
            [c for c in pending if c.target.id == account.id],
            [c for c in pending if c.challenger.id == account.id],
        )

    def claim(self, target: BotAccount, challenge_id: str) -> Challenge:
        challenge = self._answerable(target, challenge_id)
        challenge.accepting = True
        return challenge

    def release(self, challenge: Challenge) -> None:
        challenge.accepting = False

    def settle(self, challenge: Challenge) -> None:
        self._pending.pop(challenge.id, None)

    def decline(self, target: BotAccount, challenge_id: str) -> Challenge:
        challenge = self._answerable(target, challenge_id)
        self.drop(challenge, "declined")
        return challenge

    def _answerable(self, target: BotAccount, challenge_id: str) -> Challenge:
        self.expire()
        challenge = self._pending.get(challenge_id)
        if challenge is None or target.id not in (challenge.target.id, challenge.challenger.id):
            raise Refused("challenge_not_found", "no pending challenge with that id addressed to you")
        if challenge.target.id != target.id:
            raise Refused("not_yours", "only the challenged bot may accept or decline")
        if challenge.accepting:
            raise Refused("challenge_busy", "this challenge is being accepted right now")
        return challenge

    def drop(self, challenge: Challenge, reason: DeclineReason) -> None:
        """Gone without a game: the challenger hears ChallengeDeclined, and why."""
        self._pending.pop(challenge.id, None)
        self.events.publish(challenge.challenger.id, {"ChallengeDeclined": {"id": challenge.id, "reason": reason}})

    def expire(self) -> int:
        """Drop every lapsed challenge (one being accepted finishes first); returns how many."""
        now = trio.current_time()
        lapsed = [c for c in self._pending.values() if c.expires_at <= now and not c.accepting]
        for challenge in lapsed:
            self.drop(challenge, "expired")
        return len(lapsed)

    def __len__(self) -> int:
        return len(self._pending)
