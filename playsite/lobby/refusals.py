"""Why the lobby said no: one exception type with a stable API code."""

from __future__ import annotations


class LobbyRefusal(Exception):
    """A request the lobby will not carry out; `code` is the Bot API error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
