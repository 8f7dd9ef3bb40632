"""Compact JSON responses: the encoding every route family answers in."""

from __future__ import annotations

from quart import Response

from playsite.wire.text import compact_json

NO_STORE = {"Cache-Control": "no-store"}
NO_CACHE = {"Cache-Control": "no-cache"}


def json_text(body: object) -> str:
    return compact_json(body)


def json_response(body: object, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json_text(body), status=status, content_type="application/json", headers=headers or {})


def empty_response(status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(b"", status=status, headers=headers or {})
