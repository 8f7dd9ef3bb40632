"""HTTP routes of human games and public game reads. Thin: parse, hand over, encode."""

from __future__ import annotations

import json

import trio
from quart import Response

from playsite import principals
from playsite.config import Settings
from playsite.games.creation import create_human_game
from playsite.games.refusals import GAME_STATUSES, canonical_game_id, game_not_found
from playsite.games.socket_limits import SocketLimits
from playsite.http.bodies import body_limit, json_object, reject_unknown_fields
from playsite.http.errors import Refusal, RouteFamily, invalid_request, read_or_unavailable, temporarily_unavailable
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import json_response
from playsite.principals import canonical_uuid
from playsite.ratings.book import RatingBook
from playsite.rooms.registry import CreationFailed, Registry
from playsite.rooms.room import Room
from playsite.rooms.view import PublicView
from playsite.store import Store
from playsite.wire import (
    BLACK,
    DEFAULT_TIME_CONTROL,
    WHITE,
    Seat,
    WireError,
    decode_time_control,
    encode_time_control,
)

CREATE_BODY_MAX = 4096
PENDING_RETRY_AFTER_S = 30
LIST_LIMIT = 50


def game_routes(
    registry: Registry, store: Store, sockets: SocketLimits, settings: Settings, ratings: RatingBook
) -> RouteFamily:
    routes = RouteFamily("games", __name__, statuses=GAME_STATUSES)
    creations = RateLimiter(settings.game_creations_per_minute, 60)

    @routes.post("/games")
    @body_limit(CREATE_BODY_MAX)
    async def create_game() -> Response:
        limit_by_address(creations, "game creations")
        if registry.awaiting_joins() >= settings.unjoined_games_max:
            raise Refusal(
                503, "too_many_pending_games", "too many games are waiting for their players; try again later",
                {"Retry-After": str(PENDING_RETRY_AFTER_S)},
            )
        body = await json_object()
        reject_unknown_fields(body, {"timeControl", "rated", "white", "black"})
        sitters = promised_sitters(body)
        try:
            time_control = (
                decode_time_control(body["timeControl"]) if "timeControl" in body else DEFAULT_TIME_CONTROL
            )
        except WireError as error:
            raise invalid_request(f"timeControl: {error.reason}") from None
        rated = body.get("rated", False)
        if not isinstance(rated, bool):
            raise invalid_request("rated must be true or false")
        try:
            created = await create_human_game(
                registry,
                time_control,
                rated=rated,
                seed_window_s=settings.dice_seed_window_ms / 1000,
                durability=settings.game_durability,
                sitters=sitters,
            )
        except CreationFailed:
            raise temporarily_unavailable("the game could not be stored; try again") from None
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
            "commit": created.room.public_state().commit,
            "timeControl": encode_time_control(time_control),
            "rated": rated,
            "seats": seats,
            "tokens": [{"seat": seat, "token": token} for seat, token in created.tokens.items()],
            "spectatorWsUrl": f"/games/{game_id}/ws?mode=spectator",
        }
        return json_response(body, 201, {"Cache-Control": "no-store, private"})

    watching = sockets.spectators_by_game

    @routes.get("/games")
    async def list_games() -> Response:
        rooms = sorted(registry.live.values(), key=lambda room: room.published.version, reverse=True)
        games = [{**public_game(room), "watching": watching[room.game_id]} for room in rooms[:LIST_LIMIT]]
        return json_response({"games": games, "total": len(registry.live)})

    @routes.get("/games/<game_id>/watching")
    async def count_watching(game_id: str) -> Response:
        """How many spectator sockets this process holds for the game (0 for one not live here)."""
        game_id = canonical_game_id(game_id)
        return json_response({"gameId": game_id, "watching": watching[game_id]}, headers={"Cache-Control": "no-cache"})

    @routes.get("/games/<game_id>/ratings")
    async def read_ratings(game_id: str) -> Response:
        """Each seat's rating as the rating book has it now, for the names of a live game: null
        for a guest, an unnamed seat, or a game no longer live here (its page shows the change)."""
        room = registry.live.get(canonical_game_id(game_id))
        if room is None:
            raise game_not_found()
        body: dict[str, object] = {"gameId": room.game_id}
        for seat, principal in room.principals.items():
            body[str(seat).lower()] = ratings.public(principal)
        return json_response(body, headers={"Cache-Control": "no-cache"})

    async def view_of(game_id: str) -> PublicView:
        """A live (or recently finished) room's view; else an ended game's final state from the
        store, so a finished game stays readable by id after a restart."""
        room = registry.get(game_id)
        if room is not None:
            return room.published
        game_id = canonical_game_id(game_id)
        data = await read_or_unavailable(
            lambda: store.ended_game(game_id), "the game could not be read; try again"
        )
        if data is None:
            raise game_not_found()
        return Room.ended_view(data)

    @routes.get("/games/<game_id>")
    async def read_game(game_id: str) -> Response:
        view = await view_of(game_id)
        return Response(view.state_text(trio.current_time()), content_type="application/json", headers={"Cache-Control": "no-cache"})

    @routes.get("/games/<game_id>/moves")
    async def read_moves(game_id: str) -> Response:
        view = await view_of(game_id)
        return Response(view.moves_text(), content_type="application/json", headers={"Cache-Control": "no-cache"})

    return routes


def promised_sitters(body: dict[str, object]) -> dict[Seat, str] | None:
    """The ecosystem's creation body names each seat's guest (`white`, `black`: guest ids, both
    or neither): seat -> 'guest:<uuid>'. The same guest may hold both seats (a board shared
    between two people, or a link the creator hands on)."""
    named = [field for field in ("white", "black") if field in body]
    if not named:
        return None
    if len(named) == 1:
        raise invalid_request("give both white and black, or neither")
    sitters: dict[Seat, str] = {}
    for seat, field in ((WHITE, "white"), (BLACK, "black")):
        guest_id = canonical_uuid(body[field])
        if guest_id is None:
            raise Refusal(
                400, "invalid_guest_id", f"{field} must be a guest id, a UUID (8-4-4-4-12 hexadecimal digits)"
            )
        sitters[seat] = principals.guest(guest_id)
    return sitters


def public_game(room: Room) -> dict[str, object]:
    """A live game as the list shows it, with `lastMoves`: the micro-moves of the newest turn
    that moved something (a pass moves nothing), what the wall's mini-boards mark."""
    state = json.loads(room.state_text())
    moved = next((turn.moves for turn in reversed(room.published.history) if turn.moves), ())
    return {
        "gameId": room.game_id,
        "players": state.get("players"),
        "timeControl": state["timeControl"],
        "activeSeat": state["activeSeat"],
        "dicePending": state["dicePending"],
        "clocks": state.get("clocks"),
        "version": state["version"],
        "dfen": state["dfen"],
        "lastMoves": list(moved),
    }
