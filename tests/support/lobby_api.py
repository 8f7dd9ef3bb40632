"""A small Bot API / lobby client for end-to-end tests against a real `playsite serve`."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.support.errors import assert_no_server_errors
from tests.support.waiting import wait_until_sync

FAST_GAMES = {"DICE_SEED_WINDOW_MS": "0"}
ONE_SECOND_MOVES = {"PerMove": {"secondsPerMove": 1}}
"""A game that ends by timeout within seconds when nobody moves."""
CLOCKED = {"Fischer": {"initialSeconds": 300, "incrementSeconds": 5}}


class Api:
    def __init__(self, server):
        self.server = server
        self.http = httpx.Client(base_url=server.base_url, timeout=10)

    def call(self, method: str, path: str, token: str | None = None, **kwargs) -> httpx.Response:
        headers = kwargs.pop("headers", {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.request(method, path, headers=headers, **kwargs)

    def anon(self, name: str | None = None) -> dict:
        response = self.call("POST", "/bot/anon", params={"name": name} if name else None)
        assert response.status_code == 201, response.text
        return response.json()

    def register(self, team: str, name: str, *, capacity: int | None = None, open_to_humans: bool = False) -> dict:
        response = self.call("POST", "/bot/register", json={"team": team, "name": name})
        assert response.status_code == 201, response.text
        bot = response.json()
        if capacity is not None:
            self.ok("POST", "/bot/capacity", bot, json={"maxConcurrentGames": capacity})
        if open_to_humans:
            self.ok("POST", "/bot/open-to-humans", bot)
        return bot

    def ok(self, method: str, path: str, bot: dict | None = None, status: int = 200, **kwargs):
        response = self.call(method, path, bot["token"] if bot else None, **kwargs)
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    def challenge(self, challenger: dict, target: dict, time_control: dict | None = None) -> dict:
        body = {"team": target["team"], "name": target["name"]}
        if time_control is not None:
            body["timeControl"] = time_control
        return self.ok("POST", "/bot/challenge", challenger, 201, json=body)

    def active_games(self, bot: dict) -> int:
        return self.ok("GET", "/bot/capacity", bot)["activeGames"]

    def wait_until_idle(self, bot: dict, timeout: float = 30) -> None:
        """Until every game of this registered bot has ended and released its admission."""
        self.wait_for_active_games(bot, 0, timeout)

    def wait_for_active_games(self, bot: dict, count: int, timeout: float = 30) -> None:
        wait_until_sync(lambda: self.active_games(bot) == count, f"the bot to reach {count} active game(s)",
                        timeout, interval=0.1)

    def close(self) -> None:
        self.http.close()


def guest_id() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def api(serve):
    """A fresh server (seed window 0) and a client; after the test, the server logged no crash."""
    server = serve(FAST_GAMES)
    client = Api(server)
    yield client
    client.close()
    assert_no_server_errors(server)


@pytest.fixture(scope="module")
def shared_api():
    """One server for a module's stateless checks (error matrices): each case costs a request, not a boot."""
    from tests.support.server import ServerProcess

    server = ServerProcess(FAST_GAMES).start()
    client = Api(server)
    try:
        yield client
    finally:
        client.close()
        try:
            assert_no_server_errors(server)
        finally:
            server.close()
