"""House bots: their turn choice (pure), and their life as ordinary bots: listed, challenged,
playing whole games through the room protocol."""

from __future__ import annotations

import json
import random
import uuid

import trio
from trio.testing import wait_all_tasks_blocked

from playsite.bots.games import Human
from playsite.config import Settings
from playsite.house.players import HOUSE_CAPACITY
from playsite.house.strategy import greedy_turn, material, random_turn
from playsite.rooms.admission import Purpose
from playsite.rooms.intents import PlayerCommand
from playsite.rules import legal_tree, parse_dfen, play_turn
from playsite.wire import Fischer, SubmitTurn
from tests.support.app import booted, test_client
from tests.support.turns import random_turn as any_turn


def test_greedy_takes_the_most_material_and_the_king_above_all():
    # White to move with a 5 (queen): Qd1xd8 wins a rook, Qd1xh5 only a knight.
    start = parse_dfen("3r3k/8/8/7n/8/8/8/3QK3 w - - 0 1").with_dice((5,))
    tree = legal_tree(start)
    moves = greedy_turn(start, tree, random.Random(1))
    after = play_turn(start, moves).after
    assert moves == ["d1d8"] and material(after, False) == 3
    # With the king in reach, it takes the king whatever else is on offer (a rook on a1 too).
    king = parse_dfen("7k/8/8/8/3Q4/8/8/r6K w - - 0 1").with_dice((5,))
    choice = greedy_turn(king, legal_tree(king), random.Random(3))
    assert play_turn(king, choice).end is not None, "capturing the king ends the game"


def test_both_strategies_always_play_legal_turns():
    rng = random.Random(5)
    for seed in range(30):
        board = parse_dfen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(3)))
        rolled = board.with_dice(dice)
        tree = legal_tree(rolled)
        for turn in (random_turn(tree, random.Random(seed)), greedy_turn(rolled, tree, random.Random(seed))):
            play_turn(rolled, turn)  # raises IllegalTurn otherwise


async def test_house_bots_are_in_the_catalog(autojump_clock):
    async with booted(Settings(), house=True) as services:
        body = await (await test_client(services).get("/lobby/bots")).get_json()
        house = [card for card in body["bots"] if card["team"] == "house"]
        assert [card["name"] for card in house] == ["greedy", "random"]
        assert all(card["available"] for card in house)
        assert services.bots.get("house/greedy").max_concurrent_games == HOUSE_CAPACITY


async def play_as_human(room, seat: str, rng: random.Random) -> None:
    """A person's seat playing random legal turns until the game ends."""
    while not room.ended:
        view = room.published
        if view.state.dice_pending and view.state.active_seat == seat and view.tree is not None:
            intent = PlayerCommand(seat, SubmitTurn(any_turn(view.tree, rng)))
            await room.send(intent)
            await intent.reply.wait()
        await wait_all_tasks_blocked()
        await trio.sleep(0.01)


async def test_a_person_plays_a_whole_game_against_each_house_bot(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0), house=True) as services:
        for name in ("random", "greedy"):
            bot = services.bots.get(f"house/{name}")
            game = await services.bot_games.start(
                white=Human(f"guest:{uuid.uuid4()}"), black=bot, time_control=Fischer(600, 5), rated=False, origin="lobby"
            )
            room = game.room
            with trio.fail_after(3600):
                await play_as_human(room, "White", random.Random(7))
            assert room.ending is not None and room.ending.termination.value != "aborted"
            assert any(turn.seat == "Black" and turn.moves for turn in room.game.history), f"house/{name} played"


async def test_a_challenge_to_a_house_bot_is_accepted_at_once_and_played(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0), house=True) as services:
        client = test_client(services)
        me = await (await client.post("/bot/register", json={"team": "guests", "name": "visitor"})).get_json()
        auth = {"Authorization": f"Bearer {me['token']}"}
        created = await client.post("/bot/challenge", json={"team": "house", "name": "greedy"}, headers=auth)
        assert created.status_code == 201, await created.get_data(as_text=True)
        await wait_all_tasks_blocked()
        # Live, or already over: with dice a game can end before anyone waits (one seat's
        # rolls without a legal move while the other captures the king, about 1 run in 600).
        games = [*services.registry.live.values(), *services.registry.finished.values()]
        assert len(games) == 1
        room = games[0]
        assert {state.principal for state in room.game.seats.values()} == {"bot:guests/visitor", "bot:house/greedy"}
        pending = await (await client.get("/bot/challenges", headers=auth)).get_json()
        assert json.dumps(pending).count("challenge-") == 0, "the challenge is settled"


async def test_a_house_bot_at_capacity_declines_instead_of_leaving_the_challenger_waiting(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0), house=True) as services:
        client = test_client(services)
        me = await (await client.post("/bot/register", json={"team": "guests", "name": "busy"})).get_json()
        auth = {"Authorization": f"Bearer {me['token']}"}
        bot = services.bots.get("house/random")
        held = [services.registry.admission.reserve(Purpose.GENERAL, [bot.principal]) for _ in range(HOUSE_CAPACITY)]
        created = await (await client.post("/bot/challenge", json={"team": "house", "name": "random"}, headers=auth)).get_json()
        await wait_all_tasks_blocked()
        mine = await (await client.get("/bot/challenges", headers=auth)).get_json()
        assert created["id"] not in json.dumps(mine), "declined, not left pending"
        assert not services.registry.live
        for reservation in held:
            reservation.release()
