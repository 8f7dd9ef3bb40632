"""A seat's commands through the game socket's route (games/socket_routes.py): one command of
a socket in the room at a time, and the room's answer to a turn wakes no task (it is looked at
when the seat's next frame comes), where waiting for it cost a trip round the event loop at
every turn. An ignored seed is still answered on its socket (tests/e2e/test_live_game.py)."""

from __future__ import annotations

import json
import random
import uuid

import trio
import trio.testing

from playsite.config import Settings
from playsite.rooms.intents import PlayerCommand
from tests.support.app import booted, friend_game, seat_path, test_client
from tests.support.turns import king_sparing_turn

READER = "socket_routes._read_commands"


class ReaderSteps(trio.abc.Instrument):
    """How often a seat socket's command reader ran, and the most commands the room had been
    sent and not yet answered, seen between any two task steps."""

    def __init__(self, room) -> None:
        self.steps = 0
        self.sent: list = []
        self.most_unanswered = 0
        send = room.send

        async def recording_send(intent) -> bool:
            if isinstance(intent, PlayerCommand):
                self.sent.append(intent)
            return await send(intent)

        room.send = recording_send

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.name.endswith(READER):
            self.steps += 1
        unanswered = sum(1 for intent in self.sent if not intent.reply.ready)
        self.most_unanswered = max(self.most_unanswered, unanswered)


async def frames_until(ws, kind: str, where=lambda body: True) -> dict:
    while True:
        frame = json.loads(await ws.receive())
        if kind in frame and where(frame[kind]):
            return frame[kind]


async def test_a_turn_wakes_the_seats_reader_once_and_the_rooms_answer_wakes_no_task():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        client = test_client(services)
        game = await friend_game(services)
        urls = {seat: seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        rng = random.Random(3)
        instrument = ReaderSteps(game.room)
        async with client.websocket(urls["White"]) as white, client.websocket(urls["Black"]) as black:
            sockets = {"White": white, "Black": black}
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
                await sockets[seat].send(json.dumps({"SubmitTurn": {"moves": moves}}))
                played = await frames_until(sockets[seat], "TurnPlayed", lambda body: body["v"] > view.version)
                assert played["moves"] == moves
                await trio.testing.wait_all_tasks_blocked()
                trio.lowlevel.remove_instrument(instrument)
                steps_per_turn.append(instrument.steps)
        assert len(steps_per_turn) >= 3, steps_per_turn
        # The reader runs when the turn's frame comes (decodes it, hands it to the room, waits
        # for the next frame); the room's verdict does not wake it again.
        assert steps_per_turn == [1] * len(steps_per_turn), steps_per_turn
        assert instrument.most_unanswered == 1


async def test_a_seats_commands_reach_the_room_one_at_a_time_in_order():
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        client = test_client(services)
        game = await friend_game(services)
        urls = {seat: seat_path(game, seat, uuid.uuid4()) for seat in ("White", "Black")}
        instrument = ReaderSteps(game.room)
        async with client.websocket(urls["White"]) as white, client.websocket(urls["Black"]):
            await trio.testing.wait_all_tasks_blocked()
            trio.lowlevel.add_instrument(instrument)
            # Ten refused turns sent at once (none is legal, or it is not White's turn): each is
            # a Rejected event of the room, and the room never held two of this socket's at once.
            sent = [f"a{rank}a{rank}" for rank in range(1, 9)] + ["h1h1", "h2h2"]
            for move in sent:
                await white.send(json.dumps({"SubmitTurn": {"moves": [move]}}))
            refusals = [await frames_until(white, "Rejected") for _ in sent]
            trio.lowlevel.remove_instrument(instrument)
        versions = [refusal["v"] for refusal in refusals]
        assert versions == list(range(versions[0], versions[0] + len(sent))), versions
        assert all(refusal["seat"] == "White" for refusal in refusals)
        assert len(instrument.sent) == len(sent) and instrument.most_unanswered == 1
