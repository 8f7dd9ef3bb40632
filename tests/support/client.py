"""A scripted player over real sockets: httpx for HTTP, trio-websocket for the game socket."""

from __future__ import annotations

import contextlib
import random
import threading
import uuid

import httpx
import trio
from trio_websocket import open_websocket_url

from playsite.wire import DiceRolled, GameEnded, Resign, Snapshot, SubmitTurn, TurnPlayed, decode_frame, encode_command
from tests.support.turns import king_sparing_turn, random_turn
from tests.support.waiting import deadline, wait_until


async def create_game(base_url: str, **body) -> dict:
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{base_url}/games", json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


class Player:
    """One seat's socket: keeps the latest roll, plays random legal turns on request."""

    def __init__(self, ws_url: str, game: dict, seat: str, guest: str | None = None):
        self.url = ws_url + game["seats"][seat.lower()]["wsUrl"] + f"&guest={guest or uuid.uuid4()}"
        self.moves_url = ws_url.replace("ws://", "http://", 1) + f"/games/{game['gameId']}/moves"
        self.seat = seat
        self.fetch_tree = False
        """The roll's tree was too large to inline: GET /games/{id}/moves has it."""
        self.events: list = []
        self.tree: dict | None = None
        self.ws = None

    async def receive(self):
        event = decode_frame(await self.ws.get_message())
        self.events.append(event)
        if isinstance(event, Snapshot):
            mine = event.state.dice_pending and event.state.active_seat == self.seat
            await self._take_tree(mine, event.state.legal_moves)
        elif isinstance(event, DiceRolled):
            await self._take_tree(event.seat == self.seat, event.legal_moves)
        return event

    async def _take_tree(self, mine: bool, inline: dict | None) -> None:
        """This seat's tree when it is to move: inline, or fetched when too large to inline."""
        self.tree = inline if mine and inline else None
        self.fetch_tree = mine and inline is None
        if self.fetch_tree:
            async with httpx.AsyncClient() as http:
                self.tree = (await http.get(self.moves_url, timeout=10)).json()["legalMoves"]

    async def until(self, predicate, timeout: float = 20):
        with deadline(timeout, f"an event {self.seat} awaits"):
            while True:
                event = await self.receive()
                if predicate(event):
                    return event

    async def my_roll(self, timeout: float = 20) -> dict:
        """Wait until this seat has dice with legal moves (reading everything before)."""
        with deadline(timeout, f"a roll with legal moves for {self.seat}"):
            while self.tree is None:
                event = await self.receive()
                if isinstance(event, GameEnded):
                    raise AssertionError(f"game ended: {event}")
        return self.tree

    async def play(self, rng: random.Random) -> list[str]:
        moves = random_turn(await self.my_roll(), rng)
        self.tree = None
        await self.ws.send_message(encode_command(SubmitTurn(tuple(moves))))
        return moves

    async def play_until_then_resign(self, rng: random.Random, done) -> None:
        """Play random turns when this seat has a tree (reading the rest) until `done(events)`,
        then resign unless the game has ended meanwhile (the other side may take the king)."""
        while not done(self.events):
            if self.tree is not None:
                await self.play(rng)
            else:
                await self.receive()
        if not any(isinstance(event, GameEnded) for event in self.events):
            await self.ws.send_message(encode_command(Resign()))
            await self.until(lambda event: isinstance(event, GameEnded))


@contextlib.asynccontextmanager
async def seated(player: Player):
    """The player's socket, open for the block."""
    async with open_websocket_url(player.url) as ws:
        player.ws = ws
        yield player


class Table:
    """Both seats of one game, each socket read by its own task, so neither backs up.

    `play_turn` waits for whichever seat has dice with moves, plays a random legal turn
    and returns the TurnPlayed that confirms it.
    """

    def __init__(self, white: Player, black: Player):
        self.players = {"White": white, "Black": black}

    async def _read(self, player: Player) -> None:
        try:
            while True:
                await player.receive()
        except Exception:  # the socket closed: the test decides what that means
            return

    @contextlib.asynccontextmanager
    async def open(self):
        async with seated(self.players["White"]), seated(self.players["Black"]):
            async with trio.open_nursery() as nursery:
                for player in self.players.values():
                    nursery.start_soon(self._read, player)
                yield self
                nursery.cancel_scope.cancel()

    def seat_to_move(self) -> Player | None:
        return next((p for p in self.players.values() if p.tree), None)

    async def wait_for_roll(self, timeout: float = 20) -> Player:
        return await wait_until(self.seat_to_move, "a seat with dice and legal moves", timeout)

    async def play_turn(self, rng: random.Random, timeout: float = 20, *, spare_king: bool = False):
        player = await self.wait_for_roll(timeout)
        moves = await self.submit(player, rng, spare_king=spare_king)
        return await self.wait_for(player, lambda e: isinstance(e, TurnPlayed) and list(e.moves) == moves, timeout)

    async def submit(self, player: Player, rng: random.Random, *, spare_king: bool = False) -> list[str]:
        """Send a random legal turn; with `spare_king`, one that does not capture the enemy king
        when another turn exists (so the game cannot end by this turn)."""
        if spare_king:
            async with httpx.AsyncClient() as http:
                dfen = (await http.get(player.moves_url, timeout=10)).json()["dfen"]
            moves = king_sparing_turn(player.tree, dfen, player.seat, rng)
        else:
            moves = random_turn(player.tree, rng)
        player.tree = None
        await player.ws.send_message(encode_command(SubmitTurn(tuple(moves))))
        return moves

    async def wait_for(self, player: Player, predicate, timeout: float = 20):
        seen = 0
        with deadline(timeout, f"an event {player.seat} awaits"):
            while True:
                for event in player.events[seen:]:
                    if predicate(event):
                        return event
                seen = len(player.events)
                await trio.sleep(0.01)


def table(server, game: dict) -> Table:
    """Both seats of `game` (as `create_game` answered it) on `server`'s sockets."""
    return Table(Player(server.ws_url, game, "White"), Player(server.ws_url, game, "Black"))


class TableInThread:
    """A friend game (no clock) whose two seats play over real sockets in a thread of their own,
    so a browser stays on the test's thread. `ready(table)` runs before the block starts (the
    game's id and seat tokens are known then); `act()` runs `action(table)` once and waits for
    it. White plays as `white_guest` when given (a page may then hold the same seat)."""

    def __init__(self, server, ready, action, *, white_guest: str | None = None, ready_s: float = 30):
        self.server, self.ready_step, self.action = server, ready, action
        self.white_guest, self.ready_s = white_guest, ready_s
        self.game_id: str | None = None
        self.tokens: dict[str, str] = {}
        self.ready, self.go, self.acted, self.done = (threading.Event() for _ in range(4))
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def main():
            game = await create_game(self.server.base_url, timeControl={"Unlimited": {}})
            self.game_id = game["gameId"]
            self.tokens = {seat: game["seats"][seat.lower()]["token"] for seat in ("White", "Black")}
            white = Player(self.server.ws_url, game, "White", guest=self.white_guest)
            table = Table(white, Player(self.server.ws_url, game, "Black"))
            async with table.open():
                await self.ready_step(table)
                self.ready.set()
                await trio.to_thread.run_sync(self.go.wait)
                await self.action(table)
                self.acted.set()
                await trio.to_thread.run_sync(self.done.wait)

        try:
            trio.run(main)
        except BaseException as error:  # reported on the test's thread
            self.error = error
            self.ready.set()
            self.acted.set()

    def __enter__(self):
        self.thread.start()
        assert self.ready.wait(self.ready_s) and self.error is None, self.error
        return self

    def act(self) -> None:
        self.go.set()
        assert self.acted.wait(30) and self.error is None, self.error

    def __exit__(self, *exc):
        self.go.set()
        self.done.set()
        self.thread.join(30)
