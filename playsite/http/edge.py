"""`install_edge(app)`: what every request of the app goes through, installed once.

Before any route: a CORS preflight is answered (`CorsPolicy.preflight`) and the body is
read and checked against the route's limit. After every request: CORS headers for the
origins allowed to read (`CorsPolicy.add_headers`). After a route
raised: a `Refusal` is rendered in its family's shape; quart's own 404, 405 (with `Allow`),
413 and 400 become the same JSON error body; anything else is a logged 500 that tells the
client nothing about the internals.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from urllib.parse import quote

from quart import Quart, Response, has_request_context, has_websocket_context, request, websocket
from werkzeug.exceptions import HTTPException
from werkzeug.routing import WebsocketMismatch

from playsite.http.auth import TRUSTED_PROXIES
from playsite.http.bodies import BODY_MAX_ANY, read_body_first
from playsite.http.cors import CorsPolicy
from playsite.http.errors import (
    Refusal, invalid_request, refusal_of_domain, render, temporarily_unavailable, too_large,
)
from playsite.http.origin import OriginPolicy
from playsite.refusals import Refused


def install_edge(
    app: Quart,
    *,
    unavailable: tuple[type[Exception], ...] = (),
    origins: OriginPolicy = OriginPolicy(),
    any_origin: bool = False,
    trusted_proxies: tuple[str, ...] = (),
) -> None:
    """`unavailable`: exception types that mean a dependency (the store) is down; one that
    escapes a route is answered 503 `temporarily_unavailable`, never 500. `origins`: the
    browser boundary whose CORS answers every request gets; `any_origin`: other pages may read
    answers too, without credentials (`*` on PLAY_CORS_ORIGINS). `trusted_proxies`: the
    proxies whose `X-Forwarded-For` names the client (`auth.client_address`)."""
    cors = CorsPolicy(origins, any_origin=any_origin)
    app.config["MAX_CONTENT_LENGTH"] = BODY_MAX_ANY
    app.config[TRUSTED_PROXIES] = trusted_proxies
    app.before_request(cors.preflight)
    app.before_request(read_body_first)
    app.after_request(cors.add_headers)
    app.after_request(no_type_without_body)
    # quart has no hook for the line it logs, only this method: replaced on this app alone.
    setattr(app, "log_exception", log_exception_safely(app))

    @app.errorhandler(Refusal)
    async def refused(refusal: Refusal) -> Response:
        return render(refusal)

    @app.errorhandler(Refused)
    async def domain_refused(refused: Refused) -> Response:
        return render(refusal_of_domain(refused))

    for dependency_down in unavailable:
        app.register_error_handler(dependency_down, lambda _error: render(temporarily_unavailable()))

    @app.errorhandler(HTTPException)
    async def framework_refusal(error: HTTPException) -> Response:
        return render(refusal_of(error))

    @app.errorhandler(500)
    async def server_error(_error: Exception) -> Response:
        # Logged with its traceback by quart; the client gets JSON and no internals.
        return render(Refusal(500, "internal_error", "the server failed on this request; it has been logged"))


async def no_type_without_body(response: Response) -> Response:
    """An answer with no body says no Content-Type (quart would label it text/html): a 204, a
    304, and a 202 or any other answer whose body is empty."""
    if response.status_code in (204, 304) or response.content_length == 0:
        response.headers.pop("Content-Type", None)
    return response


def printable_path(path: str) -> str:
    """The path as it may go into a log line: every control or non-ASCII character escaped,
    so a client cannot forge a line (`%0a`) or hide one."""
    return quote(path, safe="/:@!$&'()*+,;=-._~")


ExceptionInfo = tuple[type, BaseException, TracebackType] | tuple[None, None, None]


def log_exception_safely(app: Quart) -> Callable[[ExceptionInfo], None]:
    def log_exception(exception_info: ExceptionInfo) -> None:
        context = request if has_request_context() else websocket if has_websocket_context() else None
        where = f" {context.method} {printable_path(context.path)}" if context is not None else ""
        app.logger.error("Exception on request%s", where, exc_info=exception_info)

    return log_exception


def refusal_of(error: HTTPException) -> Refusal:
    """The refusal a framework exception stands for."""
    if error.code == 404:
        return Refusal(404, "not_found", "no such resource")
    if error.code == 405:
        allowed = ", ".join(sorted(getattr(error, "valid_methods", None) or ()))
        return Refusal(405, "method_not_allowed", f"{request.method} is not allowed here", {"Allow": allowed} if allowed else None)
    if error.code == 413:
        return too_large(BODY_MAX_ANY)
    if isinstance(error, WebsocketMismatch):
        # a plain request to a WebSocket's address (werkzeug's own words name no cause)
        return Refusal(426, "upgrade_required", "this address is a WebSocket: connect with a WebSocket client",
                       {"Upgrade": "websocket"})
    if error.code == 400:
        return invalid_request(error.description or "malformed request")
    return Refusal(error.code or 500, "http_error", error.description or "request refused")
