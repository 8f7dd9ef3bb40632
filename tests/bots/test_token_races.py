"""Two replacements of a bot's token at once (the Bot API's rotation twice, or a rotation and
its owner's new token), in memory and in PostgreSQL: whichever is stored last is the token
that opens the bot, here and in the store, and a rotation whose token was replaced first is
refused and changes nothing."""

from __future__ import annotations

import pytest
import trio

from playsite.bots.directory import BotDirectory, TokenReplaced
from playsite.bots.store import MemoryBotStore, PostgresBotStore
from playsite.tokens import digest, new_token
from tests.support.database import migrate, opened_database, sql


class Paused:
    """A bot store whose token writes stop `where` ("before" or "after" the write) until `go`;
    `reached` counts the writes that stopped there."""

    def __init__(self, inner, where: str):
        self.inner, self.where = inner, where
        self.reached = 0
        self.go = trio.Event()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def replace_token(self, bot_id: str, old: bytes, new: bytes) -> bool:
        if self.where == "before":
            await self.stop()
        replaced = await self.inner.replace_token(bot_id, old, new)
        if self.where == "after":
            await self.stop()
        return replaced

    async def stop(self) -> None:
        self.reached += 1
        await self.go.wait()


@pytest.fixture(params=["memory", "postgres"])
async def store(request):
    if request.param == "memory":
        yield MemoryBotStore()
        return
    url = migrate(request.getfixturevalue("database_url"))
    sql(url, "DELETE FROM bots WHERE team = 'race'")
    async with opened_database(url, pool_size=2) as database:
        yield PostgresBotStore(database)


async def owner_replaces(store, directory: BotDirectory, bot_id: str) -> str:
    """What an owner's new token does (WebhookManagement.new_token): the store's digest replaced
    whatever it was, then this process told."""
    token, token_hash = new_token()
    if isinstance(store, MemoryBotStore):
        store.accounts[bot_id].token_hash = token_hash
    else:
        await store.database.run(
            lambda conn: conn.execute("UPDATE bots SET token_hash = %s WHERE id = %s", (token_hash, bot_id))
        )
    directory.token_replaced(bot_id, token_hash)
    return token


async def until(condition) -> None:
    with trio.fail_after(10):
        while not condition():
            await trio.sleep(0.005)  # the PostgreSQL store answers from a worker thread: real time


async def agree(store, directory: BotDirectory, bot_id: str, token: str, *dead: str) -> None:
    assert directory.authenticate(token) is directory.get(bot_id)
    assert (await store.stored(bot_id)).token_hash == digest(token)
    for old in dead:
        assert directory.authenticate(old) is None


async def rotations_at_once(store, where: str, name: str, count: int = 1, meanwhile=None):
    """`count` rotations of a new bot's token at once, each stopped `where` ("before" or "after")
    its write until `meanwhile(directory, bot id)` has run (an owner's new token, say): the
    directory, the bot's id, its first token, the tokens the rotations were answered with, how
    many were refused with `TokenReplaced`, and what `meanwhile` answered."""
    paused = Paused(store, where)
    directory = BotDirectory(paused)
    account, token = await directory.register("race", name)
    rotated: list[str] = []
    refused: list[TokenReplaced] = []

    async def rotate() -> None:
        try:
            rotated.append(await directory.rotate_token(account))
        except TokenReplaced as error:
            refused.append(error)

    async with trio.open_nursery() as nursery:
        for _ in range(count):
            nursery.start_soon(rotate)
        await until(lambda: paused.reached == count)
        answered = None if meanwhile is None else await meanwhile(directory, account.id)
        paused.go.set()
    return directory, account.id, token, rotated, len(refused), answered


async def test_a_rotation_whose_token_the_owner_replaced_first_is_refused(store):
    directory, bot_id, token, rotated, refused, owners = await rotations_at_once(
        store, "before", "first", meanwhile=lambda directory, bot_id: owner_replaces(store, directory, bot_id))
    assert (rotated, refused) == ([], 1)
    await agree(store, directory, bot_id, owners, token)


async def test_an_owner_s_token_stored_after_a_rotation_s_stays_though_the_rotation_ends_later(store):
    """The rotation's write lands, the owner's after it, and the rotation's process then takes
    up its own: the owner's token opens the bot, the rotation's does not."""
    directory, bot_id, token, rotated, refused, owners = await rotations_at_once(
        store, "after", "second", meanwhile=lambda directory, bot_id: owner_replaces(store, directory, bot_id))
    assert (len(rotated), refused) == (1, 0)
    await agree(store, directory, bot_id, owners, token, rotated[0])


async def test_two_rotations_at_once_one_is_stored_and_the_other_refused(store):
    directory, bot_id, token, rotated, refused, _ = await rotations_at_once(store, "before", "third", count=2)
    assert (len(rotated), refused) == (1, 1)
    await agree(store, directory, bot_id, rotated[0], token)
