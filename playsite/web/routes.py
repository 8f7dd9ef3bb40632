"""The web client: its pages (`/`, `/play/<id>`, `/history`, `/replay/<id>`, `/ranking`,
`/@/<nickname>`, `/@/<team>/<name>`) and `GET /assets/<hashed name>`.

Every page has a path of its own, apart from the JSON routes it reads (`/play/<id>` beside
`/games/<id>`, `/ranking` beside `/leaderboard`, `/@/<nickname>` beside `/players/<nickname>`),
so no answer depends on the Accept header and nothing needs `Vary`.

Assets are read once at startup; each is served under `<stem>.<first 12 hex of its
SHA-256><suffix>` with `Cache-Control: public, max-age=31536000, immutable`, and the pages
name them through `{{asset:<file>}}` placeholders filled in at startup. A module imports
another by its plain name (`./net.js`), rewritten to the hashed one the same way, so a
change to any file changes the name of everything that loads it. Pages are
`Cache-Control: no-cache` and carry a strict Content-Security-Policy: no inline script or
style, nothing from another origin.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from quart import Response

from playsite.http.errors import Refusal, RouteFamily
from playsite.services import Services

HERE = Path(__file__).resolve().parent
IMMUTABLE = "public, max-age=31536000, immutable"
MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
IMPORT = re.compile(r"""(from\s+["'])\./([\w.-]+\.js)(["'])""")
PAGES = ("home", "play", "history", "replay", "ranking", "profile")
PLACEHOLDER = re.compile(r"\{\{asset:([\w.-]+)\}\}")


class Assets:
    """Every asset with its hashed name, computed once (imports rewritten first, leaves first)."""

    def __init__(self, directory: Path = HERE / "assets"):
        self.sources = {path.name: path.read_bytes() for path in sorted(directory.iterdir()) if path.is_file()}
        self.names: dict[str, str] = {}
        self.bodies: dict[str, tuple[bytes, str]] = {}
        for name in self.sources:
            self._hash(name, ())

    def _hash(self, name: str, chain: tuple[str, ...]) -> str:
        if name in self.names:
            return self.names[name]
        if name in chain:
            raise ValueError(f"asset import cycle: {' -> '.join((*chain, name))}")
        body = self.sources[name]
        if name.endswith(".js"):
            body = IMPORT.sub(lambda m: f"{m[1]}./{self._hash(m[2], (*chain, name))}{m[3]}", body.decode()).encode()
        stem, dot, suffix = name.rpartition(".")
        hashed = f"{stem}.{hashlib.sha256(body).hexdigest()[:12]}.{suffix}"
        self.names[name] = hashed
        self.bodies[hashed] = (body, MEDIA.get(f".{suffix}", "application/octet-stream"))
        return hashed

    def page(self, file: str) -> str:
        text = (HERE / "pages" / file).read_text(encoding="utf-8")
        return PLACEHOLDER.sub(lambda m: f"/assets/{self.names[m[1]]}", text)


def web_routes(services: Services) -> RouteFamily:
    routes = RouteFamily("web", __name__)
    assets = Assets()
    pages = {name: assets.page(f"{name}.html") for name in PAGES}

    def page(name: str) -> Response:
        return Response(pages[name], content_type="text/html; charset=utf-8", headers=PAGE_HEADERS)

    @routes.get("/")
    async def home():
        return page("home")

    @routes.get("/play/<game_id>")
    async def play(game_id: str):
        return page("play")

    @routes.get("/history")
    async def finished_games():
        return page("history")

    @routes.get("/replay/<game_id>")
    async def replay(game_id: str):
        return page("replay")

    @routes.get("/ranking")
    async def ranking():
        return page("ranking")

    @routes.get("/@/<nickname>")
    async def player(nickname: str):
        return page("profile")

    @routes.get("/@/<team>/<name>")
    async def bot(team: str, name: str):
        return page("profile")

    @routes.get("/assets/<name>")
    async def asset(name: str):
        found = assets.bodies.get(name)
        if found is None:
            raise Refusal(404, "not_found", "no such asset")
        body, media = found
        return Response(body, content_type=media, headers={"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"})

    return routes
