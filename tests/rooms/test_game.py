"""The room's game without its shell: every transition is a plain call taking `now`, so a
game is driven here with no trio, no store and no subscriber."""

from __future__ import annotations

import random

from playsite.dice import FixedSeedSource, Fairness
from playsite.rooms.game import Game
from playsite.rooms.model import DISCONNECT_GRACE_S, FRIEND_JOIN_WINDOW_S, RoomPhase
from playsite.rooms.trees import pack
from playsite.rules import Termination, format_dfen
from playsite.wire import BLACK, WHITE, GameEnded, Resign, SubmitTurn, TurnPlayed, decode_event
from tests.support.rooms import room_setup, seat_setup
from tests.support.turns import king_sparing_turn

SEED = bytes(range(32))
AT = "2026-01-01T00:00:00.000Z"


def new_game(**overrides: object) -> Game:
    return Game(room_setup(**overrides), Fairness.draw(FixedSeedSource([SEED])), wall_clock=lambda: AT)


def settle(game: Game) -> None:
    """What the room does before it commits: roll the dice due, with their trees."""
    while game.roll_due is not None:
        game.settle_roll(pack(game.roll_dice()))


def play_a_turn(game: Game, now: float, rng: random.Random) -> None:
    seat = game.active_seat
    assert game.tree is not None
    moves = king_sparing_turn(game.tree, format_dfen(game.position), seat, rng)
    verdict = game.command(seat, SubmitTurn(moves), now)
    assert verdict.applied, verdict.reason
    settle(game)


def test_a_game_is_played_and_resigned_by_plain_calls():
    game, rng = new_game(), random.Random(3)
    game.start(0.0)
    settle(game)
    assert game.phase is RoomPhase.PLAYING and game.tree
    play_a_turn(game, 1.0, rng)
    play_a_turn(game, 2.0, rng)
    loser = game.active_seat
    verdict = game.command(loser, Resign(), 3.0)
    assert verdict.applied and game.ended
    assert (game.ending.termination, game.ending.winner, game.ending.at) == (Termination.RESIGN, loser.other(), AT)
    events = [decode_event(text) for text, _ in game.take_events()]
    assert [event.v for event in events] == list(range(1, game.version + 1)), "one version per event"
    assert sum(isinstance(event, TurnPlayed) and bool(event.moves) for event in events) == 2
    assert isinstance(events[-1], GameEnded) and events[-1].seed == SEED.hex()
    assert game.take_events() == [], "events are handed over once"


def test_the_join_window_is_a_deadline_the_caller_passes_in():
    game = new_game(await_joins=True, white=seat_setup(False), black=seat_setup(False))
    game.start(10.0)
    assert game.phase is RoomPhase.AWAITING_JOINS and game.next_deadline() == 10.0 + FRIEND_JOIN_WINDOW_S
    game.seat_joined(WHITE, 20.0)
    game.on_deadline(10.0 + FRIEND_JOIN_WINDOW_S)
    assert game.ended and game.ending.termination is Termination.ABORTED and game.ending.winner is None
    assert not game.ending.technical, "a friend game whose seats did not all come never began"


def test_a_game_awaiting_joins_keeps_what_is_left_of_its_window_across_a_restart():
    """Ops review s74: every restart gave a game nobody joined a full new window, so with
    deploys often enough it never ended. What is left counts from the creation, and a restart
    leaves at least a disconnect grace to come back in."""
    seconds = {"2026-01-01T00:01:40.000Z": 100, "2026-01-01T00:09:50.000Z": 590, "2026-01-01T02:00:00.000Z": 7200}
    for later, elapsed in seconds.items():
        setup = room_setup(await_joins=True, white=seat_setup(False), black=seat_setup(False), created_at=AT)
        game = Game(setup, Fairness.draw(FixedSeedSource([SEED])), wall_clock=lambda at=later: at)
        assert game.phase is RoomPhase.AWAITING_JOINS
        game.resume(50.0, restarted=True)
        left = max(FRIEND_JOIN_WINDOW_S - elapsed, DISCONNECT_GRACE_S)
        assert game.next_deadline() == 50.0 + left, elapsed
        game.on_deadline(50.0 + left)
        assert game.ended and game.ending.termination is Termination.ABORTED


def test_a_return_without_the_token_reopens_only_ones_own_seat():
    """Rebind(claim=False): an account coming back to its game without the seat's token is
    seated again in the seat it holds, and never takes a free one."""
    game = new_game(white=seat_setup(), black=seat_setup())
    assert not game.rebind(WHITE, "account:alice", "alice", claim=False), "a free seat is not taken so"
    assert game.seats[WHITE].principal is None
    assert game.rebind(WHITE, "account:alice", "alice")  # the token's redemption
    assert game.rebind(WHITE, "account:alice", "alice", claim=False), "its holder returns"
    assert not game.rebind(WHITE, "account:bob", "bob", claim=False) and not game.rebind(BLACK, "account:alice", None, claim=False)


def test_the_view_tells_who_sits_where_and_whose_turn_it_is():
    game = new_game(white=seat_setup(), black=seat_setup())
    assert game.rebind(WHITE, "bot:acme/one", None) and game.rebind(BLACK, "bot:acme/one", None)
    assert not game.rebind(WHITE, "bot:acme/two", None), "a seat is taken once"
    game.start(0.0)
    settle(game)
    view = game.view(0.0)
    assert view.seats_of("bot:acme/one") == (WHITE, BLACK) and view.seats_of("bot:acme/two") == ()
    assert view.turn.awaits_turn_from(game.active_seat) and not view.turn.awaits_turn_from(game.active_seat.other())
    assert not view.turn.awaits_draw_answer_from(game.active_seat)
