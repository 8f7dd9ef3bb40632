"""Hypothesis strategies for every wire value (valid by construction)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import strategies as st

from playsite import wire
from playsite.wire.time_control import (
    INCREMENT_SECONDS_MAX,
    INCREMENT_SECONDS_MIN,
    INITIAL_SECONDS_MAX,
    INITIAL_SECONDS_MIN,
    SECONDS_PER_MOVE_MAX,
    SECONDS_PER_MOVE_MIN,
)

MAX_SAFE = 2**53 - 1

seats = st.sampled_from(wire.SEATS)
counters = st.integers(0, MAX_SAFE)
versions = st.integers(0, 10_000) | counters
dice = st.tuples(*[st.integers(1, 6)] * 3)
uci_moves = st.from_regex(r"[a-h][1-8][a-h][1-8][qrbn]?", fullmatch=True)
turn_moves = st.lists(uci_moves, max_size=wire.MAX_TURN_MOVES).map(tuple)
digests = st.binary(min_size=32, max_size=32).map(bytes.hex)
texts = st.text(max_size=60)  # includes newlines, quotes and non-ASCII, never lone surrogates
timestamps = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.isoformat().replace("+00:00", "Z"))

initial_seconds = st.integers(INITIAL_SECONDS_MIN, INITIAL_SECONDS_MAX)
time_controls = st.one_of(
    st.builds(wire.Fischer, initial_seconds, st.integers(INCREMENT_SECONDS_MIN, INCREMENT_SECONDS_MAX)),
    st.builds(wire.SuddenDeath, initial_seconds),
    st.builds(wire.PerMove, st.integers(SECONDS_PER_MOVE_MIN, SECONDS_PER_MOVE_MAX)),
    st.just(wire.Unlimited()),
)
clocks = st.none() | st.builds(wire.Clocks, counters, counters)
client_seeds = st.builds(wire.ClientSeedsView, texts, texts)
faces = st.builds(wire.PublicFace, st.sampled_from(["Bot", "Human"]), st.none() | texts)
players = st.builds(wire.Players, faces, faces)


def _trees(depth: int):
    if depth == 0:
        return st.just({})
    return st.dictionaries(uci_moves, _trees(depth - 1), max_size=3)


move_trees = st.integers(0, 3).flatmap(_trees)

overs = st.one_of(
    st.builds(
        wire.Over,
        st.builds(wire.Win, seats),
        st.sampled_from([wire.KING_CAPTURED, wire.RESIGN, wire.TIMEOUT]),
    ),
    st.just(wire.Over(wire.Draw(), wire.DRAW)),
    st.just(wire.Over(None, wire.ABORTED)),
)
statuses = st.just(wire.Active()) | st.builds(wire.Ended, overs)
rematch_markers = st.none() | st.one_of(
    st.builds(wire.RematchStartup, st.just("awaiting_joins"), timestamps),
    st.builds(wire.RematchStartup, st.sampled_from(["active", "aborted"])),
)


@st.composite
def public_game_states(draw) -> wire.PublicGameState:
    status = draw(statuses)
    ended = isinstance(status, wire.Ended)
    return wire.PublicGameState(
        version=draw(versions),
        dfen=draw(texts),
        active_seat=draw(seats),
        dice_pending=draw(st.booleans()),
        status=status,
        time_control=draw(time_controls),
        clocks=draw(clocks),
        commit=draw(digests),
        seed=draw(digests) if ended else None,
        client_seeds=draw(client_seeds) if ended else None,
        legal_moves=draw(st.none() | move_trees),
        players=draw(st.none() | players),
        rematch_startup=draw(rematch_markers),
    )


history_turns = st.builds(wire.HistoryTurn, seats, dice, turn_moves, texts)

events = st.one_of(
    st.builds(wire.Snapshot, versions, public_game_states(), st.lists(history_turns, max_size=4).map(tuple)),
    st.builds(wire.DiceRolled, versions, seats, dice, texts, clocks, st.none() | move_trees),
    st.builds(wire.TurnPlayed, versions, seats, turn_moves, texts, st.booleans()),
    st.builds(wire.DrawDeclined, versions, seats),
    st.builds(wire.GameEnded, versions, overs, digests, client_seeds),
    st.builds(wire.Rejected, versions, seats, texts),
)

commands = st.one_of(
    st.builds(wire.SubmitTurn, turn_moves, st.booleans()),
    st.builds(wire.SubmitSeed, st.text(max_size=300)),
    st.just(wire.Resign()),
    st.builds(wire.AnswerDraw, st.booleans()),
)


aborts = st.one_of(
    st.builds(wire.Abort, st.sampled_from(["first_move", "resign", "timeout", "disconnect"]), seats),
    st.just(wire.Abort("both_away")),
    st.builds(wire.Abort, st.just("not_joined"), st.none() | seats),
)
"""Every cause of a players' abort, each with the seats it may name."""


@st.composite
def history_records(draw) -> wire.HistoryRecord:
    termination = draw(st.sampled_from(wire.ARCHIVE_TERMINATIONS))
    result = 0 if termination in ("draw_agreement", "no_progress", "aborted") else draw(st.sampled_from([1, -1]))
    turns = draw(
        st.lists(st.builds(wire.ArchiveTurn, st.integers(1, 500), seats, dice, turn_moves, texts), max_size=4)
    )
    technical = termination == "aborted" and draw(st.booleans())
    abort = draw(st.none() | aborts) if termination == "aborted" and not technical else None
    return wire.HistoryRecord(
        game_id=draw(texts),
        players=draw(players),
        rated=draw(st.booleans()),
        time_control=draw(time_controls),
        result=result,
        termination=termination,
        finished_at=draw(timestamps),
        initial_dfen=draw(texts),
        turns=tuple(turns),
        fairness=wire.FairnessRecord(draw(digests), draw(digests), draw(client_seeds)),
        technical=technical,
        disconnect=termination == "resign" and draw(st.booleans()),
        abort=abort,
        unplayed_roll=draw(st.none() | st.builds(wire.UnplayedRoll, seats, dice)),
    )
