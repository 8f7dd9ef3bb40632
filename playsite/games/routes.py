"""HTTP routes of human games and public game reads. Thin: parse, hand over, encode."""

from __future__ import annotations

import json

from quart import Blueprint, Response, request

from playsite.games.creation import create_human_game
from playsite.games.errors import error_response
from playsite.rooms.registry import CreationFailed
from playsite.wire import DEFAULT_TIME_CONTROL, WireError, decode_time_control, encode_time_control

CREATE_BODY_MAX = 4096
LIST_LIMIT = 50


def game_routes(services) -> Blueprint:
    routes = Blueprint("games", __name__)
    registry = services.registry

    @routes.post("/games")
    async def create_game():
        body = await read_json_body(CREATE_BODY_MAX)
        if isinstance(body, tuple):
            return body
        unknown = set(body) - {"timeControl", "rated"}
        if unknown:
            return error_response(400, "invalid_request", f"unknown field(s): {', '.join(sorted(unknown))}")
        try:
            time_control = (
                decode_time_control(body["timeControl"]) if "timeControl" in body else DEFAULT_TIME_CONTROL
            )
        except WireError as error:
            return error_response(400, "invalid_request", f"timeControl: {error.reason}")
        rated = body.get("rated", False)
        if not isinstance(rated, bool):
            return error_response(400, "invalid_request", "rated must be true or false")
        try:
            created = await create_human_game(
                registry,
                time_control,
                rated=rated,
                seed_window_s=services.settings.dice_seed_window_ms / 1000,
                durability=services.settings.game_durability,
            )
        except CreationFailed:
            return error_response(
                503, "temporarily_unavailable", "the game could not be stored; try again", {"Retry-After": "5"}
            )
        game_id = created.room.game_id
        seats = {
            seat.lower(): {
                "seat": seat,
                "token": token,
                "wsUrl": f"/games/{game_id}/ws?token={token}",
            }
            for seat, token in created.tokens.items()
        }
        body = {
            "gameId": game_id,
            "commit": created.room.fairness.commit,
            "timeControl": encode_time_control(time_control),
            "rated": rated,
            "seats": seats,
            "spectatorWsUrl": f"/games/{game_id}/ws?mode=spectator",
        }
        return json_response(body, 201, {"Cache-Control": "no-store, private"})

    @routes.get("/games")
    async def list_games():
        rooms = sorted(registry.live.values(), key=lambda room: room.published.version, reverse=True)
        games = [public_game(room) for room in rooms[:LIST_LIMIT]]
        return json_response({"games": games, "total": len(registry.live)})

    @routes.get("/games/<game_id>")
    async def read_game(game_id: str):
        room = registry.get(game_id)
        if room is None:
            return error_response(404, "game_not_found", "no such game")
        return Response(room.state_text(), content_type="application/json", headers={"Cache-Control": "no-cache"})

    @routes.get("/games/<game_id>/moves")
    async def read_moves(game_id: str):
        room = registry.get(game_id)
        if room is None:
            return error_response(404, "game_not_found", "no such game")
        return json_response(room.published.moves_body(), headers={"Cache-Control": "no-cache"})

    return routes


def public_game(room) -> dict:
    state = json.loads(room.state_text())
    return {
        "gameId": room.game_id,
        "players": state.get("players"),
        "timeControl": state["timeControl"],
        "activeSeat": state["activeSeat"],
        "dicePending": state["dicePending"],
        "clocks": state.get("clocks"),
        "version": state["version"],
        "dfen": state["dfen"],
    }


def json_response(body, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return Response(text, status=status, content_type="application/json", headers=headers or {})


async def read_json_body(limit: int):
    """The request's JSON object ({} when empty), or an error response tuple."""
    if request.content_length is not None and request.content_length > limit:
        return error_response(413, "request_too_large", f"body is over {limit} bytes", {"Connection": "close"})
    raw = await request.get_data()
    if len(raw) > limit:
        return error_response(413, "request_too_large", f"body is over {limit} bytes", {"Connection": "close"})
    if not raw.strip():
        return {}
    if request.mimetype != "application/json":
        return error_response(415, "unsupported_media_type", "send the body as application/json")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return error_response(400, "invalid_request", "body is not valid JSON")
    except RecursionError:
        return error_response(400, "invalid_request", "body is nested too deeply")
    if not isinstance(body, dict):
        return error_response(400, "invalid_request", "body must be a JSON object")
    return body
