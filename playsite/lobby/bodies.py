"""Reading the fields of identity and lobby request bodies.

Each reader takes the parsed JSON object and returns a checked value or raises a
BotApiRefusal naming the field. Unknown fields are ignored, as the anchor's decoders do, so
a bot that sends extra keys keeps working.
"""

from __future__ import annotations

import re

from playsite.bots.refusals import BotApiRefusal
from playsite.wire import SEATS, TimeControl, WireError, decode_time_control

CANONICAL_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def required_string(body: dict, field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise BotApiRefusal("invalid_request", f"{field} is required and must be a non-empty string")
    return value


def time_control(body: dict, default: TimeControl | None) -> TimeControl:
    """`timeControl` from the body; `default` when absent (None: the field is mandatory)."""
    if body.get("timeControl") is None:
        if default is None:
            raise BotApiRefusal("invalid_request", "timeControl is required")
        return default
    try:
        return decode_time_control(body["timeControl"])
    except WireError as error:
        raise BotApiRefusal("invalid_request", f"timeControl: {error.reason}") from None


def guest_principal(body: dict) -> str:
    """`guestId` (canonical UUID syntax) as the principal 'guest:<uuid>'."""
    value = body.get("guestId")
    if not isinstance(value, str) or not CANONICAL_UUID.fullmatch(value):
        raise BotApiRefusal("invalid_guest_id", "guestId must be a UUID (8-4-4-4-12 hexadecimal digits)")
    return f"guest:{value.lower()}"


def optional_side(body: dict, field: str) -> str | None:
    value = body.get(field)
    if value is None:
        return None
    if value not in SEATS:
        raise BotApiRefusal("invalid_request", f"{field} must be \"White\" or \"Black\"")
    return value
