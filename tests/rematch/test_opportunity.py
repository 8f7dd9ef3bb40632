"""The rematch opportunity's state machine: every transition, deadlines (equality refuses),
readbacks, terminal phases, and races decided by the order commands are serialised in."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playsite.rematch.opportunity import (
    OFFER_WINDOW_S,
    ClosedReason,
    InvalidTransition,
    Opportunity,
    Phase,
    RematchClosed,
)

END = 1_000.0


def fresh() -> Opportunity:
    return Opportunity.after("g", END)


def offered(by: str = "White", at: float = END + 5) -> Opportunity:
    return fresh().apply(by, "propose", at)


def test_available_lasts_fifteen_seconds_from_the_end_and_equality_expires():
    assert fresh().deadline == END + OFFER_WINDOW_S
    assert fresh().at(END + OFFER_WINDOW_S - 0.001).phase is Phase.AVAILABLE
    assert fresh().at(END + OFFER_WINDOW_S).closed_reason is ClosedReason.EXPIRED
    with pytest.raises(RematchClosed):
        fresh().apply("White", "propose", END + OFFER_WINDOW_S)


def test_a_proposal_starts_its_own_window_and_records_one_consent():
    proposal = offered(at=END + 14)
    assert proposal.phase is Phase.OFFERED and proposal.initiator == "White"
    assert proposal.deadline == END + 14 + OFFER_WINDOW_S
    assert proposal.consented("White") and not proposal.consented("Black")
    assert proposal.allowed_actions("White", END + 15) == ("propose", "cancel")
    assert proposal.allowed_actions("Black", END + 15) == ("accept", "decline")


def test_the_initiators_repeat_is_a_readback_and_extends_nothing():
    proposal = offered(at=END + 5)
    again = proposal.apply("White", "propose", END + 19)
    assert again == proposal and again.deadline == END + 20
    with pytest.raises(RematchClosed):
        proposal.apply("White", "propose", END + 20)


@pytest.mark.parametrize("action", ["accept", "propose"])
def test_the_other_seats_consent_starts_the_successor(action):
    starting = offered().apply("Black", action, END + 6)
    assert starting.phase is Phase.STARTING and starting.consents == {"White", "Black"}
    assert starting.deadline is None and starting.allowed_actions("White", END + 100) == ()
    for seat, withdrawal in (("White", "cancel"), ("Black", "decline")):
        with pytest.raises(InvalidTransition):
            starting.apply(seat, withdrawal, END + 7)  # once starting, nobody withdraws
    matched = starting.matched("successor")
    assert matched.phase is Phase.MATCHED and matched.successor_game_id == "successor"
    assert matched.at(END + 10_000) == matched, "matched is terminal and never expires"
    assert matched.failed(ClosedReason.RESTART) == matched, "a committed successor always wins"
    for seat in ("White", "Black"):
        assert matched.apply(seat, "propose", END + 8) == matched  # a repeat: the same successor
        assert starting.apply(seat, "accept", END + 8) == starting
        with pytest.raises(InvalidTransition):
            matched.apply(seat, "cancel", END + 8)


def test_cancel_is_the_initiators_and_decline_the_recipients():
    assert offered().apply("White", "cancel", END + 6).closed_reason is ClosedReason.CANCELLED
    assert offered().apply("Black", "decline", END + 6).closed_reason is ClosedReason.DECLINED
    for seat, action in (("Black", "cancel"), ("White", "decline"), ("White", "accept")):
        with pytest.raises(InvalidTransition):
            offered().apply(seat, action, END + 6)
    with pytest.raises(InvalidTransition):
        fresh().apply("White", "accept", END + 1)


def test_a_closed_opportunity_cannot_be_reopened():
    closed = offered().apply("Black", "decline", END + 6)
    for seat in ("White", "Black"):
        for action in ("propose", "accept", "decline", "cancel"):
            with pytest.raises(RematchClosed):
                closed.apply(seat, action, END + 7)


def test_the_first_serialised_command_wins_a_race():
    proposal = offered(at=END + 5)
    accepted_first = proposal.apply("Black", "accept", END + 10)
    with pytest.raises(InvalidTransition):
        accepted_first.apply("White", "cancel", END + 10)
    cancelled_first = proposal.apply("White", "cancel", END + 10)
    with pytest.raises(RematchClosed):
        cancelled_first.apply("Black", "accept", END + 10)
    # Expiry against accept: at the deadline the accept is refused, a moment before it wins.
    with pytest.raises(RematchClosed):
        proposal.apply("Black", "accept", END + 20)
    assert proposal.apply("Black", "accept", END + 19.999).phase is Phase.STARTING


def test_a_restart_closes_unfinished_sessions_and_keeps_an_untouched_one():
    assert offered().failed(ClosedReason.RESTART).closed_reason is ClosedReason.RESTART
    starting = offered().apply("Black", "accept", END + 6)
    assert starting.failed(ClosedReason.RESTART).closed_reason is ClosedReason.RESTART
    assert starting.failed(ClosedReason.TECHNICAL_FAILURE).closed_reason is ClosedReason.TECHNICAL_FAILURE
    assert fresh().failed(ClosedReason.RESTART) == fresh(), "available keeps its end-based deadline"


commands = st.lists(
    st.tuples(st.sampled_from(["White", "Black"]), st.sampled_from(["propose", "accept", "decline", "cancel"]),
              st.floats(min_value=0, max_value=40, allow_nan=False)),
    max_size=12,
)


@given(commands)
def test_no_sequence_of_commands_extends_a_deadline_or_leaves_a_terminal_phase(sequence):
    state, now = fresh(), END
    first_deadline = state.deadline
    for seat, action, step in sequence:
        now += step
        before = state.at(now)
        try:
            state = state.apply(seat, action, now)
        except (InvalidTransition, RematchClosed):
            state = before
        if state.phase is Phase.AVAILABLE:
            assert state.deadline == first_deadline
        if state.phase is Phase.OFFERED:
            assert state.deadline == state.proposed_at + OFFER_WINDOW_S <= first_deadline + OFFER_WINDOW_S
            assert state.proposed_at < first_deadline, "a proposal is only ever made before the first deadline"
        if before.phase in (Phase.CLOSED, Phase.STARTING):
            assert state == before, "terminal and starting phases do not move on commands"
