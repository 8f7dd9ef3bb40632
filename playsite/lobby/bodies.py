"""Reading the fields of identity and lobby request bodies.

Each reader takes the parsed JSON object and returns a checked value or raises `Refused`
naming the field. Unknown fields are ignored, as the anchor's decoders do, so
a bot that sends extra keys keeps working.
"""

from __future__ import annotations

from playsite import principals
from playsite.principals import canonical_uuid
from playsite.refusals import Refused
from playsite.wire import SEATS, TimeControl, WireError, decode_time_control


def required_string(body: dict, field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise Refused("invalid_request", f"{field} is required and must be a non-empty string")
    return value


def time_control(body: dict, default: TimeControl | None) -> TimeControl:
    """`timeControl` from the body; `default` when absent (None: the field is mandatory)."""
    if body.get("timeControl") is None:
        if default is None:
            raise Refused("invalid_request", "timeControl is required")
        return default
    try:
        return decode_time_control(body["timeControl"])
    except WireError as error:
        raise Refused("invalid_request", f"timeControl: {error.reason}") from None


def guest_principal(body: dict, field: str = "guestId") -> str:
    """The body's `field`, a guest id (canonical UUID syntax), as the principal 'guest:<uuid>'."""
    guest_id = canonical_uuid(body.get(field))
    if guest_id is None:
        raise Refused("invalid_guest_id", f"give your guest id as {field}: a UUID (8-4-4-4-12 hexadecimal digits)")
    return principals.guest(guest_id)


def optional_side(body: dict, field: str) -> str | None:
    value = body.get(field)
    if value is None:
        return None
    if value not in SEATS:
        raise Refused("invalid_request", f"{field} must be \"White\" or \"Black\"")
    return value


def optional_flag(body: dict, field: str) -> bool:
    """`field` as true or false; absent or null is false."""
    value = body.get(field)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise Refused("invalid_request", f"{field} must be true or false")
    return value
