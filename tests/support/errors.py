"""The one check of an error answer: the status, JSON, and exactly the Bot API error body."""

from __future__ import annotations


def assert_error(answer, status: int, code: str) -> str:
    """`answer` is an httpx response, or a `(status, body)` pair already read; returns the message.

    The body must be exactly `{"error": {"code": code, "message": <non-empty text>}}`."""
    if isinstance(answer, tuple):
        got_status, body = answer
    else:
        assert answer.headers["content-type"].startswith("application/json"), answer.headers
        got_status, body = answer.status_code, answer.json()
    assert got_status == status, body
    assert isinstance(body, dict) and set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert isinstance(message, str) and message, body
    return message


def assert_no_server_errors(server) -> None:
    """A `playsite serve` process (tests/support/server.py) logged no crash and no failed request."""
    output = server.output()
    assert "Traceback" not in output, output
    assert "Exception on request" not in output, output
