"""A seat's commands through the game socket (games/socket_commands.py): one command of a
socket in the room at a time, and the room's answer to a turn wakes no task (it is looked at
when the seat's next frame comes), where waiting for it cost a trip round the event loop at
every turn. Under hypercorn (the server's own set-up) a turn that comes while the reader waits
is handed to the room by the connection's reading task, and wakes the reader not at all. An
ignored seed is still answered on its socket (tests/e2e/test_live_game.py). Every frame is
paced (games/socket_limits.py's FramePace): a burst at once, then so many a second; a frame
beyond waits, in order, and is never refused."""

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
from playsite.games.socket_limits import SocketLimits
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
    return SocketCommands(game.room, subscriber, scope, limits(rate=20, burst=40).pace()), subscriber, scope


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


# ----- the pace --------------------------------------------------------------------------


def limits(rate: float, burst: int) -> SocketLimits:
    return SocketLimits(
        per_address=10, spectators_per_game=10, spectators_per_address=10, frames_per_second=rate, frame_burst=burst
    )


async def test_a_burst_at_once_then_one_frame_per_period_and_an_idle_socket_earns_back_only_its_burst(autojump_clock):
    sockets = limits(rate=10, burst=3)
    pace = sockets.pace()
    start = trio.current_time()
    assert [pace.take_now() for _ in range(4)] == [True, True, True, False]
    await pace.take()  # the fourth frame waits for its tenth of a second
    assert trio.current_time() - start == 0.1
    await pace.take()
    assert round(trio.current_time() - start, 9) == 0.2
    assert sockets.frames_paced == 2
    await trio.sleep(60)  # a long quiet spell earns the burst back, and no more
    assert [pace.take_now() for _ in range(4)] == [True, True, True, False]


async def test_a_seat_sending_refused_turns_faster_than_its_pace_gets_each_in_order_at_its_time(autojump_clock):
    settings = Settings(dice_seed_window_ms=0, socket_frames_per_second=2, socket_frame_burst=4, metrics_token="m" * 20)
    async with booted(settings) as services:
        client = test_client(services)
        game = await friend_game(services)
        urls = {seat: seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        async with client.websocket(urls["White"]) as ws, client.websocket(urls["Black"]):
            white = Socket(ws)
            await trio.testing.wait_all_tasks_blocked()
            start = trio.current_time()
            sent = [f"a{rank}a{rank}" for rank in range(1, 9)]  # none is a legal turn
            for move in sent:
                await white.send({"SubmitTurn": {"moves": [move]}})
            refused_at = []
            for _ in sent:
                await white.until("Rejected")
                refused_at.append(trio.current_time() - start)
        # The burst of four at once, then one every half second; each a Rejected of the room.
        assert refused_at[:4] == [0, 0, 0, 0]
        assert refused_at[4:] == [0.5, 1.0, 1.5, 2.0]
        assert services.sockets.frames_paced == 4
        metrics = await client.get("/metrics", headers={"Authorization": "Bearer " + "m" * 20})
        assert "playsite_game_socket_frames_paced_total 4.0" in (await metrics.get_data(as_text=True))


async def test_under_hypercorn_paced_frames_reach_the_room_in_order_and_no_sooner_than_their_pace():
    # The real clock: only the lower bound is asserted (a pace can make a frame late, never early).
    settings = Settings(dice_seed_window_ms=0, socket_frames_per_second=20, socket_frame_burst=2)
    async with booted(settings) as services, served(services) as base:
        game = await friend_game(services)
        urls = {seat: base + seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        async with trio_websocket.open_websocket_url(urls["White"]) as ws, trio_websocket.open_websocket_url(urls["Black"]):
            white = Socket(ws)
            await white.until("Snapshot")
            start = trio.current_time()
            sent = [f"h{rank}h{rank}" for rank in range(1, 9)]
            for move in sent:
                await white.send({"SubmitTurn": {"moves": [move]}})
            refusals = [await white.until("Rejected") for _ in sent]
            elapsed = trio.current_time() - start
        versions = [refusal["v"] for refusal in refusals]
        assert versions == list(range(versions[0], versions[0] + len(sent)))
        assert elapsed >= (len(sent) - 2) / 20
        assert services.sockets.frames_paced >= 1


async def test_a_frame_take_paid_for_and_declined_is_not_paid_for_again_by_the_reader(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        game = await friend_game(services)
        subscriber = SocketSubscriber("White")
        scope = trio.CancelScope()
        sockets = limits(rate=0.001, burst=1)  # a second frame would wait 1,000 s
        commands = SocketCommands(game.room, subscriber, scope, sockets.pace())
        seed = json.dumps({"SubmitSeed": {"seed": "00112233445566778899aabbccddeeff"}})
        assert commands.take(seed) is False  # a seed waits for its answer: the reader's, already paid
        frames = [seed]

        async def receive() -> str:
            if frames:
                return frames.pop()
            await trio.sleep_forever()
            raise AssertionError

        sent = []
        send = game.room.send

        async def recording_send(intent) -> bool:
            sent.append(intent)
            return await send(intent)

        game.room.send = recording_send
        with trio.move_on_after(10):
            await commands.read(receive)
        # The reader handed the seed to the room and had its answer, without waiting for a pace.
        [intent] = sent
        assert intent.reply.ready and sockets.frames_paced == 0
