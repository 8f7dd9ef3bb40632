"""The game WebSocket: seats play through it, spectators watch through it.

`?mode=spectator` always means a read-only subscription, whatever else is in the URL; so does
a handshake without a token (the ecosystem site's way of watching).
`&presence=1` asks for `Presence` frames too (a seat's player away, and when it forfeits).
`?seat=<White|Black>` without a token returns a signed-in account to the seat it already
holds (its session, from an allowed page, proves it; a free seat is never taken so).
`?token=<seat token>` takes a seat: the token proves the capability; the session account
(from a page of an allowed origin), else `&guest=<uuid>`, says who redeems it (first
redemption wins; the same person reconnects freely; a guest never takes an account's seat).
A seat promised to a guest when the game was created needs neither: without `guest`, the token
seats that guest, session or not. An account's seat always needs the account's session.
Malformed frames, and seeds the dice ignore, get an `Error` frame and the connection stays
open; a refused turn is a `Rejected` event of the room, which every subscriber receives.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import cast

import trio
from quart import websocket

from playsite import principals
from playsite.accounts.service import Accounts
from playsite.games.refusals import GAME_STATUSES, game_not_found
from playsite.games.socket_commands import SocketCommands
from playsite.games.socket_limits import RETRY_AFTER_S, SOCKET_LIMIT_STATUSES, FramePace, SocketLimits
from playsite.games.socket_subscriber import SocketSubscriber
from playsite.http.auth import client_address, credentials
from playsite.http.cycles import raise_cancelled_alone
from playsite.http.errors import Refusal, RouteFamily, invalid_request
from playsite.http.ratelimit import RateLimiter, limit_by_address
from playsite.http.reads import Inbox
from playsite.http.wsbatch import SEND_KEY, SEND_TEXTS, DirectWriter
from playsite.http.wsreceive import INBOX_KEY
from playsite.principals import Kind, canonical_uuid, kind_of
from playsite.rooms.intents import Attach, Detach, Rebind
from playsite.rooms.registry import Registry
from playsite.rooms.room import Room
from playsite.stopping import Stopping
from playsite.tokens import matches
from playsite.wire import SEATS

DETACH_TIMEOUT_S = 5
REDEEM_WAIT_S = 5
"""How long taking a seat, or subscribing, waits for the room's answer before the socket is
answered with the last published state and closed 1013 (try again)."""


def websocket_routes(
    registry: Registry, accounts: Accounts, sockets: SocketLimits, stopping: Stopping, *, connects_per_minute: int
) -> RouteFamily:
    routes = RouteFamily(
        "game_socket", __name__, statuses={**GAME_STATUSES, **SOCKET_LIMIT_STATUSES},
        retry_after=dict.fromkeys(SOCKET_LIMIT_STATUSES, RETRY_AFTER_S),
    )
    connects = RateLimiter(connects_per_minute, 60)

    async def play_seat(room: Room, rebind: Rebind, refused: str) -> None:
        """Sit `rebind`'s principal in its seat (403 `seat_taken`, saying `refused`, when the
        room says no) and serve the socket as that seat."""
        with sockets.holding(room.game_id, client_address(), spectator=False):
            if not await redeem_seat(room, rebind):
                raise Refusal(403, "seat_taken", refused)
            await websocket.accept()
            presence = websocket.args.get("presence") == "1"
            await serve_subscriber(room, SocketSubscriber(rebind.seat, presence=presence), sockets.pace(), stopping)

    @routes.websocket("/games/<game_id>/ws")
    async def game_socket(game_id: str) -> None:
        limit_by_address(connects, "socket connections")
        room = registry.get(game_id)
        if room is None:
            raise game_not_found()
        token = websocket.args.get("token")
        returning = websocket.args.get("seat")
        presence = websocket.args.get("presence") == "1"  # playsite's Presence frames, asked for
        if websocket.args.get("mode") != "spectator" and token is None and returning is not None:
            # An account back at its game without the token (another tab, another device): its
            # session, from an allowed page, reopens the seat it already holds, never a free one.
            if returning not in SEATS:
                raise invalid_request("seat must be White or Black")
            caller = await accounts.caller(credentials(), None)
            if caller is None:
                raise Refusal(403, "invalid_token", "returning to a seat without its token needs signing in")
            rebind = Rebind(returning, caller.principal, caller.name, claim=False)
            await play_seat(room, rebind, "this seat is not this account's")
            return
        # Without a token, a handshake watches (the ecosystem's site opens a bare `/ws` to watch).
        if websocket.args.get("mode") != "spectator" and token is not None:
            seat = next((s for s in SEATS if matches(token, room.setup.seat(s).token_hash)), None)
            if seat is None:
                raise Refusal(403, "invalid_token", "this token does not open a seat of this game")
            guest = websocket.args.get("guest")
            promised = room.setup.seat(seat).principal
            promised_guest = promised if kind_of(promised) is Kind.GUEST else None
            if promised_guest is not None and (guest is None or _as_guest(guest) == promised_guest):
                # The seat was promised to a guest at creation (a lobby or play-bot seat, a game
                # created with guest ids, a rematch successor of a game played as that guest):
                # the token alone seats them, as the ecosystem's site opens it, or the token with
                # that same guest id, whether or not the page also carries a session (a person
                # who signed in since still holds the seat of their guest id).
                rebind = Rebind(seat, promised_guest, None)
            else:
                # Who sits down: the signed-in account (its session counts only from an allowed
                # page), else the guest id. An account always wins over a guest id.
                caller = await accounts.caller(credentials(), guest)
                if caller is None:  # no session, and no guest id, or one that is not a UUID
                    raise invalid_request("taking a seat needs guest=<uuid>, or signing in" if guest is None
                                          else f"guest must be a UUID (the id this browser keeps), got {guest[:40]!r}")
                rebind = Rebind(seat, caller.principal, caller.name)
            await play_seat(room, rebind, "this seat was already taken by someone else")
            return
        with sockets.holding(room.game_id, client_address(), spectator=True):
            await websocket.accept()
            await serve_subscriber(room, SocketSubscriber(None, presence=presence), sockets.pace(), stopping)

    return routes


def _as_guest(guest_id: str) -> str | None:
    """The principal a `guest=` value names (`guest:<uuid>`), or None when it is not a UUID."""
    canonical = canonical_uuid(guest_id)
    return None if canonical is None else principals.guest(canonical)


async def redeem_seat(room: Room, rebind: Rebind) -> bool:
    """Whether this guest may sit in the seat. A room that is halted on a failing write, or
    does not answer within REDEEM_WAIT_S, or ended meanwhile, lets the socket open: it then
    shows the last durable state and closes (1013 to retry, 1000 after the end), so the
    outcome never depends on a stalled store and a finished game is shown, not refused."""
    if room.persistence_stalled:
        return True
    with trio.move_on_after(REDEEM_WAIT_S):
        if not await room.send(rebind):
            return True  # the game's task is gone: its final state is shown
        return await rebind.reply.wait() or room.completed
    return True


async def close_socket(code: int, reason: str = "") -> None:
    """Close, tolerating a client that closed at the same moment (its close frame crossing ours)."""
    try:
        await websocket.close(code, reason)
    except (trio.BusyResourceError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def serve_subscriber(room: Room, subscriber: SocketSubscriber, pace: FramePace, stopping: Stopping) -> None:
    """Pump the subscriber's queue to the socket and the socket's commands, at their pace, to the room."""
    if room.persistence_stalled:
        # The room is halted on a failing write: show the last durable state, ask to retry.
        await websocket.send(room.snapshot_text())
        await close_socket(1013)  # "try again later"
        return
    attach = Attach(subscriber)
    attached = False
    with trio.move_on_after(REDEEM_WAIT_S):
        attached = await room.send(attach) and await attach.reply.wait()
    if not attached:
        # The game is over and its task gone, or the room is stuck: show the state it last
        # published, then close (1013: reconnect later; a Detach below undoes a late Attach).
        try:
            await websocket.send(room.snapshot_text())
            await close_socket(1000 if room.completed else 1013)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT_S):
                await room.send(Detach(subscriber))
        return
    # A client that stops reading is not timed out here: hypercorn's writes cannot be
    # cancelled, and the kernel cuts a connection stalled for PLAY_SEND_STALL_TIMEOUT_S
    # (server._Config). Meanwhile its queue overflows and the room drops it.
    send = _sender()
    # While this task waits on an empty queue, the room writes to the socket itself (games/socket_subscriber.py).
    subscriber.writer = DirectWriter.of(websocket.scope.get(SEND_KEY))
    try:
        try:
            async with trio.open_nursery() as nursery:
                with stopping.ends(nursery.cancel_scope):
                    commands = SocketCommands(room, subscriber, nursery.cancel_scope, pace)
                    inbox = cast("Inbox | None", websocket.scope.get(INBOX_KEY))  # put there by http/wsreceive.py
                    if inbox is not None:
                        inbox.handler = commands.take  # a frame while the reader waits: taken at once
                    nursery.start_soon(commands.read, websocket.receive)
                    while (texts := await subscriber.next_texts()) is not None:
                        if subscriber.lagging:
                            break  # dropped for lagging: close now rather than push stale events
                        await send(texts)
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            raise_cancelled_alone(group)  # the client left: no garbage cycles (http/cycles.py)
            raise
        if stopping.begun:
            await close_socket(1013, "the server is restarting: reconnect for a fresh snapshot")
        elif subscriber.lagging or subscriber.dropped:
            await close_socket(1013, "too slow: reconnect for a fresh snapshot")
        elif not room.completed:
            # Closed by the room without an ending (a stalled write): the game goes on.
            await close_socket(1013, "the game is paused: reconnect for a fresh snapshot")
        else:
            await close_socket(1000)
    finally:
        with trio.CancelScope(shield=True):
            await subscriber.settle()  # the rest of a direct write, before the close frame
            with trio.move_on_after(DETACH_TIMEOUT_S):
                await room.send(Detach(subscriber))


ServerSend = Callable[[dict[str, object]], Awaitable[None]]
"""hypercorn's send of this connection (an ASGI send), as http/wsbatch.py hands it to a route."""


def _sender() -> Callable[[list[str]], Awaitable[None]]:
    """What sends a list of texts to this socket, each as its own message: in one write under
    hypercorn (http/wsbatch.py), one by one where the server cannot (quart's test client)."""
    server_send = cast("ServerSend | None", websocket.scope.get(SEND_KEY))  # put there by http/wsbatch.py
    if server_send is not None:
        return lambda texts: server_send({"type": SEND_TEXTS, "texts": texts})
    # Once, not through the proxy per frame (quart types its proxy as the Websocket itself).
    send_one = websocket._get_current_object().send  # type: ignore[attr-defined]

    async def one_by_one(texts: list[str]) -> None:
        for text in texts:
            await send_one(text)

    return one_by_one
