"""The lobby's in-memory state on a mock clock: challenge expiry (ChallengeDeclined to the
challenger), seek lifetimes kept by polls, and the rate limiter's windows."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing

from playsite.bots.directory import BotAccount
from playsite.bots.events import BotEvents
from playsite.config import Settings
from playsite.http.ratelimit import RateLimiter
from playsite.lobby.challenges import CHALLENGE_TTL_S, ChallengeBook
from playsite.lobby.seeks import SEEK_TTL_S, SeekBoard, SeekState
from playsite.refusals import Refused
from playsite.wire import Unlimited
from tests.support.app import booted, call, test_client


@pytest.fixture
def mock_clock():
    return trio.testing.MockClock()


def bot(name: str) -> BotAccount:
    return BotAccount("anon", name, token_hash=name.encode(), registered=False)


def drained(stream) -> list[dict]:
    events = []
    while True:
        try:
            events.append(json.loads(stream.events.receive_nowait()))
        except trio.WouldBlock:
            return events


async def test_challenge_expiry_tells_the_challenger_challenge_declined(mock_clock):
    events = BotEvents()
    a, b = bot("a"), bot("b")
    a_stream, b_stream = events.open(a.id), events.open(b.id)
    book = ChallengeBook(events)
    challenge = book.create(a, b, Unlimited())
    assert drained(b_stream) == [
        {"ChallengeReceived": {"id": challenge.id, "challenger": {"Bot": {"team": "anon", "name": "a"}}, "timeControl": {"Unlimited": {}}}}
    ]
    mock_clock.jump(CHALLENGE_TTL_S - 1)
    assert book.expire() == 0 and drained(a_stream) == []
    mock_clock.jump(1)
    assert book.expire() == 1
    assert drained(a_stream) == [{"ChallengeDeclined": {"id": challenge.id, "reason": "expired"}}]
    assert book.involving(b) == ([], [])
    with pytest.raises(Refused) as refused:
        book.claim(b, challenge.id)
    assert refused.value.code == "challenge_not_found"


async def test_a_challenge_being_accepted_does_not_expire_under_it(mock_clock):
    events = BotEvents()
    a, b = bot("a"), bot("b")
    a_stream = events.open(a.id)
    book = ChallengeBook(events)
    challenge = book.claim(b, book.create(a, b, Unlimited()).id)
    mock_clock.jump(CHALLENGE_TTL_S + 1)
    assert book.expire() == 0
    # A second answer meanwhile is told to wait; a refused creation puts it back, then it lapses.
    with pytest.raises(Refused) as refused:
        book.decline(b, challenge.id)
    assert refused.value.code == "challenge_busy"
    book.release(challenge)
    assert book.expire() == 1
    assert drained(a_stream) == [{"ChallengeDeclined": {"id": challenge.id, "reason": "expired"}}]


async def test_decline_tells_the_challenger_and_settle_does_not(mock_clock):
    events = BotEvents()
    a, b = bot("a"), bot("b")
    a_stream = events.open(a.id)
    book = ChallengeBook(events)
    declined, accepted = book.create(a, b, Unlimited()), book.create(a, b, Unlimited())
    book.decline(b, declined.id)
    book.settle(book.claim(b, accepted.id))
    assert drained(a_stream) == [{"ChallengeDeclined": {"id": declined.id, "reason": "declined"}}]
    assert len(book) == 0


async def test_the_lobby_housekeeping_announces_lapsed_challenges_without_a_request(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0)) as services:  # the boot runs the lobby's housekeeping
        a, b = bot("a"), bot("b")
        a_stream = services.bot_events.open(a.id)
        challenge = services.lobby.challenges.create(a, b, Unlimited())
        await trio.sleep(CHALLENGE_TTL_S + 2)
        assert drained(a_stream) == [{"ChallengeDeclined": {"id": challenge.id, "reason": "expired"}}]


async def test_a_seek_lives_while_polled_and_lapses_without(mock_clock):
    board = SeekBoard()
    kept, dropped = board.post(bot("a"), Unlimited()), board.post(bot("b"), Unlimited())
    for _ in range(3):
        mock_clock.jump(SEEK_TTL_S - 10)
        board.poll(kept[0].id, kept[1])
    assert [s.id for s in board.open_seeks()] == [kept[0].id]
    with pytest.raises(Refused):
        board.poll(dropped[0].id, dropped[1])
    mock_clock.jump(SEEK_TTL_S)
    assert board.open_seeks() == []


async def test_a_claimed_seek_survives_until_released_or_matched(mock_clock):
    board = SeekBoard()
    creator = bot("a")
    seek, secret = board.post(creator, Unlimited())
    claimed = board.claim(seek.id, "guest:1")
    mock_clock.jump(SEEK_TTL_S * 2)
    assert board.expire() == 0
    board.matched(claimed, "game-1")
    assert board.poll(seek.id, secret).state is SeekState.MATCHED
    mock_clock.jump(SEEK_TTL_S)
    assert board.expire() == 1


async def test_rate_limiter_windows_and_retry_after(mock_clock):
    limiter = RateLimiter(limit=2, window_s=60)
    assert limiter.attempt("1.2.3.4") is None
    mock_clock.jump(10)
    assert limiter.attempt("1.2.3.4") is None
    assert limiter.attempt("1.2.3.4") == 50
    assert limiter.attempt("5.6.7.8") is None
    mock_clock.jump(50)
    assert limiter.attempt("1.2.3.4") is None


async def test_rate_limiter_counting_only_successes(mock_clock):
    limiter = RateLimiter(limit=1, window_s=60)
    assert limiter.retry_after("k") is None
    assert limiter.retry_after("k") is None  # checking does not count
    limiter.count("k")
    assert limiter.retry_after("k") == 60


async def test_rate_limiter_keeps_a_bounded_key_table(mock_clock):
    limiter = RateLimiter(limit=1, window_s=60, max_keys=3)
    for n in range(10):
        limiter.attempt(f"10.0.0.{n}")
        mock_clock.jump(1)
    assert len(limiter) == 3
    assert limiter.attempt("10.0.0.9") == 59


async def test_a_limiter_that_refuses_when_full_never_forgets_an_open_window(mock_clock):
    limiter = RateLimiter(limit=1, window_s=60, max_keys=3, refuse_when_full=True)
    for n in range(3):
        assert limiter.attempt(f"10.0.0.{n}") is None
        mock_clock.jump(1)
    assert limiter.attempt("10.0.0.3") == 60, "key exhaustion: refused for the window's length"
    assert limiter.attempt("10.0.0.0") == 57, "the first key's window was not forgotten to make room"
    mock_clock.jump(57)  # the first window closes: its place is free again
    assert limiter.attempt("10.0.0.3") is None
    assert limiter.attempt("10.0.0.4") == 60
    assert len(limiter) == 3


async def test_a_game_the_lobby_cannot_store_is_503_with_retry_after_and_the_challenge_stands():
    # Required durability on a memory store: every creation fails (CreationFailed), as a store
    # that cannot take the game's first write would make it; the lobby refuses in its own words.
    async with booted(Settings(dice_seed_window_ms=0, game_durability="required")) as services:
        client = test_client(services)
        _, a, _ = await call(client, "POST", "/bot/anon", query_string={"name": "a"})
        _, b, _ = await call(client, "POST", "/bot/anon", query_string={"name": "b"})
        status, challenge, _ = await call(client, "POST", "/bot/challenge", a["token"], json={"team": "anon", "name": b["name"]})
        assert status == 201
        with pytest.raises(Refused) as refused:
            await services.lobby.accept_challenge(services.bots.get(f"anon/{b['name']}"), challenge["id"])
        assert refused.value.code == "temporarily_unavailable"
        status, body, headers = await call(client, "POST", f"/bot/challenge/{challenge['id']}/accept", b["token"])
        assert (status, body["error"]["code"], headers["Retry-After"]) == (503, "temporarily_unavailable", "5")
        status, listed, _ = await call(client, "GET", "/bot/challenges", b["token"])
        assert [c["id"] for c in listed["in"]] == [challenge["id"]]
