"""Why the Bot API (its identity and lobby routes) said no: a `Refusal` named by its code.

The domain raises `BotApiRefusal(code, message)`; the HTTP status comes from one table,
so every path answers the same status for the same code.
"""

from __future__ import annotations

from playsite.http.errors import Refusal

REFUSAL_STATUS = {
    "invalid_request": 400,
    "invalid_guest_id": 400,
    "self_challenge": 400,
    "own_seek": 400,
    "registered_only": 403,
    "not_yours": 403,
    "secret_required": 403,
    "bot_not_found": 404,
    "challenge_not_found": 404,
    "seek_not_found": 404,
    "not_in_catalog": 404,
    "identity_taken": 409,
    "capacity": 409,
    "seek_taken": 409,
    "challenge_busy": 409,
    "guest_busy": 409,
    "too_many_challenges": 429,
    "too_many_seeks": 429,
}


class BotApiRefusal(Refusal):
    """A request the identity or lobby routes will not carry out; `code` is the Bot API error code."""

    def __init__(self, code: str, message: str):
        super().__init__(REFUSAL_STATUS[code], code, message)
