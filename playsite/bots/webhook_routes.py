"""Webhook registration routes: /bot/webhook and /bot/webhook/stats."""

from __future__ import annotations

from quart import Blueprint


def webhook_routes(services) -> Blueprint:
    return Blueprint("webhook_routes", __name__)
