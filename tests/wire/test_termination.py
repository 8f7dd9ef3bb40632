"""The one Termination and the one Seat, as the wire and the archive name them."""

from __future__ import annotations

import json

import pytest

from playsite import wire
from playsite.rules import Termination
from playsite.wire import Seat, from_archive, from_wire, to_archive, to_wire


def test_every_termination_has_a_wire_name_and_an_archive_name():
    assert {to_wire(t) for t in Termination} == set(wire.TERMINATIONS)
    assert {to_archive(t) for t in Termination} == set(wire.ARCHIVE_TERMINATIONS)


@pytest.mark.parametrize(
    ("termination", "live", "archived"),
    [
        (Termination.KING_CAPTURED, "KingCaptured", "king_captured"),
        (Termination.RESIGN, "Resign", "resign"),
        (Termination.DISCONNECT, "Resign", "resign"),
        (Termination.TIMEOUT, "Timeout", "timeout"),
        (Termination.DRAW_AGREEMENT, "Draw", "draw_agreement"),
        (Termination.NO_PROGRESS, "Draw", "no_progress"),
        (Termination.ABORTED, "Aborted", "aborted"),
    ],
)
def test_termination_names_on_the_wire_and_in_the_archive(termination, live, archived):
    assert to_wire(termination) == live
    assert to_archive(termination) == archived


@pytest.mark.parametrize("name", wire.TERMINATIONS)
def test_a_decoded_wire_name_encodes_back_to_itself(name):
    assert to_wire(from_wire(name)) == name


@pytest.mark.parametrize("name", wire.ARCHIVE_TERMINATIONS)
def test_a_decoded_archive_name_encodes_back_to_itself(name):
    assert to_archive(from_archive(name)) == name


def test_decoding_an_unknown_termination_name_fails():
    with pytest.raises(KeyError):
        from_wire("disconnect")
    with pytest.raises(KeyError):
        from_archive("Resign")


def test_the_archive_name_of_a_termination_is_sent_live_as_its_wire_name():
    for termination in Termination:
        assert wire.live_termination(to_archive(termination)) == to_wire(termination)


def test_a_seat_is_its_wire_name_in_json_and_in_text():
    assert [seat.value for seat in wire.SEATS] == ["White", "Black"]
    assert json.dumps({Seat.WHITE: [Seat.BLACK]}) == '{"White": ["Black"]}'
    assert f"{Seat.BLACK}" == str(Seat.BLACK) == "Black"
    assert Seat.WHITE == "White" and hash(Seat.WHITE) == hash("White")


def test_decoded_seats_are_seat_members():
    event = wire.decode_event(wire.encode_event(wire.DrawDeclined(v=3, seat="Black")))
    assert event.seat is Seat.BLACK
