"""Who is rated: only accounts and bots. A game asked to be rated turns casual the moment a
guest takes a seat, the public state says so, and its results row is casual."""

from __future__ import annotations

import json

import pytest

from playsite.rooms.admission import Purpose
from playsite.rooms.intents import Rebind
from playsite.rooms.model import effective_rated
from playsite.store.memory import MemoryStore
from playsite.wire import Resign
from tests.support.rooms import command, room_setup, running_registry

USER_A = "user:6f1c1a52-2a4e-4a3e-9d0e-0f3a8e1b2c01"
USER_B = "user:6f1c1a52-2a4e-4a3e-9d0e-0f3a8e1b2c02"
GUEST = "guest:6f1c1a52-2a4e-4a3e-9d0e-0f3a8e1b2c03"
BOT = "bot:red/ant"


@pytest.mark.parametrize(
    ("white", "black", "while_playing", "at_the_end"),
    [
        (USER_A, USER_B, True, True),
        (USER_A, BOT, True, True),
        (BOT, "bot:red/bee", True, True),
        (BOT, BOT, False, False),  # against itself: never rated
        (USER_A, USER_A, False, False),
        (USER_A, GUEST, False, False),
        (GUEST, GUEST, False, False),
        (USER_A, None, True, False),  # a seat never taken: casual at the end
        (None, None, True, False),
    ],
)
def test_effective_rated(white, black, while_playing, at_the_end):
    principals = {"White": white, "Black": black}
    assert effective_rated(True, principals, ended=False) is while_playing
    assert effective_rated(True, principals, ended=True) is at_the_end
    assert not effective_rated(False, principals, ended=False) and not effective_rated(False, principals, ended=True)


async def take(room, seat, principal, name=None) -> bool:
    intent = Rebind(seat, principal, name)
    assert await room.send(intent)
    return await intent.reply.wait()


def public(room) -> dict:
    return json.loads(room.state_text())


async def test_a_guest_taking_a_seat_makes_the_game_casual_at_once_and_in_its_results(autojump_clock):
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(rated=True), Purpose.GENERAL, ())
        assert public(room)["rated"] is True
        assert await take(room, "White", USER_A, "alice")
        assert public(room)["rated"] is True
        assert public(room)["players"]["white"] == {"kind": "Human", "name": "alice"}
        assert await take(room, "Black", GUEST)
        assert public(room)["rated"] is False
        assert public(room)["players"]["black"] == {"kind": "Human", "name": None}
        await command(room, "White", Resign())
        await room.finished.wait()
    assert store.results[room.game_id].rated is False
    assert json.loads(store.archive[room.game_id])["rated"] is False


async def test_two_accounts_keep_the_game_rated_and_names_never_reach_the_archive(autojump_clock):
    store = MemoryStore()
    async with running_registry(store=store) as registry:
        room = await registry.create(room_setup(rated=True), Purpose.GENERAL, ())
        assert await take(room, "White", USER_A, "alice")
        assert await take(room, "Black", USER_B, "bob")
        assert not await take(room, "Black", GUEST), "a guest never takes an account's seat"
        assert await take(room, "Black", USER_B, "bobby"), "the owner reconnects; a renamed account shows its new name"
        assert public(room)["players"]["black"]["name"] == "bobby"
        await command(room, "Black", Resign())
        await room.finished.wait()
    row = store.results[room.game_id]
    assert row.rated is True and (row.white_principal, row.black_principal) == (USER_A, USER_B)
    text = store.archive[room.game_id]
    assert json.loads(text)["rated"] is True
    assert "alice" not in text and "bobby" not in text and USER_A not in text, "history holds no account name or id"


async def test_an_unrated_game_stays_unrated(autojump_clock):
    async with running_registry() as registry:
        room = await registry.create(room_setup(rated=False), Purpose.GENERAL, ())
        assert await take(room, "White", USER_A)
        assert public(room)["rated"] is False
