"""Pictures in Chromium against a real server on PostgreSQL: a bot's profile with a long rating
history (graph with its deviation band, results per period), a bot never rated (a deliberate
empty state), a single-point history, and the strength page drawn from real rated games."""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import psycopg
import pytest
from playwright.sync_api import expect

from tests.support.artifacts import screenshot
from tests.support.axe import serious_violations
from tests.support.browser import PHONE
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.documented import Documented

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 9, 1, 12, 0, tzinfo=timezone.utc)
BOTS = ("acme/star", "acme/moon", "zen/sun")


def fill(url: str) -> None:
    """Three registered bots; a 60-period history for acme/star, one period for acme/moon, none
    for zen/sun; and rated games between the bots for the strength report."""
    with psycopg.connect(url, autocommit=True) as conn:
        for bot_id in BOTS:
            team, name = bot_id.split("/")
            conn.execute("INSERT INTO bots (id, team, name, token_hash) VALUES (%s, %s, %s, %s)",
                         (bot_id, team, name, hashlib.sha256(bot_id.encode()).digest()))
        rating, rd = 1500.0, 350.0
        for period in range(60):
            wins, draws, losses = (period % 3) + 1, period % 2, (period % 4 == 0)
            rating += 12 * wins - 9 * losses - 6
            rd = max(60.0, rd * 0.93)
            conn.execute(
                "INSERT INTO rating_history (principal, period_at, rating, rd, games, wins, draws, losses)"
                " VALUES ('bot:acme/star', %s, %s, %s, %s, %s, %s, %s)",
                (T0 + timedelta(hours=period), rating, rd, wins + draws + losses, wins, draws, int(losses)),
            )
        conn.execute("INSERT INTO bot_ratings (bot_id, rating, rd, games, wins, draws, losses) VALUES ('acme/star', %s, %s, 160, 118, 30, 12)",
                     (rating, rd))
        conn.execute("INSERT INTO rating_history VALUES ('bot:acme/moon', %s, 1540, 290, 2, 1, 1, 0)", (T0,))
        minute = 0
        for white, black, result, times in (("acme/star", "acme/moon", 1, 14), ("acme/moon", "acme/star", -1, 10),
                                            ("acme/star", "zen/sun", 0, 8), ("zen/sun", "acme/moon", 1, 9),
                                            ("acme/moon", "zen/sun", -1, 3), ("acme/star", "zen/sun", 1, 5)):
            for _ in range(times):
                minute += 1
                conn.execute(
                    "INSERT INTO game_results (game_id, finished_at, rated, origin, white_principal, black_principal,"
                    " result, termination, time_control) VALUES (%s, %s, true, 'ladder', %s, %s, %s, 'checkmate',"
                    " '{\"Fischer\": {\"initialSeconds\": 180, \"incrementSeconds\": 2}}')",
                    (str(uuid.uuid4()), T0 + timedelta(minutes=minute), f"bot:{white}", f"bot:{black}", result),
                )


@pytest.fixture
def site(serve, migrated_url):  # noqa: F811
    fill(migrated_url)
    return serve({"DATABASE_URL": migrated_url, "DICE_SEED_WINDOW_MS": "0"})


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_long_history_draws_a_rating_graph_with_its_band_and_results(site, chromium, artifacts, scheme):  # noqa: F811
    context = chromium.new_context(color_scheme=scheme, viewport={"width": 1366, "height": 900}, bypass_csp=True)
    page = context.new_page()
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{site.base_url}/@/acme/star")
    graph = page.locator("svg.rating-chart")
    expect(graph).to_be_visible()
    assert graph.locator("circle.chart-dot").count() == 60
    assert graph.locator("polygon.chart-band").count() == 1
    expect(graph.locator("desc")).to_contain_text("60 rating periods")
    expect(page.locator("svg.results-chart rect.chart-win")).to_have_count(60)
    # a period stands at the same place in both charts (play-through s53: the graph ran edge to
    # edge, the bars sat in the middle of their slots)
    dots = graph.evaluate("(svg) => [...svg.querySelectorAll('circle.chart-dot')].map((c) => Number(c.getAttribute('cx')))")
    bars = page.locator("svg.results-chart").evaluate(
        "(svg) => [...svg.querySelectorAll('rect.chart-win')].map((r) => Number(r.getAttribute('x')) + Number(r.getAttribute('width')) / 2)")
    assert len(dots) == len(bars) == 60 and all(abs(a - b) < 0.01 for a, b in zip(dots, bars)), (dots[:3], bars[:3])
    # against acme/moon 24 won, 0 drawn, 0 lost; zen/sun 5, 8, 0: counts that never wrap apart
    # (read as text: Playwright's text matching takes a no-break space for a space)
    expect(page.locator("#opponents tbody tr")).to_have_count(2)
    # its record, and when its games not counted yet will be: two sentences (play-through s69:
    # "12 lost Ratings are updated ...")
    expect(page.locator("#profile-record")).to_have_text(
        "160 rated games: 118 won, 30 drawn, 12 lost. Ratings are updated every hour; a rated game counts at the next update.")
    expect(page.locator("#opponents").locator("xpath=ancestor::section[1]")).to_contain_text(
        "Every decided game, rated or casual.")  # the summary above counts rated games only
    records = page.locator("#opponents tbody").text_content()
    assert "24\u00a0/\u00a00\u00a0/\u00a00" in records and "5\u00a0/\u00a08\u00a0/\u00a00" in records, records
    screenshot(page, artifacts, f"profile-long-history-{scheme}")
    assert serious_violations(page) == []
    page.set_viewport_size(PHONE)
    expect(graph).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, artifacts, f"profile-long-history-phone-{scheme}")
    assert errors == []
    context.close()


def test_new_and_single_point_histories_look_deliberate(site, chromium, artifacts):  # noqa: F811
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{site.base_url}/@/zen/sun")
    expect(page.locator(".chart-empty").first).to_contain_text("No rated games yet")
    assert page.locator("svg.rating-chart").count() == 0
    # its games, not yet counted by a rating period: the record says so (not "0 rated games: 0
    # won..."), and each recent game says how it ended, its clock, that it is rated, and when
    expect(page.locator("#profile-record")).to_have_text(  # and when they will be (play-through s68)
        "No rated game counted yet. Ratings are updated every hour; a rated game counts at the next update.")
    first = page.locator("#recent .game-row").first
    expect(first.locator(".players-line")).to_have_text(re.compile(r"^(won|lost|drew) as (White|Black) against acme/(star|moon)$"))
    expect(first.locator(".meta")).to_have_text(re.compile(r" · 3\+2 · rated · Sep 1, 2026, "))
    expect(first.locator("a.replay")).to_have_attribute("href", re.compile(r"^/replay/"))
    screenshot(page, artifacts, "profile-never-rated")
    page.goto(f"{site.base_url}/@/acme/moon")
    graph = page.locator("svg.rating-chart")
    expect(graph).to_be_visible()
    expect(graph.locator("desc")).to_contain_text("One rating period so far: 1540")
    assert graph.locator("line.chart-whisker").count() == 1 and graph.locator("polyline").count() == 0
    # the whisker (1540 +- 2 x 290) lies between two labelled lines: the axis covers it
    whisker = graph.locator("line.chart-whisker").bounding_box()
    grid = [box["y"] for box in (line.bounding_box() for line in graph.locator("g.chart-grid line").all())]
    assert min(grid) <= whisker["y"] + 0.5 and whisker["y"] + whisker["height"] <= max(grid) + 0.5, (whisker, grid)
    labels = [int(text) for text in graph.locator("g.chart-grid text.chart-tick").all_text_contents() if text.strip().isdigit()]
    assert min(labels) <= 1540 - 2 * 290 and max(labels) >= 1540 + 2 * 290, labels
    screenshot(page, artifacts, "profile-one-period")
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_strength_page_draws_each_bot_with_its_interval(site, chromium, artifacts, scheme):  # noqa: F811
    context = chromium.new_context(color_scheme=scheme, viewport={"width": 1366, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{site.base_url}/ranking/strength")
    chart = page.locator("svg.interval-chart")
    expect(chart).to_be_visible(timeout=30_000)  # the report is computed in the background at boot
    assert chart.locator("line.chart-interval").count() == 3
    # No dot or interval's end on the plot's edge, against the labels.
    labels = chart.locator("text.chart-label")
    labels_end = max(box["x"] + box["width"] for box in (labels.nth(i).bounding_box() for i in range(labels.count())))
    plot_end = chart.bounding_box()["x"] + chart.bounding_box()["width"]
    for marks in (chart.locator("circle.chart-dot"), chart.locator("line.chart-interval")):
        for i in range(marks.count()):
            box = marks.nth(i).bounding_box()
            assert labels_end + 4 < box["x"] and box["x"] + box["width"] < plot_end - 4, box
    expect(page.locator("#strength-table tbody tr")).to_have_count(3)
    expect(page.locator("#pairs-table tbody tr")).to_have_count(3)
    first = page.locator("#strength-table tbody tr").first
    expect(first).to_contain_text("acme/star")
    expect(page.locator("#pairs-table")).to_contain_text("acme/star")
    # the evidence names the verdict each bound gives, rather than a share of the way between them
    expect(page.locator('#pairs-table td[data-label="evidence"]').first).to_have_text(
        re.compile(r'^LLR −?\d+\.\d\d: "stronger" at \d+\.\d\d, "not stronger by the margin" at −\d+\.\d\d; \d+ games?$'))
    expect(page.locator("#strength-table thead")).to_contain_text("chance above the next")
    # a chance, never a certainty: three one-sided games are not "100%" (session 51's notes)
    chances = page.locator('#strength-table td[data-label="chance above the next"]').all_text_contents()
    assert chances[-1] == "" and all(re.fullmatch(r"<1%|>99%|[1-9]\d?%", text) for text in chances[:-1]), chances
    assert ">99%" in chances or "<1%" in chances, chances  # the page's data has a one-sided pair
    screenshot(page, artifacts, f"strength-{scheme}")
    assert serious_violations(page) == []
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # on a phone each row is a card: every value on screen beside its label, none scrolled away
    for table in ("#strength-table", "#pairs-table"):
        assert page.evaluate(f"(() => {{ const s = document.querySelector('{table}').parentElement; return s.scrollWidth <= s.clientWidth; }})()")
    verdict = page.locator('#pairs-table td[data-label="verdict"]').first
    expect(verdict).to_contain_text("not")
    box = verdict.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    label = verdict.evaluate("(td) => getComputedStyle(td, '::before').content")
    assert label == '"verdict"', label
    screenshot(page, artifacts, f"strength-phone-{scheme}")
    context.close()


def test_periods_seconds_apart_get_distinct_time_labels(site, migrated_url, chromium):  # noqa: F811
    """Rating periods seconds apart (the demo runs them every few seconds) are labelled to the
    second, and no label stands twice in a row under the graph."""
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        conn.execute("INSERT INTO bots (id, team, name, token_hash) VALUES ('acme/quick', 'acme', 'quick', %s)",
                     (hashlib.sha256(b"acme/quick").digest(),))
        for period in range(8):
            conn.execute("INSERT INTO rating_history VALUES ('bot:acme/quick', %s, %s, 200, 1, 1, 0, 0)",
                         (T0 + timedelta(seconds=10 * period), 1500 + 10 * period))
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{site.base_url}/@/acme/quick")
    graph = page.locator("svg.rating-chart")
    expect(graph.locator("circle.chart-dot")).to_have_count(8)
    bottom = graph.get_attribute("height") or graph.evaluate("svg => svg.viewBox.baseVal.height")
    labels = graph.evaluate(
        "(svg, y) => [...svg.querySelectorAll('text.chart-tick')].filter((t) => Number(t.getAttribute('y')) === y)"
        ".map((t) => t.textContent)", float(bottom) - 8)
    assert len(labels) >= 2 and all(a != b for a, b in zip(labels, labels[1:])), labels
    assert all(label.count(":") == 2 for label in labels), labels  # hours, minutes and seconds
    assert re.match(r"^[A-Z][a-z]{2} \d{1,2}, \d{1,2}:", labels[0]), labels  # and the day, once
    # the time of day as the lists beside the graphs write it (Chromium's en-US: "5:28:29 AM")
    assert all(re.search(r"\d{1,2}:\d\d:\d\d\s[AP]M$", label) for label in labels), labels
    assert not any(re.match(r"^[A-Z]", label) for label in labels[1:]), labels
    context.close()


def test_labels_under_the_graphs_never_touch(site, migrated_url, chromium):  # noqa: F811
    """Play-through (session 53): with 14 periods under a minute apart, the last two time labels
    of a desktop's graph stood against each other ("07:37:29 07:38:19", a 24-hour clock then). The latest period keeps
    its label; any that would touch it go."""
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        conn.execute("INSERT INTO bots (id, team, name, token_hash) VALUES ('acme/busy', 'acme', 'busy', %s)",
                     (hashlib.sha256(b"acme/busy").digest(),))
        for period in range(14):
            conn.execute("INSERT INTO rating_history VALUES ('bot:acme/busy', %s, %s, 200, 1, 1, 0, 0)",
                         (T0 + timedelta(seconds=40 * period + 10 * (period % 3)), 1500 + 10 * period))
    for viewport in ({"width": 1366, "height": 900}, PHONE, {"width": 1000, "height": 800}):
        context = chromium.new_context(viewport=viewport, timezone_id="UTC", locale="en-US")
        page = context.new_page()
        page.goto(f"{site.base_url}/@/acme/busy")
        for chart in ("svg.rating-chart", "svg.results-chart"):
            svg = page.locator(chart)
            expect(svg.locator("text.chart-tick").first).to_be_attached()
            boxes = svg.evaluate(
                "(svg) => { const bottom = svg.viewBox.baseVal.height - 8;"
                " return [...svg.querySelectorAll('text.chart-tick')].filter((t) => Number(t.getAttribute('y')) === bottom)"
                ".map((t) => { const b = t.getBBox(); return [b.x, b.x + b.width, t.textContent]; }); }")
            assert len(boxes) >= 2, (viewport, chart, boxes)
            assert " ".join(boxes[-1][2].split()) == "12:08:50 PM", boxes  # the latest period's
            for (_, right, _), (left, _, _) in zip(boxes, boxes[1:]):
                assert right + 4 <= left, (viewport, chart, boxes)
        context.close()


def test_a_profile_pages_through_its_older_games(site, migrated_url, chromium):  # noqa: F811
    """A profile lists its newest 20 games; "Older games" appends the next pages (GET
    /bots/{team}/{name}/games, /players/{nickname}/games: 20 a page, `before` the last shown)
    until none are left: acme/star's 37 games, each once, newest first."""
    base = site.base_url
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        conn.execute("INSERT INTO accounts (id, issuer, subject, nickname) VALUES (gen_random_uuid(), 'x', 'pat', 'pat')")
        pat = conn.execute("SELECT id FROM accounts WHERE nickname = 'pat'").fetchone()[0]
        conn.execute(
            "INSERT INTO game_results (game_id, finished_at, rated, origin, white_principal, black_principal,"
            " result, termination, time_control) VALUES (%s, %s, false, 'lobby', %s, 'bot:acme/moon', 1, 'checkmate', '{\"Unlimited\": {}}')",
            (str(uuid.uuid4()), T0, f"user:{pat}"),
        )
    first = httpx.get(f"{base}/bots/acme/star/games", timeout=10).json()
    assert len(first["games"]) == 20 and first["hasMore"] is True
    rest = httpx.get(f"{base}/bots/acme/star/games", params={"before": first["games"][-1]["finishedAt"]}, timeout=10).json()
    assert len(rest["games"]) == 17 and rest["hasMore"] is False
    players = httpx.get(f"{base}/players/PAT/games", timeout=10).json()  # any case, as the profile
    assert len(players["games"]) == 1 and players["games"][0]["result"] == "win", players
    documented = Documented()
    for path, code in (("/bots/acme/nobody/games", "bot_not_found"), ("/players/nobody_here/games", "player_not_found")):
        answer = httpx.get(base + path, timeout=10)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == code, (path, answer.text)
        documented.check_http("get", "/bots/{team}/{name}/games" if path.startswith("/bots") else "/players/{guestId}/games", answer)
    documented.check_http("get", "/bots/{team}/{name}/games", httpx.get(f"{base}/bots/acme/star/games", timeout=10))
    documented.check_http("get", "/players/{guestId}/games", httpx.get(f"{base}/players/pat/games", timeout=10))

    page = chromium.new_context().new_page()
    page.goto(f"{base}/@/acme/star")
    rows = page.locator("#recent li.game-row")
    expect(rows).to_have_count(20)
    older = page.locator("#older-games")
    older.click()
    expect(rows).to_have_count(37)
    expect(older).to_be_hidden()
    shown = rows.evaluate_all("(items) => items.map((item) => item.dataset.game)")
    assert shown == [game["gameId"] for game in first["games"] + rest["games"]]  # each once, newest first
    page.goto(f"{base}/@/pat")
    expect(rows).to_have_count(1)
    expect(older).to_be_hidden()  # nothing older to offer
