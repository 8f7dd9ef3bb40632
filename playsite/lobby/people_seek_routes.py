"""Seeks for people, in the shapes of the dice-chess ecosystem's lobby:

    POST   /lobby/seeks               {creator[, timeControl]} -> 201 {seekId, secret}
    GET    /lobby/seeks/{id}?secret=  -> {matched, gameId, token, seat}   (seek_routes.py dispatches)
    DELETE /lobby/seeks/{id}?secret=  -> 204                               (seek_routes.py dispatches)
    POST   /lobby/seeks/{id}/accept   {accepter} -> 201 {gameId, token, seat, wsUrl}

`creator` and `accepter` are guest ids (UUIDs); a signed-in person (session cookie from an
allowed page) plays as the account instead, and the list names an account's seek by its
nickname (a guest's seek names nobody). `accept` takes a person's seek or a bot's (the
lobby lists both), with colours drawn at random. Both writes are rate-limited per address.
A seek posted with `rated: true` needs a signed-in creator, and only another signed-in person
may take it (401 `not_signed_in` otherwise); its game is rated.
"""

from __future__ import annotations

from quart import Response

import secrets

from playsite.accounts.service import Accounts
from playsite.bots.games import Human
from playsite.http.bodies import json_object
from playsite.http.errors import Refusal, RouteFamily
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.responses import NO_STORE, json_response
from playsite.lobby import bodies
from playsite.lobby.human_routes import named_person, person, seat_response
from playsite.lobby.people_seeks import is_people_seek_id
from playsite.lobby.service import Lobby
from playsite.principals import Kind, id_of
from playsite.wire import SEATS, WHITE, DEFAULT_TIME_CONTROL

PEOPLE_SEEKS_PER_MINUTE = 20
"""Seeks posted, per client address."""
PEOPLE_ACCEPTS_PER_MINUTE = 30
"""Seeks accepted, per client address."""
PEOPLE_SEEK_ORIGIN = "seek"


def mount_people_seek_routes(routes: RouteFamily, lobby: Lobby, accounts: Accounts) -> None:
    board = lobby.people_seeks
    posts = RateLimiter(PEOPLE_SEEKS_PER_MINUTE, 60)
    accepts = RateLimiter(PEOPLE_ACCEPTS_PER_MINUTE, 60)

    @routes.post("/lobby/seeks")
    async def post_people_seek() -> Response:
        limit_by_address(posts, "seeks")
        body = await json_object()
        rated = bodies.optional_flag(body, "rated")
        creator, seek_name = await named_person(accounts, body, "creator")  # an account's seek shows its nickname
        if rated and not is_account(creator):
            raise Refusal(401, "not_signed_in", "a rated seek needs a signed-in player: sign in first (GET /auth/login)")
        time_control = bodies.time_control(body, default=DEFAULT_TIME_CONTROL)
        seek, secret = board.post(creator, time_control)
        seek.name, seek.rated = seek_name, rated
        return json_response({"seekId": seek.id, "secret": secret}, 201, NO_STORE)

    @routes.post("/lobby/seeks/<seek_id>/accept")
    async def accept_people_seek(seek_id: str) -> Response:
        limit_by_address(accepts, "seek accepts")
        body = await json_object()
        accepter = await person(accounts, body, "accepter")
        if not is_people_seek_id(seek_id):
            game, seat = await lobby.accept_seek(seek_id, accepter)  # a bot's seek
            return seat_response(game, seat, accepter)
        seek = board.claim(seek_id, accepter.principal)
        try:
            if seek.rated and not is_account(accepter.principal):
                raise Refusal(401, "not_signed_in", "a rated seek is taken by a signed-in player: sign in first (GET /auth/login)")
            accepter_seat = secrets.choice(SEATS)
            creator = Human(seek.creator)
            white, black = (accepter, creator) if accepter_seat == WHITE else (creator, accepter)
            game = await lobby.start_game(
                white=white, black=black, time_control=seek.time_control, origin=PEOPLE_SEEK_ORIGIN, rated=seek.rated
            )
        except BaseException:
            board.release(seek)
            raise
        creator_seat = next(seat for seat in SEATS if seat != accepter_seat)
        board.matched_with_seat(seek, game.room.game_id, creator_seat, game.human_tokens[creator_seat])
        return seat_response(game, accepter_seat, accepter)


def is_account(principal: str) -> bool:
    """A signed-in person's principal (`user:<uuid>`), the only kind a rated seek seats."""
    return id_of(principal, Kind.USER) is not None
