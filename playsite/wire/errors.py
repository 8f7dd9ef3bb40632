"""The one error type of the wire codecs."""

from __future__ import annotations


class WireError(ValueError):
    """A value that does not have the shape the wire protocol requires.

    `reason` names the offending field by its JSON path (``SubmitTurn.moves[2]``) and says what
    was wrong with it, in words that can be shown to the client that sent it (it goes out
    verbatim in the `Error` frame).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
