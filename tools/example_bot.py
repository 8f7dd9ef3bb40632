#!/usr/bin/env python3
"""An example dice-chess bot for playsite: it plays random legal turns, heard about in one of three ways.

  --mode poll     every tick: GET /bot/games; for a game where my seat has dice, GET /games/{id}/moves
                  and POST /bot/game/{id}/move. The simplest bot, and the way any bot recovers.
  --mode stream   GET /bot/stream/event (GameStart, ChallengeReceived), then GET /bot/game/stream/{id}
                  per game; play on DiceRolled for my seat.
  --mode webhook  serve HTTP on --listen and register it (POST /bot/webhook, registered bots only);
                  echo the verification nonce, answer signed yourTurn POSTs with {"moves": [...]}.

  python tools/example_bot.py --demo --mode poll            # two anonymous bots play one game
  python tools/example_bot.py --anon alice --accept --mode stream
  python tools/example_bot.py --token "$TOKEN" --challenge anon/bob-1a2b3c4d --games 1

Only the standard library and httpx. The whole "chess" is: walk the legal-move tree from the
root to a leaf at random; a leaf is a complete legal turn, an empty tree a forced pass.
"""

from __future__ import annotations

import argparse
import os
import hashlib
import hmac
import json
import random
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

SIGNATURE_MAX_AGE_S = 300  # refuse replayed deliveries older than this
STREAM_TIMEOUT = httpx.Timeout(30, read=None)  # streams stay open; keep-alives arrive every ~25 s


class ApiError(RuntimeError):
    pass


def random_turn(tree: dict, rng: random.Random) -> list[str]:
    moves = []
    while tree:
        move = rng.choice(sorted(tree))
        moves.append(move)
        tree = tree[move]
    return moves


def signed(secret: str, timestamp: str, raw_body: bytes, signature: str) -> bool:
    """X-DiceChess-Signature is hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the secret."""
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) < SIGNATURE_MAX_AGE_S
    return fresh and hmac.compare_digest(expected, signature)


class Bot:
    def __init__(self, api: str, token: str, *, games: int = 0, accept: bool = False, tick: float = 0.1):
        self.http = httpx.Client(base_url=api, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        me = self.call("GET", "/bot/account")
        self.id = f"{me['team']}/{me['name']}"
        self.public_name = f"{me['team']} {me['name']}"  # how games show this bot in `players`
        self.games, self.accept, self.tick = games, accept, tick
        self.rng = random.Random()
        self.ready, self.stop = threading.Event(), threading.Event()
        self.results: dict[str, dict] = {}
        self.secret: str | None = None
        self.failed: Exception | None = None

    def log(self, message: str) -> None:
        # one write a line: print() writes the text and its newline apart, and two bots' threads
        # ran their lines together ("...over: {...}[acme/b] game ... over: ...")
        sys.stdout.write(f"[{self.id}] {message}\n")
        sys.stdout.flush()

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        response = self.http.request(method, path, json=body)
        if response.status_code >= 400 and response.status_code != 409:  # 409 carries a move verdict
            raise ApiError(f"{method} {path} -> {response.status_code} {response.text}")
        return response.json() if response.content else {}

    # ----- the lobby ------------------------------------------------------------------------

    def challenge(self, target: str) -> None:
        team, name = target.split("/", 1)
        created = self.call("POST", "/bot/challenge", {"team": team, "name": name})
        self.log(f"challenged {target}: {created['id']}")

    def accept_challenge(self, challenge_id: str) -> None:
        game = self.call("POST", f"/bot/challenge/{challenge_id}/accept")
        self.log(f"accepted {challenge_id} -> game {game['gameId']}")

    def accept_pending(self) -> None:
        if self.accept:
            for challenge in self.call("GET", "/bot/challenges")["in"]:
                self.accept_challenge(challenge["id"])

    # ----- playing --------------------------------------------------------------------------

    def choose(self, game_id: str, tree: dict | None) -> list[str]:
        """A random turn; an inline tree may be null (too large): the moves endpoint has it all."""
        if tree is None:
            tree = self.call("GET", f"/games/{game_id}/moves")["legalMoves"]
        return random_turn(tree, self.rng)

    def play(self, game_id: str, seat: str, tree: dict | None) -> None:
        turn = self.choose(game_id, tree)
        if not turn:
            return  # forced pass: the server plays it
        verdict = self.call("POST", f"/bot/game/{game_id}/move", {"moves": turn})
        self.log(f"{game_id[:8]} {seat}: {' '.join(turn):18} -> {verdict}")

    def finished(self, game_id: str) -> None:
        if game_id in self.results:
            return
        state = self.call("GET", f"/games/{game_id}")
        self.results[game_id] = over = state["status"].get("Ended", {}).get("over", state["status"])
        self.log(f"game {game_id} over: {json.dumps(over)}")
        if self.games and len(self.results) >= self.games:
            self.stop.set()

    # ----- mode poll ------------------------------------------------------------------------

    def run_poll(self, *, play: bool = True) -> None:
        self.ready.set()
        seen: set[str] = set()
        while not self.stop.is_set():
            try:
                self.accept_pending()
                games = self.call("GET", "/bot/games")["games"]
                live = {g["gameId"] for g in games}
                for game_id in seen - live:  # it left the listing: it is over
                    self.finished(game_id)
                seen = live
                for g in games:
                    if play and g["dicePending"] and g["activeSeat"] == g["seat"]:
                        self.play(g["gameId"], g["seat"], None)
            except (httpx.HTTPError, ApiError) as error:  # a hiccup: the next tick sees the truth
                self.log(f"poll failed: {error}")
            self.stop.wait(self.tick)

    # ----- mode stream ----------------------------------------------------------------------

    def run_stream(self) -> None:
        threading.Thread(target=self.follow_account, daemon=True).start()
        self.stop.wait()

    def follow_account(self) -> None:
        try:
            self.read_account_stream()
        except Exception as error:  # the server went away: nothing left to do
            self.log(f"account stream ended: {error!r}")
        self.stop.set()

    def read_account_stream(self) -> None:
        watched: set[str] = set()

        def watch(game_id: str) -> None:
            if game_id not in watched:
                watched.add(game_id)
                threading.Thread(target=self.follow_game, args=(game_id,), daemon=True).start()

        with self.http.stream("GET", "/bot/stream/event", timeout=STREAM_TIMEOUT) as events:
            lines = events.iter_lines()
            next(lines)  # the first line (blank) means: subscribed
            for game in self.call("GET", "/bot/games")["games"]:  # started before we listened
                watch(game["gameId"])
            self.accept_pending()
            self.ready.set()
            for line in lines:
                event = json.loads(line) if line else {}  # a blank line is a keep-alive
                if "ChallengeReceived" in event and self.accept:
                    self.accept_challenge(event["ChallengeReceived"]["id"])
                elif "GameStart" in event:
                    watch(event["GameStart"]["gameId"])

    def follow_game(self, game_id: str) -> None:
        """Play one game from its stream; a lost stream is reopened (its Snapshot catches up)."""
        while not self.stop.is_set():
            try:
                if self.read_game_stream(game_id):
                    break
            except (httpx.HTTPError, ApiError) as error:
                self.log(f"{game_id[:8]} stream lost: {error!r}")
            self.stop.wait(1)
        self.finished(game_id)

    def read_game_stream(self, game_id: str) -> bool:
        """True once the game is over; False when the stream ended early (e.g. dropped as slow)."""
        seat = None
        with self.http.stream("GET", f"/bot/game/stream/{game_id}", timeout=STREAM_TIMEOUT) as stream:
            for line in stream.iter_lines():
                if not line:
                    continue  # keep-alive
                kind, event = next(iter(json.loads(line).items()))
                if kind == "Snapshot":
                    state, players = event["state"], event["state"]["players"]
                    seat = "White" if players["white"]["name"] == self.public_name else "Black"
                    if "Ended" in state["status"]:
                        return True
                    if state["dicePending"] and state["activeSeat"] == seat:
                        self.play(game_id, seat, state["legalMoves"])
                elif kind == "DiceRolled" and event["seat"] == seat:
                    self.play(game_id, seat, event["legalMoves"])
                elif kind == "Rejected":
                    self.log(f"{game_id[:8]} rejected: {event['reason']}")
                elif kind == "GameEnded":
                    return True
        return False

    # ----- mode webhook ---------------------------------------------------------------------

    def run_webhook(self, listen: str, public_url: str | None) -> None:
        host, port = listen.rsplit(":", 1)
        server = ThreadingHTTPServer((host, int(port)), self.webhook_handler())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = public_url or f"http://{host}:{server.server_port}/"
        self.secret = self.call("POST", "/bot/webhook", {"url": url})["secret"]  # the handshake runs meanwhile
        self.log(f"webhook registered at {url}")
        try:
            self.run_poll(play=False)  # only to accept challenges and notice finished games
        finally:
            self.call("DELETE", "/bot/webhook")
            server.shutdown()

    def webhook_handler(self):
        bot = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                message = json.loads(raw or b"{}")
                if message.get("type") == "verification":  # ownership handshake: unsigned, answered by its type
                    return self.answer(200, {"nonce": message["nonce"]})
                timestamp = self.headers.get("X-DiceChess-Timestamp", "")
                signature = self.headers.get("X-DiceChess-Signature", "")
                if bot.secret is None or not signed(bot.secret, timestamp, raw, signature):
                    return self.answer(401, {"error": "bad signature"})
                if message.get("type") != "yourTurn":
                    return self.answer(200, {})
                turn = bot.choose(message["gameId"], message["state"]["legalMoves"])
                bot.log(f"{message['gameId'][:8]} {message['seat']}: {' '.join(turn):18} (webhook)")
                self.answer(200, {"moves": turn})

            def answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass  # quiet

        return Handler

    def run(self, mode: str, listen: str = "127.0.0.1:0", public_url: str | None = None) -> None:
        try:
            if mode == "poll":
                self.run_poll()
            elif mode == "stream":
                self.run_stream()
            else:
                self.run_webhook(listen, public_url)
        except Exception as error:
            self.log(f"stopped: {error!r}")
            self.failed = error
            self.stop.set()


def new_token(api: str, name: str, registered: bool) -> str:
    """A fresh identity: anonymous, or registered (webhooks are for registered bots only)."""
    if registered:
        body = {"team": f"demo-{secrets.token_hex(4)}", "name": name}
        response = httpx.post(f"{api}/bot/register", json=body, timeout=30)
    else:
        response = httpx.post(f"{api}/bot/anon", params={"name": name}, timeout=30)
    if response.status_code != 201:
        raise SystemExit(f"could not get a bot token: {response.status_code} {response.text}")
    return response.json()["token"]


def demo(args) -> None:
    """Two fresh bots, one challenges the other, both play in `args.mode` until the game ends."""
    registered = args.mode == "webhook"
    white_ish = Bot(args.api, new_token(args.api, "demo-a", registered), games=1, tick=args.tick)
    black_ish = Bot(args.api, new_token(args.api, "demo-b", registered), games=1, accept=True, tick=args.tick)
    threads = [threading.Thread(target=bot.run, args=(args.mode,), daemon=True) for bot in (white_ish, black_ish)]
    for thread in threads:
        thread.start()
    for bot in (white_ish, black_ish):
        if not bot.ready.wait(30):
            raise SystemExit(f"{bot.id} did not get ready")
    white_ish.challenge(black_ish.id)
    while any(thread.is_alive() for thread in threads):
        if white_ish.failed or black_ish.failed:
            raise SystemExit("a bot failed; see above")
        time.sleep(0.1)
    for game_id, over in white_ish.results.items():
        print(f"result: {json.dumps(over)}")
        print(f"game id: {game_id}  (GET {args.api}/games/{game_id}/history)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--api",
        default=f"http://127.0.0.1:{os.environ.get('PLAY_PORT') or 8080}",
        help="playsite base URL (default: this machine, port $PLAY_PORT or 8080)",
    )
    parser.add_argument("--mode", choices=("poll", "stream", "webhook"), default="poll")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--token", help="a bot token (from POST /bot/anon or /bot/register)")
    who.add_argument("--anon", metavar="NAME", help="mint an anonymous bot with this name")
    who.add_argument("--demo", action="store_true", help="two fresh bots play one whole game")
    parser.add_argument("--challenge", metavar="TEAM/NAME", help="challenge this bot")
    parser.add_argument("--accept", action="store_true", help="accept incoming challenges")
    parser.add_argument("--games", type=int, default=0, help="stop after N finished games (0: never)")
    parser.add_argument("--listen", default="127.0.0.1:0", help="webhook mode: host:port to serve on")
    parser.add_argument("--public-url", help="webhook mode: the URL the server should POST to")
    parser.add_argument("--tick", type=float, default=0.1, help="seconds between polls")
    args = parser.parse_args()
    try:
        play(parser, args)
    except httpx.TransportError as error:
        # A server that is not running is an operator's situation, not a crash: one line.
        raise SystemExit(f"example_bot: cannot reach {args.api} ({type(error).__name__}); is `playsite serve` running?")


def play(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.demo:
        return demo(args)
    if not (args.token or args.anon):
        parser.error("give --token, --anon NAME or --demo")
    token = args.token or new_token(args.api, args.anon, registered=False)
    bot = Bot(args.api, token, games=args.games, accept=args.accept, tick=args.tick)
    bot.log(f"playing in {args.mode} mode")
    if args.challenge:
        threading.Thread(target=lambda: bot.ready.wait() and bot.challenge(args.challenge), daemon=True).start()
    try:
        bot.run(args.mode, args.listen, args.public_url)
    except KeyboardInterrupt:
        pass
    if bot.failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
