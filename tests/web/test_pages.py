"""The web client's pages and assets as served: caching, the CSP, no inline code."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from playsite.strength.stats import DEFAULT_SPRT
from playsite.web.routes import CSP, Assets
from tests.support.app import booted, friend_game, test_client


class Inline(HTMLParser):
    """Finds inline scripts and styles, and the asset URLs a page loads."""

    def __init__(self):
        super().__init__()
        self.inline, self.assets, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and "src" not in attrs:
            self._open = "script"
        if tag == "style":
            self._open = "style"
        if any(name.startswith("on") for name in attrs) or "style" in attrs:
            self.inline.append(f"{tag} attribute")
        for key in ("src", "href"):
            if attrs.get(key, "").startswith("/assets/"):
                self.assets.append(attrs[key])

    def handle_data(self, data):
        if self._open and data.strip():
            self.inline.append(self._open)

    def handle_endtag(self, tag):
        self._open = None


async def test_pages_are_no_cache_with_a_strict_csp_and_no_inline_code():
    async with booted() as services:
        client = test_client(services)
        game = (await friend_game(services)).room.game_id  # a game page of no game is a 404
        for path in ("/", f"/play/{game}", "/history", f"/replay/{game}", "/ranking", "/@/alice", "/@/acme/star", "/rules"):
            page = await client.get(path)
            assert page.status_code == 200 and page.mimetype == "text/html"
            assert page.headers["Cache-Control"] == "no-cache"
            assert page.headers["Content-Security-Policy"] == CSP
            assert "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP
            assert page.headers["X-Content-Type-Options"] == "nosniff"
            parser = Inline()
            parser.feed(await page.get_data(as_text=True))
            assert parser.inline == [], path
            assert parser.assets, path
            for url in parser.assets:
                asset = await client.get(url)
                assert asset.status_code == 200, url
                assert asset.headers["Cache-Control"] == "public, max-age=31536000, immutable"
                assert re.fullmatch(r"/assets/[\w-]+\.[0-9a-f]{12}\.(js|css|svg)", url)


async def test_every_page_has_the_one_site_header_with_its_section_marked_and_the_icon():
    """The head's metadata and the site's header are written once (`{{head}}`, `{{header:..}}`)
    and every page, the 404 included, carries them, with its own section marked current."""
    sections = {"/": "/", "/history": "/history", "/ranking": "/ranking", "/ranking/strength": "/ranking",
                "/play/{game}": None, "/@/alice": None, "/write-a-bot": None,
                "/rules": None, "/no-such-page": None}
    async with booted() as services:
        client = test_client(services)
        game = (await friend_game(services)).room.game_id
        for path, current in sections.items():
            path = path.format(game=game)
            text = await (await client.get(path)).get_data(as_text=True)
            assert "{{" not in text, path
            assert text.count('<header class="site">') == 1 and text.count('<nav aria-label="site">') == 1, path
            assert text.count('<meta name="viewport"') == 1 and text.count('rel="icon"') == 1, path
            assert re.search(r'<link rel="icon" type="image/svg\+xml" href="/assets/favicon\.[0-9a-f]{12}\.svg">', text)
            marked = re.findall(r'<a href="([^"]+)" aria-current="page">', text)
            assert marked == ([current] if current else []), path


async def test_assets_are_named_by_their_content_and_imports_follow():
    assets = Assets()
    for name, hashed in assets.names.items():
        stem = name.rsplit(".", 1)[0]
        assert hashed.startswith(stem + ".") and hashed in assets.bodies
    play = assets.bodies[assets.names["play.js"]][0].decode()
    assert f'from "./{assets.names["board.js"]}"' in play and f'from "./{assets.names["net.js"]}"' in play
    async with booted() as services:
        client = test_client(services)
        missing = await client.get("/assets/play.000000000000.js")
        assert missing.status_code == 404
        assert (await client.get("/assets/play.js")).status_code == 404, "only hashed names are served"


async def test_a_page_names_every_module_its_module_imports_for_the_browser_to_ask_at_once():
    """Each page's module is followed by a `modulepreload` link for every module it imports,
    directly or not, each once: read here by following the served modules' own imports. Without
    them a first visit found play.js's imports one round trip after another (four deep)."""
    static_import = re.compile(r'from\s+"\./([\w.-]+\.js)"')
    async with booted() as services:
        client = test_client(services)
        game = (await friend_game(services)).room.game_id  # a game page of no game is a 404
        for path in ("/", f"/play/{game}", "/history", f"/replay/{game}", "/ranking", "/ranking/strength", "/@/alice",
                     "/write-a-bot", "/rules", "/sign-in-failed", "/no-such-page"):
            text = await (await client.get(path)).get_data(as_text=True)
            (script,) = re.findall(r'<script type="module" src="/assets/([\w.-]+)"></script>', text)
            preloaded = re.findall(r'<link rel="modulepreload" href="/assets/([\w.-]+)">', text)
            assert len(preloaded) == len(set(preloaded)), path
            imported, waiting = set(), [script]
            while waiting:
                body = await (await client.get(f"/assets/{waiting.pop()}")).get_data(as_text=True)
                for name in static_import.findall(body):
                    if name not in imported:
                        imported.add(name)
                        waiting.append(name)
            assert set(preloaded) == imported and script not in preloaded, path
            assert imported, path  # every page's module imports another (site.js at least)


async def test_assets_in_subfolders_are_served_by_hashed_path_and_named_by_the_modules():
    """The vendored piece set: each SVG under `pieces/chessnut/` gets a hashed name in its folder,
    board.js names the hashed files, the set's LICENSE and NOTICE are never served."""
    assets = Assets()
    board = assets.bodies[assets.names["board.js"]][0].decode()
    for letter in "KQRBNP":
        for colour in "wb":
            name = f"pieces/chessnut/{colour}{letter}.svg"
            hashed = assets.names[name]
            assert re.fullmatch(rf"pieces/chessnut/{colour}{letter}\.[0-9a-f]{{12}}\.svg", hashed)
            assert f'new URL("./{hashed}", import.meta.url)' in board
    assert not any("LICENSE" in name or "NOTICE" in name for name in assets.names)
    async with booted() as services:
        client = test_client(services)
        king = await client.get(f"/assets/{assets.names['pieces/chessnut/wK.svg']}")
        assert king.status_code == 200 and king.mimetype == "image/svg+xml"
        assert king.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert (await king.get_data()).startswith(b"<svg")
        for missing in ("pieces/chessnut/wK.svg", "pieces/chessnut/LICENSE", "pieces/chessnut/NOTICE",
                        "pieces/../board.js", "pieces/chessnut/wK.000000000000.svg"):
            assert (await client.get(f"/assets/{missing}")).status_code == 404, missing


def test_references_between_assets_are_rewritten_relative_to_the_naming_file(tmp_path):
    """Imports, `new URL(...)` and CSS `url(...)` name other assets by their plain relative
    path; each is rewritten to the hashed one, and a change to the named file renames the
    file naming it. A reference to a file that is not an asset stops the server from starting."""
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "a.svg").write_text("<svg/>")
    (tmp_path / "set" / "LICENSE").write_text("not served")
    (tmp_path / "set" / "theme.css").write_text(".x { background: url(./a.svg); }")
    (tmp_path / "util.js").write_text("export const one = 1;")
    (tmp_path / "main.js").write_text(
        'import { one } from "./util.js";\nconst a = new URL("./set/a.svg", import.meta.url);\n')
    assets = Assets(tmp_path)
    assert set(assets.names) == {"set/a.svg", "set/theme.css", "util.js", "main.js"}
    main = assets.bodies[assets.names["main.js"]][0].decode()
    assert f'from "./{assets.names["util.js"]}"' in main
    assert f'new URL("./{assets.names["set/a.svg"]}", import.meta.url)' in main
    theme = assets.bodies[assets.names["set/theme.css"]][0].decode()
    assert f"url(./{assets.names['set/a.svg'].split('/')[-1]})" in theme
    before = assets.names["main.js"]
    (tmp_path / "set" / "a.svg").write_text("<svg><g/></svg>")
    assert Assets(tmp_path).names["main.js"] != before
    (tmp_path / "main.js").write_text('import { two } from "./missing.js";\n')
    with pytest.raises(ValueError, match="missing.js"):
        Assets(tmp_path)


async def test_the_strength_page_names_the_margin_its_test_uses():
    """Play-through (session 57): the page asked whether a bot is stronger "by at least the
    chosen margin" and never said what that was."""
    async with booted() as services:
        text = await (await test_client(services).get("/ranking/strength")).get_data(as_text=True)
    assert f"by at least {DEFAULT_SPRT.elo1:.0f} Elo points" in text
    assert f"{1 - DEFAULT_SPRT.alpha:.0%} confidence" in text
