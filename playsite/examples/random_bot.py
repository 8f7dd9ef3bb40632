#!/usr/bin/env python3
"""A dice-chess bot for playsite in one file: Python 3 and its standard library, nothing else.

    python3 random_bot.py https://the-server            # plays one game against house/random

It takes an anonymous identity, challenges the house bot `house/random`, and then, every
moment, asks which of its games waits for its turn; for that roll it reads the legal-move tree
and plays a random complete turn: a path from the tree's root to a leaf, one UCI micro-move
per die spent. When the game leaves its list, the game is over and it says how it ended.
Replace `choose` with something cleverer; everything else is what any bot does.
"""

from __future__ import annotations

import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

ORIGIN = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
POLL_S = 0.3


def call(method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
    """One request to the server's API; the answer's JSON (None for an empty body)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(ORIGIN + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read()
    return json.loads(text) if text else None


def choose(tree: dict[str, Any]) -> list[str]:
    """A complete turn: a random path through the tree of legal micro-moves, root to leaf."""
    moves: list[str] = []
    while tree:
        move = random.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return moves


def main() -> None:
    token = call("POST", "/bot/anon?name=random-example")["token"]
    challenge = call("POST", "/bot/challenge", {"team": "house", "name": "random"}, token)
    print("challenged house/random:", challenge["id"])
    game_id, seat = None, ""
    while True:
        games = call("GET", "/bot/games", token=token)["games"]
        if not games:
            if game_id is not None:
                break  # our game has ended: it left the list
            waiting = [c["id"] for c in call("GET", "/bot/challenges", token=token)["out"]]
            if challenge["id"] not in waiting and not call("GET", "/bot/games", token=token)["games"]:
                sys.exit("house/random declined the challenge (it is playing as many games as it can); try again soon")
            time.sleep(POLL_S)  # not accepted yet
            continue
        game = games[0]
        if game_id is None:
            game_id, seat = game["gameId"], game["seat"]
            print(f"playing {game['seat']}: watch it at {ORIGIN}/play/{game_id}")
        if game["dicePending"] and game["activeSeat"] == game["seat"]:
            roll = call("GET", f"/games/{game_id}/moves")
            if roll["dicePending"] and roll["version"] == game["version"]:
                try:
                    call("POST", f"/bot/game/{game_id}/move", {"moves": choose(roll["legalMoves"])}, token)
                except urllib.error.HTTPError as refused:  # 409: the roll moved on meanwhile
                    print("refused:", refused.read().decode())
        time.sleep(POLL_S)
    over = call("GET", f"/games/{game_id}")["status"]["Ended"]["over"]
    print("game over:", outcome(over, seat))


def outcome(over: dict[str, Any], seat: str) -> str:
    """How the game ended, from this bot's side: "won (king captured)", "drew", "aborted"."""
    result = over["result"]  # {"Win": {"side": "White"}}, {"Draw": {}}, or None for an aborted game
    how = {"KingCaptured": "king captured", "Timeout": "on time", "Resign": "by resignation"}.get(
        over["termination"], over["termination"].lower())
    if result is None:
        return "aborted: no result"
    if "Draw" in result:
        return f"drew as {seat}"
    return f"{'won' if result['Win']['side'] == seat else 'lost'} as {seat}, {how}"


if __name__ == "__main__":
    if not ORIGIN.startswith(("http://", "https://")):
        sys.exit(f"give the server's address with its scheme, like http://127.0.0.1:8080 (not {ORIGIN!r})")
    try:
        main()
    except urllib.error.HTTPError as refused:
        sys.exit(f"the server refused {refused.url}: {refused.code} {refused.read().decode(errors='replace')}")
    except urllib.error.URLError as failed:
        sys.exit(f"could not reach {ORIGIN}: {failed.reason}")
