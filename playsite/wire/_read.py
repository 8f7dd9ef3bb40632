"""Checked reading of parsed JSON: every failure becomes a WireError naming the field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable
from typing import Any, TypeVar

from .errors import WireError

T = TypeVar("T")

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer every JSON reader (JavaScript included) holds exactly; versions and
milliseconds stay at or below it."""

UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})"
)
"""RFC 3339 date-time, upper-case T and Z (what the encoders emit and what the schemas accept)."""

_SHOWN = 40  # characters of a client's value quoted back in a reason


def show(value: object) -> str:
    """`value` as JSON, cut short: reasons quote the offending value, never a whole frame."""
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate from "\ud800" in the client's JSON: quote it escaped, so the
        # Error frame carrying this reason stays encodable.
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def json_kind(value: object) -> str:
    """The JSON type name of a parsed value, for reasons like "got array"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise WireError(f"duplicate key {show(key)} in a JSON object")
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    raise WireError(f"{name} is not a JSON number")


def parse_json(text: str | bytes, what: str, *, max_bytes: int | None = None) -> Any:
    """Parse one frame. Bytes must be UTF-8; duplicate keys and NaN/Infinity are refused."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        if max_bytes is not None and len(raw) > max_bytes:
            raise WireError(f"{what} is {len(raw)} bytes; at most {max_bytes} are allowed")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(f"{what} is not valid UTF-8") from None
    elif not isinstance(text, str):
        raise WireError(f"{what} must be text, got {type(text).__name__}")
    elif max_bytes is not None and len(text) * 4 > max_bytes:
        # A character is at most 4 bytes in UTF-8, so short text skips the encoding step.
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise WireError(f"{what} is {size} bytes; at most {max_bytes} are allowed")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise WireError(
            f"{what} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise WireError(f"{what} is nested too deeply") from None


def fields(
    obj: object,
    where: str,
    required: Collection[str] = (),
    optional: Collection[str] = (),
) -> dict[str, Any]:
    """`obj` as an object holding all of `required`, any of `optional` and nothing else."""
    if not isinstance(obj, dict):
        raise WireError(f"{where} must be an object, got {json_kind(obj)}")
    for key in required:
        if key not in obj:
            raise WireError(f"{where} is missing field {show(key)}")
    if len(obj) > len(required):
        for key in obj:
            if key not in required and key not in optional:
                raise WireError(f"{where} has unknown field {show(key)}")
    return obj


def tagged(obj: object, where: str, what: str, known: Iterable[str]) -> tuple[str, Any]:
    """The (tag, body) of a single-key tagged union whose tag must be one of `known`."""
    if not isinstance(obj, dict):
        raise WireError(f"{where} must be an object, got {json_kind(obj)}")
    if len(obj) != 1:
        names = ", ".join(show(key) for key in list(obj)[:4])
        got = f"{len(obj)} keys ({names}{', …' if len(obj) > 4 else ''})" if obj else "none"
        raise WireError(f"{where} must have exactly one key naming the {what}, got {got}")
    ((tag, body),) = obj.items()
    known = tuple(known)
    if tag not in known:
        raise WireError(f"unknown {what} {show(tag)}; expected one of: {', '.join(known)}")
    return tag, body


def integer(value: object, where: str, low: int = 0, high: int = MAX_SAFE_INTEGER) -> int:
    """An integer within [low, high]; booleans and numbers like 1.0 are not integers."""
    if type(value) is not int:
        raise WireError(f"{where} must be an integer, got {json_kind(value)} {show(value)}")
    if not low <= value <= high:
        raise WireError(f"{where} must be between {low} and {high}, got {value}")
    return value


def boolean(value: object, where: str) -> bool:
    if type(value) is not bool:
        raise WireError(f"{where} must be a boolean, got {json_kind(value)}")
    return value


def string(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise WireError(f"{where} must be a string, got {json_kind(value)}")
    return value


def optional(value: object, read: Callable[[object, str], T], where: str) -> T | None:
    """`read(value)`, or None when the value is JSON null."""
    return None if value is None else read(value, where)


def matching(value: object, where: str, pattern: re.Pattern[str], description: str) -> str:
    text = string(value, where)
    if not pattern.fullmatch(text):
        raise WireError(f"{where} {show(text)} is not {description}")
    return text


def one_of(value: object, where: str, choices: Collection[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise WireError(f"{where} must be one of {', '.join(choices)}, got {show(value)}")
    return value


def array(
    value: object,
    where: str,
    read: Callable[[object, str], T],
    *,
    min_items: int = 0,
    max_items: int | None = None,
    item_kind: str = "values",
) -> tuple[T, ...]:
    """A JSON array read item by item, reasons naming `where[i]`."""
    if not isinstance(value, list):
        raise WireError(f"{where} must be an array of {item_kind}, got {json_kind(value)}")
    if max_items is not None and len(value) > max_items:
        raise WireError(f"{where} has {len(value)} items; at most {max_items} are allowed")
    if len(value) < min_items:
        raise WireError(f"{where} has {len(value)} items; at least {min_items} are required")
    return tuple(read(item, f"{where}[{index}]") for index, item in enumerate(value))

