"""A seat's commands through the game socket (games/socket_commands.py): one command of a
socket in the room at a time, and the room's answer to a turn wakes no task (it is looked at
when the seat's next frame comes), where waiting for it cost a trip round the event loop at
every turn. Under hypercorn (the server's own set-up) a turn that comes while the reader waits
is handed to the room by the connection's reading task, and wakes the reader not at all. An
ignored seed is still answered on its socket (tests/e2e/test_live_game.py)."""

from __future__ import annotations

import json
import random
import uuid

import pytest
import trio
import trio.testing
import trio_websocket

from playsite.config import Settings
from playsite.games.socket_commands import SocketCommands
from playsite.games.socket_subscriber import SocketSubscriber
from playsite.rooms.intents import Attach, PlayerCommand
from playsite.wire import Resign, encode_error
from tests.support.app import booted, friend_game, seat_path, served, test_client
from tests.support.turns import king_sparing_turn

READER = "socket_commands.SocketCommands.read"


class ReaderSteps(trio.abc.Instrument):
    """How often a seat socket's command reader ran, and the most commands the room had been
    sent and not yet answered, seen between any two task steps."""

    def __init__(self, room) -> None:
        self.steps = 0
        self.sent: list = []
        self.most_unanswered = 0
        send, send_nowait = room.send, room.send_nowait

        async def recording_send(intent) -> bool:
            if isinstance(intent, PlayerCommand):
                self.sent.append(intent)
            return await send(intent)

        def recording_send_nowait(intent) -> bool:
            queued = send_nowait(intent)  # raises trio.WouldBlock when the queue is full
            if isinstance(intent, PlayerCommand):
                self.sent.append(intent)
            return queued

        room.send, room.send_nowait = recording_send, recording_send_nowait

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.name.endswith(READER):
            self.steps += 1
        unanswered = sum(1 for intent in self.sent if not intent.reply.ready)
        self.most_unanswered = max(self.most_unanswered, unanswered)


class Socket:
    """A test's end of a game socket: quart's test client or a real WebSocket (trio-websocket)."""

    def __init__(self, ws) -> None:
        self.ws = ws

    async def send(self, body: dict) -> None:
        text = json.dumps(body)
        await (self.ws.send_message(text) if isinstance(self.ws, trio_websocket.WebSocketConnection) else self.ws.send(text))

    async def frame(self) -> dict:
        if isinstance(self.ws, trio_websocket.WebSocketConnection):
            return json.loads(await self.ws.get_message())
        return json.loads(await self.ws.receive())

    async def until(self, kind: str, where=lambda body: True) -> dict:
        while True:
            frame = await self.frame()
            if kind in frame and where(frame[kind]):
                return frame[kind]


async def reader_steps_per_turn(game, sockets: dict[str, Socket], instrument: ReaderSteps) -> list[int]:
    """Up to six turns played through the seats' sockets, each from a quiet server: how often
    the reader of the moving seat's socket ran for each."""
    rng = random.Random(3)
    steps_per_turn = []
    for _ in range(6):
        await trio.testing.wait_all_tasks_blocked()
        view = game.room.published
        if not (view.state.dice_pending and view.tree):
            break  # the game ended (a king was taken after all) or passes
        seat = str(view.turn.seat)
        moves = king_sparing_turn(view.tree, view.state.dfen, seat, rng)
        trio.lowlevel.add_instrument(instrument)
        instrument.steps = 0
        await sockets[seat].send({"SubmitTurn": {"moves": moves}})
        played = await sockets[seat].until("TurnPlayed", lambda body: body["v"] > view.version)
        assert played["moves"] == moves
        await trio.testing.wait_all_tasks_blocked()
        trio.lowlevel.remove_instrument(instrument)
        steps_per_turn.append(instrument.steps)
    assert len(steps_per_turn) >= 3, steps_per_turn
    return steps_per_turn


async def test_a_turn_wakes_the_seats_reader_once_and_the_rooms_answer_wakes_no_task():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        client = test_client(services)  # quart's client: no hypercorn stream, so every frame is read
        game = await friend_game(services)
        urls = {seat: seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        instrument = ReaderSteps(game.room)
        async with client.websocket(urls["White"]) as white, client.websocket(urls["Black"]) as black:
            steps_per_turn = await reader_steps_per_turn(game, {"White": Socket(white), "Black": Socket(black)}, instrument)
        # The reader runs when the turn's frame comes (decodes it, hands it to the room, waits
        # for the next frame); the room's verdict does not wake it again.
        assert steps_per_turn == [1] * len(steps_per_turn), steps_per_turn
        assert instrument.most_unanswered == 1


async def test_under_hypercorn_a_turn_reaches_the_room_without_waking_the_seats_reader():
    async with booted(Settings(dice_seed_window_ms=0)) as services, served(services) as base:
        game = await friend_game(services)
        urls = {seat: base + seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        instrument = ReaderSteps(game.room)
        async with trio_websocket.open_websocket_url(urls["White"]) as white, \
                trio_websocket.open_websocket_url(urls["Black"]) as black:
            steps_per_turn = await reader_steps_per_turn(game, {"White": Socket(white), "Black": Socket(black)}, instrument)
        # The connection's reading task hands each turn to the room (the reader waits on);
        # the turn was played all the same, with one command of the socket in the room at a time.
        assert steps_per_turn == [0] * len(steps_per_turn), steps_per_turn
        assert instrument.most_unanswered == 1


async def ten_refused_turns_at_once(game, white: Socket, instrument: ReaderSteps) -> None:
    """Ten refused turns sent at once (none is legal, or it is not White's turn): each is a
    Rejected event of the room, in order, and the room never held two of the socket's at once."""
    await trio.testing.wait_all_tasks_blocked()
    trio.lowlevel.add_instrument(instrument)
    sent = [f"a{rank}a{rank}" for rank in range(1, 9)] + ["h1h1", "h2h2"]
    for move in sent:
        await white.send({"SubmitTurn": {"moves": [move]}})
    refusals = [await white.until("Rejected") for _ in sent]
    trio.lowlevel.remove_instrument(instrument)
    versions = [refusal["v"] for refusal in refusals]
    assert versions == list(range(versions[0], versions[0] + len(sent))), versions
    assert all(refusal["seat"] == "White" for refusal in refusals)
    assert [list(intent.command.moves) for intent in instrument.sent] == [[move] for move in sent]
    assert instrument.most_unanswered == 1


async def test_a_seats_commands_reach_the_room_one_at_a_time_in_order():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        client = test_client(services)
        game = await friend_game(services)
        urls = {seat: seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        async with client.websocket(urls["White"]) as white, client.websocket(urls["Black"]):
            await ten_refused_turns_at_once(game, Socket(white), ReaderSteps(game.room))


async def test_under_hypercorn_commands_taken_at_once_and_read_keep_their_order():
    async with booted(Settings(dice_seed_window_ms=0)) as services, served(services) as base:
        game = await friend_game(services)
        urls = {seat: base + seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        async with trio_websocket.open_websocket_url(urls["White"]) as white, \
                trio_websocket.open_websocket_url(urls["Black"]):
            await ten_refused_turns_at_once(game, Socket(white), ReaderSteps(game.room))


def commands_of(game, seat: str | None) -> tuple[SocketCommands, SocketSubscriber, trio.CancelScope]:
    subscriber = SocketSubscriber(seat)
    scope = trio.CancelScope()
    return SocketCommands(game.room, subscriber, scope), subscriber, scope


def queued(subscriber: SocketSubscriber) -> list[str]:
    texts = []
    while True:
        try:
            texts.append(subscriber.events.receive_nowait())
        except trio.WouldBlock:
            return texts


async def test_take_answers_a_spectator_and_a_malformed_frame_at_once():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        game = await friend_game(services)
        watching, spectator, _ = commands_of(game, None)
        assert watching.take('{"Resign": {}}') is True
        assert queued(spectator) == [encode_error("spectators cannot send commands")]
        playing, seat, _ = commands_of(game, "White")
        assert playing.take("not json") is True
        [error] = queued(seat)
        assert "Error" in json.loads(error)
        assert game.room.queued_intents() == 0


async def test_take_declines_what_would_wait_and_hands_a_turn_to_the_room():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        game = await friend_game(services)
        commands, subscriber, scope = commands_of(game, "White")
        # A seed waits for its own answer: the reader takes it.
        assert commands.take(json.dumps({"SubmitSeed": {"seed": "00112233445566778899aabbccddeeff"}})) is False
        assert game.room.queued_intents() == 0
        turn = json.dumps({"SubmitTurn": {"moves": ["a2a3"]}})
        assert commands.take(turn) is True  # to the room, its answer not waited for
        assert commands.previous is not None and not commands.previous.ready
        assert commands.take(turn) is False  # the command before is not answered yet
        await commands.previous.wait()
        # A full queue of the room's: declined, nothing queued (the reader waits for room).
        while True:
            try:
                game.room.send_nowait(Attach(SocketSubscriber(None)))
            except trio.WouldBlock:
                break
        full = game.room.queued_intents()
        assert commands.take(turn) is False
        assert game.room.queued_intents() == full and not queued(subscriber) and not scope.cancel_called


@pytest.mark.parametrize("cancelled", [True, False])
async def test_take_declines_once_the_socket_is_closing_and_closes_it_when_the_room_has_finished(cancelled):
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        game = await friend_game(services)
        commands, _, scope = commands_of(game, "White")
        turn = json.dumps({"SubmitTurn": {"moves": ["a2a3"]}})
        if cancelled:
            scope.cancel()
            assert commands.take(turn) is False and game.room.queued_intents() == 0
        else:
            assert await game.room.send(PlayerCommand("Black", Resign()))
            await game.room.finished.wait()
            assert commands.take(turn) is True and scope.cancel_called
