"""The Store protocol every implementation satisfies, and the values it speaks in."""

from __future__ import annotations

from typing import Protocol

import attrs


@attrs.frozen
class StoreHealth:
    kind: str
    durable: bool
    reachable: bool
    detail: str | None = None


class Store(Protocol):
    kind: str
    durable: bool
    """Whether a committed write survives a crash; required-durability rooms refuse stores without it."""

    async def health(self) -> StoreHealth: ...
