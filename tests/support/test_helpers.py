"""The shared test helpers fail when they should: a helper that cannot fail hides broken tests."""

from __future__ import annotations

import random

import httpx
import pytest
import trio

from tests.support.errors import assert_error
from tests.support.turns import king_sparing_turn, king_square, random_turn
from tests.support.waiting import deadline, wait_until, wait_until_sync

# ----- waiting --------------------------------------------------------------------------------


async def test_wait_until_returns_the_true_value_once_it_appears():
    box = []

    async def later():
        await trio.sleep(0.02)
        box.append("x")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(later)
        assert await wait_until(lambda: box, "the box", timeout=5) == ["x"]


async def test_wait_until_awaits_an_async_condition():
    calls = []

    async def condition():
        calls.append(1)
        return len(calls) >= 3

    assert await wait_until(condition, "three looks", timeout=5) is True
    assert len(calls) == 3


async def test_wait_until_fails_naming_what_it_waited_for():
    with pytest.raises(AssertionError, match="timed out after 0.05 s waiting for the moon"):
        await wait_until(lambda: False, "the moon", timeout=0.05)


async def test_wait_until_refuses_to_poll_the_mock_clock(autojump_clock):
    with pytest.raises(AssertionError, match="MockClock"):
        await wait_until(lambda: True, "anything")


async def test_deadline_names_what_did_not_happen_and_lets_a_quick_body_through():
    with deadline(5, "nothing"):
        await trio.sleep(0)
    with pytest.raises(AssertionError, match="waiting for the event"):
        with deadline(0.05, "the event"):
            await trio.Event().wait()


def test_wait_until_sync_returns_the_value_or_fails_naming_it():
    looks = iter([0, 0, 7])
    assert wait_until_sync(lambda: next(looks), "seven", timeout=5, interval=0) == 7
    with pytest.raises(AssertionError, match="waiting for the sync moon"):
        wait_until_sync(lambda: None, "the sync moon", timeout=0.05, interval=0.01)


# ----- turns ----------------------------------------------------------------------------------

TREE = {"e2e4": {"d7d8": {}, "g1f3": {}}, "e2e3": {"e8e7": {}}}


def test_random_turn_walks_to_a_leaf_and_an_empty_tree_is_no_turn():
    for seed in range(20):
        turn = random_turn(TREE, random.Random(seed))
        node = TREE
        for move in turn:
            node = node[move]
        assert len(turn) == 2 and node == {}
    assert random_turn({}, random.Random(0)) == []


def test_random_turn_avoids_squares_while_it_can():
    for seed in range(20):
        assert random_turn(TREE, random.Random(seed), avoid={"d8"}) in (["e2e4", "g1f3"], ["e2e3", "e8e7"])
    assert random_turn({"a1a2": {"b1b8": {}}}, random.Random(0), avoid={"b8"}) == ["a1a2", "b1b8"]


def test_king_square_and_the_king_sparing_turn():
    dfen = "3k4/8/8/8/8/8/8/4K3 w"
    assert king_square(dfen, "Black") == "d8" and king_square(dfen, "White") == "e1"
    with pytest.raises(AssertionError):
        king_square("8/8/8/8/8/8/8/8 w", "White")
    for seed in range(20):
        assert "d7d8" not in king_sparing_turn(TREE, dfen, "White", random.Random(seed))


# ----- errors ---------------------------------------------------------------------------------


def error_response(status: int, body, content_type: str = "application/json") -> httpx.Response:
    response = httpx.Response(status, json=body)
    response.headers["content-type"] = content_type
    return response


def test_assert_error_returns_the_message_of_the_exact_shape():
    assert assert_error(error_response(404, {"error": {"code": "nope", "message": "Not here."}}), 404, "nope") == "Not here."
    assert assert_error((404, {"error": {"code": "nope", "message": "Gone."}}), 404, "nope") == "Gone."


@pytest.mark.parametrize(
    ("response", "why"),
    [
        (error_response(400, {"error": {"code": "nope", "message": "m"}}), "another status"),
        (error_response(404, {"error": {"code": "other", "message": "m"}}), "another code"),
        (error_response(404, {"error": {"code": "nope", "message": ""}}), "an empty message"),
        (error_response(404, {"error": {"code": "nope", "message": 5}}), "a message that is no text"),
        (error_response(404, {"error": {"code": "nope", "message": "m", "extra": 1}}), "another key in the error"),
        (error_response(404, {"error": {"code": "nope", "message": "m"}, "detail": 1}), "another key in the body"),
        (error_response(404, {"error": {"code": "nope", "message": "m"}}, "text/plain"), "not JSON"),
    ],
)
def test_assert_error_refuses_anything_else(response, why):
    with pytest.raises(AssertionError):
        assert_error(response, 404, "nope")
