"""The error body of the game, lobby, discovery and Bot API endpoints.

`{"error": {"code": "<machine code>", "message": "<for people>"}}` — a stable code for
programs, a sentence for people. Never a traceback, never a 500 for a client's mistake.
"""

from __future__ import annotations

from quart import jsonify


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None):
    return jsonify({"error": {"code": code, "message": message}}), status, headers or {}
