"""The web client: its pages (`/`, `/play/<id>`, `/history`, `/replay/<id>`, `/ranking`,
`/@/<nickname>`, `/@/<team>/<name>`, `/account`, `/account/bots`), `GET /assets/<hashed name>`, the favicon, the header's
site read (`GET /web/site`), the dice verifier (`GET /verify_dice.py`, the one-file
`playsite/verifier.py` a replay offers to anyone who would check a game without the page) and
the not-found page.

Every page has a path of its own, apart from the JSON routes it reads (`/play/<id>` beside
`/games/<id>`, `/ranking` beside `/leaderboard`, `/@/<nickname>` beside `/players/<nickname>`),
so no answer depends on the Accept header and nothing needs `Vary`. The same holds for a path
nothing serves: inside an API family (its first segment is one of a JSON route's, e.g.
`/games/...`, `/bot/...`) it is the family's JSON 404, anywhere else the HTML not-found page.

Assets are read once at startup; each is served under `<stem>.<first 12 hex of its
SHA-256><suffix>` with `Cache-Control: public, max-age=31536000, immutable`, and the pages
name them through `{{asset:<file>}}` placeholders filled in at startup (with `{{head}}` and
`{{header:<section>}}`, what every page shares). A module imports
another by its plain name (`./net.js`), rewritten to the hashed one the same way, so a
change to any file changes the name of everything that loads it. Pages are
`Cache-Control: no-cache` and carry a strict Content-Security-Policy: no inline script or
style, nothing from another origin.
"""

from __future__ import annotations

import hashlib
import html
import posixpath
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from quart import Response, current_app, has_request_context, request
from werkzeug.exceptions import NotFound

from playsite import verifier
from playsite.accounts.admins import AdminAuthority
from playsite.accounts.service import Accounts
from playsite.http.auth import credentials
from playsite.http.edge import refusal_of
from playsite.http.errors import Refusal, RouteFamily, render
from playsite.http.responses import json_response
from playsite.http.encoding import StaticBody, static_response

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
# What a module or stylesheet names another asset by: `from "./x.js"`, `import("./x.js")`,
# `new URL("./pieces/set/wK.svg", import.meta.url)` and CSS `url(./pieces/set/wK.svg)`, always
# relative to the naming file's folder.
REFERENCE = {
    ".js": re.compile(
        r"""((?:from\s+|import\(\s*)["']|new URL\(\s*["'])\./([\w./-]+\.\w+)(["'])"""
    ),
    ".css": re.compile(r"""(url\(\s*["']?)\./([\w./-]+\.\w+)(["']?\s*\))"""),
}
PAGES = (
    "home", "play", "history", "replay", "ranking", "strength", "profile", "bots", "account", "yourbots", "rules",
    "notfound", "signinfailed",
)
ICON_CACHE = "public, max-age=86400"
"""`/favicon.ico` has no hashed name: a day in caches."""
PRIVATE = {"Cache-Control": "no-store, private", "Vary": "Cookie"}
PLACEHOLDER = re.compile(r"\{\{asset:([\w./-]+)\}\}")
MODULE_SCRIPT = re.compile(r'<script type="module" src="\{\{asset:([\w./-]+)\}\}"></script>')
"""A page's module, followed in the page by a `modulepreload` link for every module it imports,
directly or not: the browser asks for them all as the page is read, where it found each import
only once the module naming it had come (play.js -> movestrip.js -> movelist.js -> board.js:
four round trips one after another on a first visit)."""
SHARED = re.compile(r"\{\{(head|header:(\w+))\}\}")
"""What every page shares, written once: `{{head}}` (the metadata and the icon) and
`{{header:<current>}}` (the site's header, `<current>` the link of the section the page is in,
or `none`)."""
HEAD = """<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" type="image/svg+xml" href="{icon}">"""
SECTIONS = (("play", "/", "Play"), ("history", "/history", "History"), ("ranking", "/ranking", "Ranking"))
"""The site's header links: (section, address, text)."""


def site_header(current: str) -> str:
    if current != "none" and current not in {section for section, _, _ in SECTIONS}:
        raise ValueError(f"no section {current!r} in the site's header")
    marked = ' aria-current="page"'
    links = " ".join(
        f'<a href="{href}"{marked if section == current else ""}>{text}</a>' for section, href, text in SECTIONS
    )
    return f"""<header class="site">
  <a class="brand" href="/">playsite</a>
  <nav aria-label="site">{links}</nav>
  <span id="account" class="account"></span>
</header>"""


class Assets:
    """Every asset with its hashed name, computed once (references rewritten first, leaves first).

    Assets are the files under `directory` with a suffix in MEDIA, subfolders included, named
    by their path relative to it (`board.js`, `pieces/chessnut/wK.svg`); a hashed name keeps
    the folder (`pieces/chessnut/wK.<hash>.svg`). Other files there (a vendored set's LICENSE
    and NOTICE) are never served.
    """

    def __init__(self, directory: Path = HERE / "assets"):
        self.sources = {
            path.relative_to(directory).as_posix(): path.read_bytes()
            for path in sorted(directory.rglob("*"))
            if path.is_file() and path.suffix in MEDIA
        }
        self.names: dict[str, str] = {}
        self.bodies: dict[str, tuple[bytes, str]] = {}
        self.imports: dict[str, tuple[str, ...]] = {}  # a module's static imports, by plain name
        for name in self.sources:
            self._hash(name, ())

    def _hash(self, name: str, chain: tuple[str, ...]) -> str:
        if name in self.names:
            return self.names[name]
        if name in chain:
            raise ValueError(f"asset import cycle: {' -> '.join((*chain, name))}")
        body = self.sources[name]
        folder, _, _ = name.rpartition("/")
        stem, _, suffix = name.rpartition(".")
        reference = REFERENCE.get(f".{suffix}")
        imports: list[str] = []
        if reference is not None:

            def hashed_reference(match: re.Match[str]) -> str:
                target = posixpath.normpath(posixpath.join(folder, match[2]))
                if target not in self.sources:
                    raise ValueError(f"{name} names {match[2]}, which is not an asset")
                if match[1].startswith("from"):
                    imports.append(target)
                return f"{match[1]}./{posixpath.relpath(self._hash(target, (*chain, name)), folder or '.')}{match[3]}"

            body = reference.sub(hashed_reference, body.decode()).encode()
        hashed = f"{stem}.{hashlib.sha256(body).hexdigest()[:12]}.{suffix}"
        self.names[name] = hashed
        self.imports[name] = tuple(imports)
        self.bodies[hashed] = (body, MEDIA[f".{suffix}"])
        return hashed

    def imported(self, module: str) -> list[str]:
        """Every module `module` imports, directly or not (static imports), each once, nearest first."""
        found: list[str] = []
        waiting = list(self.imports[module])
        while waiting:
            name = waiting.pop(0)
            if name not in found and name != module:
                found.append(name)
                waiting.extend(self.imports[name])
        return found

    def page(self, file: str) -> str:
        """A page with its assets' hashed names, and what every page shares put in."""
        text = (HERE / "pages" / file).read_text(encoding="utf-8")
        head = HEAD.format(icon=f"/assets/{self.names['favicon.svg']}")
        text = SHARED.sub(lambda m: head if m[1] == "head" else site_header(m[2]), text)
        text = MODULE_SCRIPT.sub(lambda m: "\n".join(
            [m[0], *(f'<link rel="modulepreload" href="{{{{asset:{name}}}}}">' for name in self.imported(m[1]))]), text)
        return PLACEHOLDER.sub(lambda m: f"/assets/{self.names[m[1]]}", text)


PLACEHOLDER_ORIGIN = "https://this-server"
"""What the pages' commands name the server by, until a known origin or the page's script replaces it."""


def web_routes(
    accounts: Accounts, *, showcase: bool, ratings: bool, rating_period_s: int,
    standing: Callable[[str], Awaitable[str]], profile: Callable[[tuple[str, ...]], Awaitable[str]],
    bot_admins: AdminAuthority | None = None, public_origin: str | None = None,
) -> RouteFamily:
    """The pages and assets; `/web/site` tells them who is signed in (`accounts`), whether the
    showcase table is served (`showcase`) and ratings are kept (`ratings`: a database), how
    often the rating batch counts finished games (`rating_period_s`), and whether accounts
    manage their bots here (`/me/...` is mounted: `bot_admins` is its administrators' authority).
    `standing(game id)`: where a game stands ("live", "finished", "unknown", "unsure"), so that
    a game page of no game is a 404 and one of a finished game its replay; `profile(names)`:
    whether a profile's nickname, or bot's team and name, is somebody's ("known", "unknown",
    "unsure"), so that a profile of nobody is a 404 too."""
    routes = RouteFamily("web", __name__)
    assets = Assets()
    # The server's own address in the pages' commands, where it is known (`PLAY_PUBLIC_ORIGIN`):
    # the shell lines of /write-a-bot then work when the page is fetched without a browser
    # (bot review s74: curl showed https://this-server); a browser's script writes its own.
    origin = PLACEHOLDER_ORIGIN if public_origin is None else html.escape(public_origin.rstrip("/"))
    pages = {name: StaticBody.of(assets.page(f"{name}.html").replace(PLACEHOLDER_ORIGIN, origin).encode()) for name in PAGES}
    packed = {name: StaticBody.of(body) for name, (body, _media) in assets.bodies.items()}

    def page(name: str, status: int = 200) -> Response:
        return static_response(pages[name], content_type="text/html; charset=utf-8", headers=PAGE_HEADERS, status=status)

    api_segments: set[str] = set()

    def in_api_family(path: str) -> bool:
        """Whether the path's first segment is that of a route outside the web family."""
        if not api_segments:
            for rule in current_app.url_map.iter_rules():
                family = rule.endpoint.partition(".")[0] if "." in rule.endpoint else ""
                if family != routes.name and family:
                    api_segments.add(first_segment(rule.rule))
            api_segments.discard("")  # "/" itself is the home page
            api_segments.update(UNMOUNTED_API_SEGMENTS)
        return first_segment(path) in api_segments

    @routes.app_errorhandler(NotFound)
    async def not_found(error: NotFound) -> Response:
        # An unknown address under an API's prefix is the API's JSON refusal, unless a person's
        # browser went there (its navigation says so: play-through s72, `/admin` and `/lobby`
        # showed a JSON error where `/nope` shows the page).
        if not has_request_context():
            return render(refusal_of(error))
        if not in_api_family(request.path):
            return page("notfound", 404)
        answer = page("notfound", 404) if navigated() else render(refusal_of(error))
        answer.headers["Vary"] = "Sec-Fetch-Mode"  # the same address answers either way
        return answer

    @routes.get("/")
    async def home() -> Response:
        return page("home")

    @routes.get("/play/<game_id>")
    async def play(game_id: str) -> Response:
        found = await standing(game_id)
        if found == "unknown":  # the not-found page says "No such game" (play-through s71: a 200)
            return page("notfound", 404)
        if found == "finished":  # a finished game is shown whole by its replay
            return Response("", status=302, headers={"Location": f"/replay/{game_id.lower()}", "Cache-Control": "no-store"})
        return page("play")

    @routes.get("/history")
    async def finished_games() -> Response:
        return page("history")

    @routes.get("/replay/<game_id>")
    async def replay(game_id: str) -> Response:
        if await standing(game_id) == "unknown":
            return page("notfound", 404)
        return page("replay")

    @routes.get("/ranking")
    async def ranking() -> Response:
        return page("ranking")

    @routes.get("/ranking/strength")
    async def strength() -> Response:
        return page("strength")

    @routes.get("/write-a-bot")
    async def write_a_bot() -> Response:
        return page("bots")

    @routes.get("/account")
    async def account() -> Response:
        return page("account")

    @routes.get("/account/bots")
    async def your_bots() -> Response:
        return page("yourbots")

    @routes.get("/rules")
    async def rules() -> Response:
        return page("rules")

    @routes.get("/sign-in-failed")
    async def sign_in_failed() -> Response:
        return page("signinfailed")

    # A profile of nobody is the profile page with 404 (play-through s72: a 200 saying "No player
    # called ..."); the page says so itself, as it does when the database could not tell.
    @routes.get("/@/<nickname>")
    async def player(nickname: str) -> Response:
        return page("profile", 404 if await profile((nickname,)) == "unknown" else 200)

    @routes.get("/@/<team>/<name>")
    async def bot(team: str, name: str) -> Response:
        return page("profile", 404 if await profile((team, name)) == "unknown" else 200)

    @routes.get("/favicon.ico")
    async def favicon() -> Response:
        body, media = assets.bodies[assets.names["favicon.svg"]]
        return Response(body, content_type=media, headers={"Cache-Control": ICON_CACHE, "X-Content-Type-Options": "nosniff"})

    # One-file Python programs to download and run (Python 3 and its standard library alone):
    # the dice verifier a replay offers, and the bot authors' page's example bot.
    def python_file(path: Path, name: str) -> None:
        source = path.read_bytes()

        async def download() -> Response:
            return Response(source, content_type="text/x-python; charset=utf-8", headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "Cache-Control": "public, max-age=3600",
                "X-Content-Type-Options": "nosniff",
            })

        routes.get(f"/{name}", endpoint=f"download_{name.removesuffix('.py')}")(download)

    python_file(Path(verifier.__file__), "verify_dice.py")
    python_file(Path(__file__).resolve().parents[1] / "examples" / "random_bot.py", "random_bot.py")

    @routes.get("/web/site")
    async def site() -> Response:
        """What the pages need to know before asking anything else: always 200, so a page
        never logs a failed request for something this server does not have. `signIn`:
        sign-in is mounted; `account`: who is signed in (or null); `showcase`: the showcase
        table is served; `ratings`: ratings and profiles are kept (a database); `ratingPeriodS`:
        how often ratings are updated (RATING_PERIOD_S; null without ratings), for a rated game's
        "this game counts at the next update"; `bots`: accounts manage their bots here (`/me/...`
        is mounted); `admin`: the signed-in account is on PLAY_ADMINS (`/admin/...` is theirs
        while its authority is settled)."""
        account = await accounts.signed_in(credentials())
        me = None if account is None else {"id": str(account.id), "nickname": account.nickname}
        body = {
            "signIn": accounts.enabled,
            "account": me,
            "showcase": showcase,
            "ratings": ratings,
            "ratingPeriodS": rating_period_s if ratings else None,
            "bots": bot_admins is not None,
            "admin": bot_admins is not None and account is not None and bot_admins.is_admin(account.id),
        }
        return json_response(body, headers=PRIVATE)

    @routes.get("/assets/<path:name>")
    async def asset(name: str) -> Response:
        found = assets.bodies.get(name)
        if found is None:
            raise Refusal(404, "not_found", "no such asset")
        _plain, media = found
        headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
        return static_response(packed[name], content_type=media, headers=headers)

    return routes


UNMOUNTED_API_SEGMENTS = frozenset({"metrics", "admin", "me", "auth", "showcase"})
"""The first segments of API families a server may leave unmounted (`/metrics` without
PLAY_METRICS_TOKEN, `/admin` and `/me` without webhook management, `/auth` without sign-in,
`/showcase` without the table): their 404 is JSON all the same, so a scraper or a client of a
server configured without them is told so in its own terms, not with the web's HTML page."""


def first_segment(path: str) -> str:
    """`/games/<id>/ws` -> `games`; `/` -> ``."""
    return path.lstrip("/").partition("/")[0]


def navigated() -> bool:
    """Whether the request is a browser's navigation (a person following a link or typing an
    address: `Sec-Fetch-Mode: navigate`), which a page answers, rather than a script's or a
    program's request, which the API answers."""
    return request.headers.get("Sec-Fetch-Mode") == "navigate"
