"""Across the whole site, in Chromium against a real `playsite serve`:

- the play page's first load (a fresh browser, nothing cached) transfers at most 200 KB,
  counting every HTTP response (headers and body as sent) and every socket frame received;
- a tour of every page (home, a game from a seat and as a spectator, history, replay,
  ranking, a bot's and a person's profile, the not-found page) logs no console error and no
  uncaught exception. The not-found page's own 404 is the one message allowed there: the
  browser reports the status of the document it was sent.
"""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.browser import finished_game
from tests.support.server import module_server

FIRST_LOAD_BUDGET = 200 * 1024


server = module_server({"DICE_SEED_WINDOW_MS": "0", "PLAY_HOUSE_BOTS": "true"})


def test_the_play_pages_first_load_is_at_most_200_kb(server, chromium):
    live = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    context = chromium.new_context()
    try:
        page = context.new_page()
        responses: list[tuple[str, int]] = []
        frames: list[int] = []
        page.on("requestfinished", lambda request: responses.append((request.url, sum(
            request.sizes()[key] for key in ("responseBodySize", "responseHeadersSize")))))
        page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(
            len(payload.encode() if isinstance(payload, str) else payload))))
        white = live["seats"]["white"]["token"]
        page.goto(f"{server.base_url}/play/{live['gameId']}#seat=White&token={white}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        page.wait_for_load_state("networkidle")
        total = sum(size for _url, size in responses) + sum(frames)
        assert any(url.endswith(".js") for url, _size in responses) and any(url.endswith(".css") for url, _size in responses)
        assert frames, "the socket's frames are counted"
        assert total <= FIRST_LOAD_BUDGET, f"{total} bytes: {sorted(responses, key=lambda r: -r[1])[:5]}"
    finally:
        context.close()


def test_a_tour_of_every_page_logs_no_console_error(server, chromium):
    finished = finished_game(server, 2)
    live = httpx.post(f"{server.base_url}/games", json={}, timeout=10).json()
    white = live["seats"]["white"]["token"]
    stops = [
        ("/", "#bot-list [data-card]"),
        (f"/play/{live['gameId']}#seat=White&token={white}", "#connection[data-state=open]"),
        (f"/play/{live['gameId']}", "#connection[data-state=open]"),
        ("/history", f'li[data-game="{finished}"]'),
        (f"/replay/{finished}", "#fairness[data-state=verified]"),
        ("/ranking", "#ranking-message:not(:empty)"),
        ("/ranking/strength", "#strength-message:not(:empty)"),
        ("/@/house/greedy", "#profile-message:not(:empty)"),
        ("/@/alice", "#profile-message:not(:empty)"),
        ("/no/such/page", "#missing-path:not(:empty)"),
    ]
    context = chromium.new_context()
    try:
        page = context.new_page()
        errors: list[tuple[str, str]] = []
        where = {"path": ""}
        page.on("console", lambda message: errors.append((where["path"], message.text)) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append((where["path"], f"uncaught: {error}")))
        for path, shown in stops:
            where["path"] = path
            page.goto(server.base_url + path)
            expect(page.locator(shown).first).to_be_visible()
            page.wait_for_load_state("networkidle")
        not_found = "/no/such/page"  # the browser reports the status of the document it was sent
        unexpected = [error for error in errors if error[0] != not_found or "status of 404" not in error[1]]
        assert unexpected == []
        assert len([error for error in errors if error[0] == not_found]) <= 1
    finally:
        context.close()
