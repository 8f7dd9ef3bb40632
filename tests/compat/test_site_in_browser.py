"""The ecosystem's site as a browser runs it: a page served from its own origin (another port)
calls playsite with `fetch` and opens the game socket, in Chromium. From an origin on
PLAY_CORS_ORIGINS every call gets through, preflighted writes and credentialed reads included;
from any other origin the browser blocks them all."""

from __future__ import annotations

import http.server
import threading

import pytest

from tests.support.server import ServerProcess

PAGE = b"<!doctype html><title>site</title><p>the site</p>"

SITE_CALLS = """
async (api) => {
  const json = { 'content-type': 'application/json' };
  const guest = crypto.randomUUID();
  const out = {};
  let answer = await fetch(`${api}/games`, { method: 'POST', headers: json,
    body: JSON.stringify({ white: guest, black: guest, timeControl: { Fischer: { initialSeconds: 180, incrementSeconds: 2 } } }) });
  out.createGame = answer.status;
  const game = await answer.json();
  out.getState = (await fetch(`${api}/games/${game.gameId}`)).status;
  out.listGames = (await fetch(`${api}/games`)).status;
  answer = await fetch(`${api}/lobby/seeks`, { method: 'POST', headers: json, body: JSON.stringify({ creator: guest }) });
  out.createSeek = answer.status;
  const seek = await answer.json();
  out.seekStatus = (await fetch(`${api}/lobby/seeks/${seek.seekId}?secret=${encodeURIComponent(seek.secret)}`)).status;
  out.cancelSeek = (await fetch(`${api}/lobby/seeks/${seek.seekId}?secret=${encodeURIComponent(seek.secret)}`, { method: 'DELETE' })).status;
  out.playerGames = (await fetch(`${api}/players/${encodeURIComponent(guest)}/games`)).status;
  out.claimedGuests = (await fetch(`${api}/auth/me/guests`, { credentials: 'include' })).status;
  out.ingest = (await fetch(`${api}/ingest/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status;
  const token = game.tokens.find((entry) => entry.seat === 'White').token;
  out.socket = await new Promise((resolve) => {
    const ws = new WebSocket(`${api.replace(/^http/, 'ws')}/games/${game.gameId}/ws?token=${encodeURIComponent(token)}`);
    ws.onmessage = (event) => { resolve(Object.keys(JSON.parse(event.data))[0]); ws.close(); };
    ws.onclose = () => resolve('closed');
  });
  return out;
}
"""

BLOCKED = """
async (api) => {
  const attempt = async (url, init) => { try { return (await fetch(url, init)).status; } catch (error) { return error.name; } };
  return {
    read: await attempt(`${api}/games`),
    write: await attempt(`${api}/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
  };
}
"""


class QuietPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_port():
    """The site's own web server (a real one, on another port): it serves a blank page."""
    served = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietPage)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served.server_address[1]
    served.shutdown()
    thread.join()


@pytest.fixture(scope="module")
def api(site_port):
    server = ServerProcess({"DICE_SEED_WINDOW_MS": "0", "PLAY_CORS_ORIGINS": f"http://127.0.0.1:{site_port}"}).start()
    yield server.base_url
    server.close()


def test_from_an_allowed_origin_every_call_of_the_site_gets_through(context, site_port, api):
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{site_port}/")
    results = page.evaluate(SITE_CALLS, api)
    assert results == {
        "createGame": 201, "getState": 200, "listGames": 200, "createSeek": 201, "seekStatus": 200, "cancelSeek": 204,
        "playerGames": 404,  # readable: this server keeps no finished games (no PostgreSQL), and says so
        "claimedGuests": 401, "ingest": 422, "socket": "Snapshot",
    }


def test_from_any_other_origin_the_browser_blocks_every_call(context, site_port, api):
    page = context.new_page()
    page.goto(f"http://localhost:{site_port}/")  # the same server under another name: another origin
    assert page.evaluate(BLOCKED, api) == {"read": "TypeError", "write": "TypeError"}
