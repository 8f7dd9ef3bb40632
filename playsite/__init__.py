"""playsite: a server-authoritative dice-chess game server."""
