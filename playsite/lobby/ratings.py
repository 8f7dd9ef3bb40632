"""The rating a bot shows in the ladder state and the catalog.

There is no rating batch yet, so every bot shows Glickman's starting values. When the
ratings package lands, `rating_of` reads its projection instead; callers stay unchanged.
"""

from __future__ import annotations

import attrs

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
PROVISIONAL_RD = 110.0
"""Above this deviation a rating has not converged: shown, flagged provisional."""


@attrs.frozen
class Rating:
    rating: float
    rd: float

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def rating_of(bot_id: str) -> Rating:
    return Rating(DEFAULT_RATING, DEFAULT_RD)
