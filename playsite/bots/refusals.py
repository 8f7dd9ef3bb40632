"""The Bot API's refusal codes and the HTTP status each is answered with.

The domains behind the Bot API (bot identities, the lobby) refuse with
`playsite.refusals.Refused(code, message)` and choose no status; the route families that
answer for them (`identity_routes`, `lobby_routes`) share this one table
(`RouteFamily(..., statuses=BOT_API_STATUSES)`), so every path answers the same status for the
same code. Imports nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

BOT_API_STATUSES: Mapping[str, int] = {
    "invalid_request": 400,
    "invalid_guest_id": 400,
    "self_challenge": 400,
    "own_seek": 400,
    "team_reserved": 400,
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
