"""Bot identity routes: /bot/anon, /bot/register, /bot/token, /bot/account, capacity, ladder, open-to-humans."""

from __future__ import annotations

from quart import Blueprint


def identity_routes(services) -> Blueprint:
    return Blueprint("identity_routes", __name__)
