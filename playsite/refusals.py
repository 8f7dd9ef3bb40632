"""How a domain says no, without speaking HTTP.

A domain module (lobby, rematch, accounts, ...) raises `Refused(code, message[, state])`: a
stable machine code from its own vocabulary, a sentence for people, and optionally the
state the refusal refers to. It never chooses an HTTP status: each route family owns a table
from its codes to statuses (`RouteFamily(..., statuses=...)` in playsite/http/errors.py), and
the edge renders the refusal in that family's error shape. An in-process caller (the house
bots, the demo league) catches `Refused` and reads the code. Imports nothing from playsite.
"""

from __future__ import annotations

from collections.abc import Mapping

READ_TIMEOUT_S = 3
"""How long a request waits on a read of the store: past it, the read is refused
`temporarily_unavailable` (a store that does not answer is unavailable, not broken)."""


class Refused(Exception):
    """A domain's refusal: `code` (stable, snake_case), `message` (a sentence), `state` (what
    the caller may see of the current state, when the family's error shape carries it)."""

    def __init__(self, code: str, message: str | None = None, state: Mapping[str, object] | None = None):
        super().__init__(message or code.replace("_", " "))
        self.code = code
        self.message = message or code.replace("_", " ")
        self.state = state
