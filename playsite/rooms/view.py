"""What the public may see of a room: its last committed version, frozen.

Reads (GET /games/{id}, /moves, Snapshots for new subscribers, webhook state, who sits
where, whose turn it is) never look at a room's working state, which runs ahead of the
store while a version is being written: a read during a failing write must not show dice
that may never have happened, nor a seed revealed by an ending that has not committed.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import orjson

from playsite.rooms.clock import GameClock
from playsite.rooms.model import RoomPhase
from playsite.rooms.trees import PackedTree
from playsite.rules import parse_dfen
from playsite.wire import (
    Clocks,
    HistoryTurn,
    MoveTree,
    PublicGameState,
    Seat,
    Snapshot,
    encode_clocks,
    encode_event,
    encode_public_game_state,
)
from playsite.wire.text import compact_json


@attrs.frozen
class Turn:
    """Whose turn it is, and what the room waits for from that seat."""

    seat: Seat
    """The seat to move."""
    phase: RoomPhase

    def awaits_turn_from(self, seat: Seat) -> bool:
        """The dice of `seat` are rolled and the room waits for its turn."""
        return self.phase is RoomPhase.PLAYING and self.seat == seat

    def awaits_draw_answer_from(self, seat: Seat) -> bool:
        """A draw offer waits for the answer of `seat`."""
        return self.phase is RoomPhase.DRAW_ANSWER and self.seat == seat


@attrs.frozen
class PublicView:
    """A committed version as the public reads it. Its clocks are read when it is read: a
    Snapshot sent, or a state served, seconds after the version was published carries what each
    side has left then (wire.md), not what it had at the version."""

    state: PublicGameState
    """The state as it was published (its clocks as they stood then: `state_at` reads them now)."""
    history: tuple[HistoryTurn, ...]
    packed: PackedTree | None
    """The full tree of the pending roll (the state may inline it, or not when it is large)."""
    turn: Turn
    principals: Mapping[Seat, str | None]
    """Seat -> who sits there, once known."""
    running: GameClock | None = None
    """A copy of the game's clock while one side's runs, to read the clocks at any later time."""
    _texts: dict[str, str] = attrs.field(factory=dict, eq=False, repr=False)
    _timed: dict[str, tuple[str, str]] = attrs.field(factory=dict, eq=False, repr=False)

    @property
    def version(self) -> int:
        return self.state.version

    def clocks_at(self, now: float) -> Clocks | None:
        """Both clocks as they stand at trio time `now` (the running one counted down)."""
        return self.state.clocks if self.running is None else self.running.read(now)

    def state_at(self, now: float) -> PublicGameState:
        """The public state with its clocks read at `now`."""
        return self.state if self.running is None else attrs.evolve(self.state, clocks=self.running.read(now))

    def seats_of(self, principal: str) -> tuple[Seat, ...]:
        """The seats `principal` holds (both, in a game against itself)."""
        return tuple(seat for seat, holder in self.principals.items() if holder == principal)

    def state_text(self, now: float) -> str:
        """The public state as JSON at trio time `now`, encoded once."""
        if "state" not in self._texts:
            self._texts["state"] = compact_json(encode_public_game_state(self.state))
        return self._at(now, "state")

    def snapshot_text(self, now: float, *, spectator: bool = False) -> str:
        """The Snapshot a new subscriber starts from (full history) at trio time `now`, encoded
        once per audience: a spectator's leaves the legal-move tree out (`legalMoves: null`)."""
        key = "spectator" if spectator and self.state.legal_moves else "snapshot"
        if key not in self._texts:
            state = attrs.evolve(self.state, legal_moves=None) if key == "spectator" else self.state
            self._texts[key] = encode_event(Snapshot(v=self.version, state=state, history=self.history))
        return self._at(now, key)

    def _at(self, now: float, key: str) -> str:
        """The text encoded under `key` with the clocks of `now` in place of the published ones.
        The text is cut once around its clocks: `"clocks":` occurs once in it, as the state's key
        (a JSON string cannot hold the unescaped quotes that spell it)."""
        text = self._texts[key]
        if self.running is None:
            return text
        parts = self._timed.get(key)
        if parts is None:
            published = '"clocks":' + compact_json(encode_clocks(self.state.clocks))
            head, found, tail = text.partition(published)
            assert found, f"no clocks in the {key} text"
            parts = self._timed[key] = (head + '"clocks":', tail)
        head, tail = parts
        return head + compact_json(encode_clocks(self.running.read(now))) + tail

    @property
    def tree(self) -> MoveTree | None:
        """The tree of the pending roll (a new copy at each read)."""
        return None if self.packed is None else self.packed.tree(parse_dfen(self.state.dfen))

    def moves_text(self) -> str:
        """GET /games/{id}/moves: the whole tree of the pending roll, never capped, encoded once."""
        if "moves" not in self._texts:
            self._texts["moves"] = compact_json({
                "version": self.version,
                "dfen": self.state.dfen,
                "dicePending": self.state.dice_pending,
                "legalMoves": orjson.Fragment(self.packed.json(parse_dfen(self.state.dfen))) if self.packed is not None else {},
            })
        return self._texts["moves"]
