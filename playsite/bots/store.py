"""Where registered bots are kept: twins for the memory and the PostgreSQL deployments.

Anonymous bots are never stored. `save` inserts a new registration (`created=True`,
refused with `identity_taken` when the team/name exists) or updates one's settings;
`replace_token` alone changes a registered bot's token, and only the one it is told it replaces.
"""

from __future__ import annotations

import copy

import psycopg

from playsite.bots.directory import BotAccount, BotStore, IdentityError
from playsite.store.database import Database


class MemoryBotStore:
    def __init__(self) -> None:
        self.accounts: dict[str, BotAccount] = {}

    async def load(self) -> list[BotAccount]:
        return [copy.copy(account) for account in self.accounts.values()]

    async def save(self, account: BotAccount, *, created: bool = False) -> None:
        if created and account.id in self.accounts:
            raise IdentityError("identity_taken", f"{account.id} is already registered")
        stored = self.accounts.get(account.id)
        self.accounts[account.id] = copy.copy(account)
        if stored is not None and not created:  # the settings only, as PostgreSQL's twin
            self.accounts[account.id].token_hash = stored.token_hash

    async def replace_token(self, bot_id: str, old: bytes, new: bytes) -> bool:
        stored = self.accounts.get(bot_id)
        if stored is None or stored.token_hash != old:
            return False
        stored.token_hash = new
        return True

    async def stored(self, bot_id: str) -> BotAccount | None:
        found = self.accounts.get(bot_id)
        return None if found is None else copy.copy(found)


class PostgresBotStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def load(self) -> list[BotAccount]:
        rows = await self.database.run(
            lambda conn: conn.execute(f"SELECT {_COLUMNS} FROM bots ORDER BY created_at").fetchall()
        )
        return [_account(row) for row in rows]

    async def stored(self, bot_id: str) -> BotAccount | None:
        row = await self.database.run(
            lambda conn: conn.execute(f"SELECT {_COLUMNS} FROM bots WHERE id = %s", (bot_id,)).fetchone()
        )
        return None if row is None else _account(row)

    async def save(self, account: BotAccount, *, created: bool = False) -> None:
        values = {
            "id": account.id,
            "team": account.team,
            "name": account.name,
            "token_hash": account.token_hash,
            "capacity": account.max_concurrent_games,
            "on_ladder": account.on_ladder,
            "open": account.open_to_humans,
            "description": account.description,
        }
        if created:
            statement = (
                "INSERT INTO bots (id, team, name, token_hash, max_concurrent_games, on_ladder,"
                " open_to_humans, description) VALUES (%(id)s, %(team)s, %(name)s, %(token_hash)s,"
                " %(capacity)s, %(on_ladder)s, %(open)s, %(description)s)"
            )
        else:
            # the settings only: a token is replaced by `replace_token` alone, so a settings write
            # racing a token's replacement (its owner's, docs/webhook-management.md) never
            # writes the old digest back
            statement = (
                "UPDATE bots SET max_concurrent_games = %(capacity)s,"
                " on_ladder = %(on_ladder)s, open_to_humans = %(open)s, description = %(description)s"
                " WHERE id = %(id)s"
            )
        try:
            await self.database.run(lambda conn: conn.execute(statement, values))
        except psycopg.errors.UniqueViolation:
            raise IdentityError("identity_taken", f"{account.id} is already registered") from None

    async def replace_token(self, bot_id: str, old: bytes, new: bytes) -> bool:
        statement = "UPDATE bots SET token_hash = %s WHERE id = %s AND token_hash = %s"
        return await self.database.run(lambda conn: conn.execute(statement, (new, bot_id, old)).rowcount == 1)


_COLUMNS = "team, name, token_hash, max_concurrent_games, on_ladder, open_to_humans, description, created_at"


def _account(row: tuple) -> BotAccount:
    team, name, token_hash, capacity, on_ladder, open_to_humans, description, created_at = row
    return BotAccount(
        team=team,
        name=name,
        token_hash=bytes(token_hash),
        registered=True,
        max_concurrent_games=capacity,
        on_ladder=on_ladder,
        open_to_humans=open_to_humans,
        description=description,
        created_at=created_at,
    )


def bot_store_for(database: Database | None) -> BotStore:
    """PostgreSQL beside a PostgreSQL game store; memory otherwise."""
    return MemoryBotStore() if database is None else PostgresBotStore(database)
