"""Small differences from the ecosystem's reference server, decided one by one
(docs/bots/compatibility.md): where playsite now answers as the reference does, the answer is
checked here against a real `playsite serve`."""

from __future__ import annotations

import httpx

from tests.support.server import ServerProcess

SEED_WINDOW_MS = 60_000
"""Long enough that the dice are still waiting for both seeds while the test runs."""


def anonymous_bot(http: httpx.Client, name: str) -> tuple[dict, dict]:
    minted = http.post("/bot/anon", params={"name": name})
    assert minted.status_code == 201, minted.text
    body = minted.json()
    return body, {"Authorization": f"Bearer {body['token']}"}


def test_a_move_sent_right_after_the_seed_is_not_your_turn_as_in_the_reference():
    """The quickstart pasted verbatim: seed, then its example move, before the dice are rolled."""
    server = ServerProcess({"DICE_SEED_WINDOW_MS": str(SEED_WINDOW_MS)}).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=10) as http:
            _alice, alice_auth = anonymous_bot(http, "alice")
            bob, bob_auth = anonymous_bot(http, "bob")
            challenge = http.post("/bot/challenge", json={"team": bob["team"], "name": bob["name"]}, headers=alice_auth)
            assert challenge.status_code == 201, challenge.text
            accepted = http.post(f"/bot/challenge/{challenge.json()['id']}/accept", headers=bob_auth)
            assert accepted.status_code == 201, accepted.text
            game_id = accepted.json()["gameId"]
            seeded = http.post(f"/bot/game/{game_id}/seed", json={"seed": "00" * 16}, headers=alice_auth)
            assert seeded.status_code in (200, 202), seeded.text
            assert http.get(f"/games/{game_id}").json()["dicePending"] is False, "the dice wait for the other seed"
            move = http.post(f"/bot/game/{game_id}/move", json={"moves": ["e2e4"]}, headers=alice_auth)
            assert move.status_code == 409
            verdict = move.json()
            assert verdict["applied"] is False and verdict["version"] is None
            assert verdict["reason"] == "not your turn", "the reference's reason"
            assert verdict["detail"] == "the dice are not rolled yet", "and what exactly, as an extension"
    finally:
        server.close()
