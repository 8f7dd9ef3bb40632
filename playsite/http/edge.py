"""`install_edge(app)`: what every request of the app goes through, installed once.

Before any route: the body is read and checked against the route's limit. After a route
raised: a `Refusal` is rendered in its family's shape; quart's own 404, 405 (with `Allow`),
413 and 400 become the same JSON error body; anything else is a logged 500 that tells the
client nothing about the internals.
"""

from __future__ import annotations

from quart import Quart, request
from werkzeug.exceptions import HTTPException

from playsite.http.bodies import BODY_MAX_ANY, read_body_first
from playsite.http.errors import CLOSE, Refusal, invalid_request, render


def install_edge(app: Quart) -> None:
    app.config["MAX_CONTENT_LENGTH"] = BODY_MAX_ANY
    app.before_request(read_body_first)

    @app.errorhandler(Refusal)
    async def refused(refusal: Refusal):
        return render(refusal)

    @app.errorhandler(HTTPException)
    async def framework_refusal(error: HTTPException):
        return render(refusal_of(error))

    @app.errorhandler(500)
    async def server_error(_error):
        # Logged with its traceback by quart; the client gets JSON and no internals.
        return render(Refusal(500, "internal_error", "the server failed on this request; it has been logged"))


def refusal_of(error: HTTPException) -> Refusal:
    """The refusal a framework exception stands for."""
    if error.code == 404:
        return Refusal(404, "not_found", "no such resource")
    if error.code == 405:
        allowed = ", ".join(sorted(getattr(error, "valid_methods", None) or ()))
        return Refusal(405, "method_not_allowed", f"{request.method} is not allowed here", {"Allow": allowed} if allowed else None)
    if error.code == 413:
        return Refusal(413, "request_too_large", f"body is over {BODY_MAX_ANY} bytes", CLOSE)
    if error.code == 400:
        return invalid_request(error.description or "malformed request")
    return Refusal(error.code or 500, "http_error", error.description or "request refused")
