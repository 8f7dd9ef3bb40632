"""Webhook bots through a real `playsite serve`: registration over HTTP, a whole game against a
polling bot (challenge + accept), a registration replaced mid-turn, and every error path."""

from __future__ import annotations

import random
import time

import httpx
import psycopg
import pytest

from playsite.store.migrations import apply_pending, load_migrations
from tests.support.errors import assert_error, assert_no_server_errors
from tests.support.receiver import Reply, WebhookReceiver
from tests.support.turns import king_sparing_turn, random_turn
from tests.support.waiting import wait_until_sync

PUSH = {"DICE_SEED_WINDOW_MS": "0", "WEBHOOK_PUSH_ENABLED": "true", "WEBHOOK_ALLOW_LOOPBACK": "true"}
CLOCKED = {"Fischer": {"initialSeconds": 300, "incrementSeconds": 5}}


class Client:
    def __init__(self, server):
        self.server = server
        self.http = httpx.Client(base_url=server.base_url, timeout=15)

    def call(self, method: str, path: str, bot: dict | None = None, **kwargs) -> httpx.Response:
        headers = kwargs.pop("headers", {})
        if bot is not None:
            headers["Authorization"] = f"Bearer {bot['token']}"
        return self.http.request(method, path, headers=headers, **kwargs)

    def register_bot(self, team: str, name: str) -> dict:
        response = self.call("POST", "/bot/register", json={"team": team, "name": name})
        assert response.status_code == 201, response.text
        return response.json()

    def anonymous_bot(self) -> dict:
        response = self.call("POST", "/bot/anon")
        assert response.status_code == 201, response.text
        return response.json()

    def register_webhook(self, bot: dict, receiver: WebhookReceiver) -> str:
        response = self.call("POST", "/bot/webhook", bot, json={"url": receiver.url()})
        assert response.status_code == 201, response.text
        receiver.secret = response.json()["secret"]
        return receiver.secret

    def start_game(self, challenger: dict, target: dict) -> str:
        body = {"team": target["team"], "name": target["name"], "timeControl": CLOCKED}
        challenge = self.call("POST", "/bot/challenge", challenger, json=body)
        assert challenge.status_code == 201, challenge.text
        accepted = self.call("POST", f"/bot/challenge/{challenge.json()['id']}/accept", target)
        assert accepted.status_code == 201, accepted.text
        return accepted.json()["gameId"]

    def state(self, game_id: str) -> dict:
        response = self.call("GET", f"/games/{game_id}")
        assert response.status_code == 200, response.text
        return response.json()

    def seat_of(self, game_id: str, bot: dict) -> str:
        players = self.state(game_id)["players"]
        return "White" if players["white"]["name"] == f"{bot['team']} {bot['name']}" else "Black"

    def play_polling_turn(self, game_id: str, bot: dict, seat: str, rng: random.Random, *, spare_king: bool = False) -> bool:
        """One look at the game; plays a random legal turn if it is this seat's (with
        `spare_king`, one that does not take the king when another exists). False once ended."""
        state = self.state(game_id)
        if "Ended" in state["status"]:
            return False
        if state["dicePending"] and state["activeSeat"] == seat:
            tree = state["legalMoves"]
            if tree is None:
                tree = self.call("GET", f"/games/{game_id}/moves").json()["legalMoves"]
            moves = king_sparing_turn(tree, state["dfen"], seat, rng) if spare_king else random_turn(tree, rng)
            response = self.call("POST", f"/bot/game/{game_id}/move", bot, json={"moves": moves})
            assert response.status_code in (200, 202, 409), response.text
        else:
            time.sleep(0.02)
        return True

    def stats(self, bot: dict) -> dict:
        response = self.call("GET", "/bot/webhook/stats", bot)
        assert response.status_code == 200, response.text
        return response.json()

    def close(self) -> None:
        self.http.close()


def outcomes(window: dict) -> dict[str, int]:
    return {item["outcome"]: item["count"] for item in window["outcomes"]}


@pytest.fixture
def client(serve):
    server = serve(PUSH)
    client = Client(server)
    yield client
    client.close()
    assert_no_server_errors(server)


def test_a_webhook_bot_plays_a_whole_game_against_a_polling_bot(client):
    rng = random.Random(11)
    alice = client.register_bot("hooks", "alice")
    bob = client.register_bot("polls", "bob")
    with WebhookReceiver(seed=5) as hook:
        client.register_webhook(alice, hook)
        game_id = client.start_game(bob, alice)
        bob_seat = client.seat_of(game_id, bob)
        deadline = time.monotonic() + 120
        while client.play_polling_turn(game_id, bob, bob_seat, rng):
            assert time.monotonic() < deadline, "the game did not end in time"
        final = client.state(game_id)
        wait_until_sync(lambda: outcomes(client.stats(alice)["last24h"]).get("applied", 0) >= hook.turns_answered,
                        "every answered turn to be recorded applied")
    over = final["status"]["Ended"]["over"]
    assert over["termination"] in ("KingCaptured", "Draw"), over
    assert hook.turns_answered >= 1 and hook.bad_signatures == 0
    for seen in hook.of_kind("yourTurn"):
        assert seen.json["gameId"] == game_id and seen.json["seat"] != bob_seat
        assert seen.headers["host"] == f"127.0.0.1:{hook.port}"
    stats = client.stats(alice)
    assert outcomes(stats["last24h"]) == {"applied": hook.turns_answered}
    assert stats["lastFailure"] is None
    history = client.call("GET", f"/games/{game_id}/history")
    assert history.status_code == 200


def test_a_registration_replaced_mid_turn_records_the_late_answer_as_stale(client):
    rng = random.Random(12)
    alice = client.register_bot("hooks", "alice")
    bob = client.register_bot("polls", "bob")

    def slow(seen):
        if seen.kind != "yourTurn":
            return None
        return Reply(200, old.default_reply(seen).body, delay_s=2)

    # Both sides spare the king: the game must go on until the late answer arrives.
    with WebhookReceiver(slow, seed=6, spare_king=True) as old, WebhookReceiver(seed=7, spare_king=True) as new:
        client.register_webhook(alice, old)
        game_id = client.start_game(bob, alice)
        bob_seat = client.seat_of(game_id, bob)
        replaced = False
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, "no stale answer was recorded"
            if not replaced and old.of_kind("yourTurn"):
                client.register_webhook(alice, new)  # while the old answer is on its way
                replaced = True
            if replaced and "stale_registration" in outcomes(client.stats(alice)["last24h"]) and new.answers:
                break
            assert client.play_polling_turn(game_id, bob, bob_seat, rng, spare_king=True)
        stale_version = old.answers[0][0]
        assert new.answers[0][0] == stale_version  # the standing turn went to the new registration
        wait_until_sync(lambda: client.state(game_id)["version"] > stale_version, "the standing turn to be played")
        stats = client.stats(alice)
    counts = outcomes(stats["last24h"])
    assert counts["stale_registration"] == 1
    assert "refused" not in counts  # the late answer never entered the room
    assert stats["lastFailure"] is None  # nor touched the current registration's health
    read = client.call("GET", "/bot/webhook", alice).json()
    assert read["url"] == new.url()


def test_every_error_path_answers_in_the_error_shape(client):
    registered = client.register_bot("hooks", "errors")
    anonymous = client.anonymous_bot()
    for method, path in [("POST", "/bot/webhook"), ("GET", "/bot/webhook"), ("DELETE", "/bot/webhook"),
                         ("GET", "/bot/webhook/stats")]:
        assert_error(client.call(method, path, json={"url": "https://example.com"}), 401, "unauthorized")
        assert_error(client.call(method, path, anonymous, json={"url": "https://example.com"}), 403, "registered_only")
    assert_error(client.call("GET", "/bot/webhook", registered), 404, "webhook_not_found")
    assert_error(client.call("DELETE", "/bot/webhook", registered), 404, "webhook_not_found")
    assert_error(client.call("POST", "/bot/webhook", registered, json={}), 400, "invalid_request")
    message = assert_error(
        client.call("POST", "/bot/webhook", registered, json={"url": "https://10.1.2.3/hook"}), 422, "url_policy"
    )
    assert "private" in message
    message = assert_error(
        client.call("POST", "/bot/webhook", registered, json={"url": "https://[::ffff:169.254.169.254]/"}),
        422,
        "url_policy",
    )
    assert "IPv4-mapped" in message
    with WebhookReceiver(lambda seen: Reply(500)) as broken:
        message = assert_error(
            client.call("POST", "/bot/webhook", registered, json={"url": broken.url()}), 422, "handshake_failed"
        )
    assert "HTTP 500" in message
    with WebhookReceiver() as fine:
        client.register_webhook(registered, fine)
        response = client.call("GET", "/bot/webhook", registered)
        assert response.status_code == 200 and response.json()["url"] == fine.url()
        assert fine.secret not in response.text
        assert client.call("DELETE", "/bot/webhook", registered).status_code == 204
    assert_error(client.call("GET", "/bot/webhook", registered), 404, "webhook_not_found")


def test_registration_answers_503_while_push_is_disabled(serve):
    server = serve({"DICE_SEED_WINDOW_MS": "0"})
    client = Client(server)
    try:
        bot = client.register_bot("hooks", "off")
        for method in ("POST", "GET", "DELETE"):
            response = client.call(method, "/bot/webhook", bot, json={"url": "https://example.com/hook"})
            assert_error(response, 503, "webhooks_disabled")
        assert client.stats(bot)["last24h"]["totalDeliveries"] == 0
    finally:
        client.close()
    assert_no_server_errors(server)


def test_registrations_stats_and_delivery_survive_a_restart_on_postgresql(serve, database_url):
    """The registration and its secret are durable, deliveries recorded before the restart are
    still counted, and a resumed game gets its dispatcher again."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    env = {**PUSH, "DATABASE_URL": database_url}
    rng = random.Random(13)
    # Both sides spare the king: the game must outlive the restart (a random turn took a king once).
    with WebhookReceiver(seed=8, spare_king=True) as hook:
        first = Client(serve(env))
        alice = first.register_bot("hooks", "alice")
        bob = first.register_bot("polls", "bob")
        first.register_webhook(alice, hook)
        game_id = first.start_game(bob, alice)
        bob_seat = first.seat_of(game_id, bob)
        deadline = time.monotonic() + 30
        while outcomes(first.stats(alice)["last24h"]).get("applied", 0) < 1:
            assert time.monotonic() < deadline, "alice never played"
            assert first.play_polling_turn(game_id, bob, bob_seat, rng, spare_king=True)
        assert first.server.stop() == 0
        first.close()
        assert_no_server_errors(first.server)

        second = Client(serve(env))
        read = second.call("GET", "/bot/webhook", alice)
        assert read.status_code == 200 and read.json()["url"] == hook.url()
        before = outcomes(second.stats(alice)["last24h"])["applied"]
        assert before >= 1
        answered = hook.turns_answered
        deadline = time.monotonic() + 30
        while hook.turns_answered == answered:  # the resumed game delivers again, signed with the same secret
            assert time.monotonic() < deadline, "the resumed game delivered nothing"
            assert second.play_polling_turn(game_id, bob, bob_seat, rng, spare_king=True)
        wait_until_sync(lambda: outcomes(second.stats(alice)["last24h"])["applied"] > before,
                        "the resumed game's delivery to be recorded applied")
        second.close()
        assert_no_server_errors(second.server)
    assert hook.bad_signatures == 0
