"""Your bots (/account/bots), in Chromium against a real `playsite serve` on PostgreSQL with
`/me` and `/admin` mounted, sign-in through a real OpenID Connect provider, and a real webhook
endpoint: a person registers a bot (its token shown once), sets up its webhook, has it checked,
sees a change made meanwhile elsewhere, removes the webhook, releases the bot and adds it back
by its token; an administrator sees every bot and acts on the person's; a server without bot
management, and a person signed out, are told so."""

from __future__ import annotations

import re

import httpx
import psycopg
import pytest
from playwright.sync_api import expect

from playsite.accounts import queries as accounts_store
from tests.support.artifacts import screenshot
from tests.support.axe import serious_violations
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.oidc_provider import oidc_provider  # noqa: F401 (fixture)
from tests.support.receiver import WebhookReceiver
from tests.support.sign_in import sign_in_at_the_provider, started_site


@pytest.fixture
def site(serve, migrated_url, oidc_provider):  # noqa: F811
    """The server, with `root` (an account made as its first sign-in would) on PLAY_ADMINS."""
    with psycopg.connect(migrated_url) as conn:
        root = accounts_store.sign_in(conn, oidc_provider.issuer, "root", {"preferred_username": "root"})
        conn.commit()
    return started_site(
        serve, migrated_url, oidc_provider, WEBHOOK_SESSION_MANAGEMENT_ENABLED="true", WEBHOOK_ALLOW_LOOPBACK="true",
        PLAY_ADMINS=str(root.id), PLAY_HOUSE_BOTS="false",
    )


def signed_in(context, base: str, login: str):
    page = context.new_page()
    page.goto(base + "/account/bots")
    expect(page.locator("#bots-closed-why")).to_have_text(
        "Sign in to register bots, add the ones you run and manage their webhooks.")
    page.click("#bots-sign-in")
    sign_in_at_the_provider(page, login)
    expect(page).to_have_url(base + "/account/bots")  # back on the page
    expect(page.locator("#account-name")).to_be_visible()
    return page


def session_headers(context, base: str, revision: int) -> dict[str, str]:
    """What this browser's page sends on a change (its session cookie is HttpOnly: read from the context)."""
    cookie = next(c["value"] for c in context.cookies() if c["name"] == "access_token")
    return {"Cookie": f"access_token={cookie}", "Origin": base, "X-Game-CSRF": "1", "If-Match": f'"{revision}"'}


@pytest.mark.postgres
def test_register_a_bot_give_it_a_webhook_remove_it_release_it_and_add_it_back(site, context, artifacts):
    base = site.origin
    page = signed_in(context, base, "maker")
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    page.click("#account-menu summary")
    expect(page.locator("#account-bots")).to_have_attribute("href", "/account/bots")  # the menu leads here
    page.keyboard.press("Escape")
    expect(page.locator("#bots-views")).to_be_hidden()  # not an administrator
    expect(page.locator("#bots-none")).to_have_text(
        "You have no bot here yet: register one below, or add one you run with its token.")

    # registered here: its token shown once, the bot the person's at once
    page.fill("#register-team", "acme")
    page.fill("#register-name", "star")
    page.click("#register")
    expect(page.locator("#add-message")).to_have_text("acme/star is registered and yours.")
    expect(page.locator("#new-token-words")).to_contain_text("acme/star's token, shown only this once")
    token = page.locator("#new-token-value").input_value()
    account = httpx.get(f"{base}/bot/account", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert account.status_code == 200 and account.json()["id"] == "bot:team:acme:star", account.text
    bot = page.locator('li[data-bot="acme/star"]')
    expect(bot.locator("> details")).to_have_attribute("open", "")  # a short list opens its bots
    expect(bot.locator(".webhook-now")).to_have_text(
        "No webhook: the bot plays through its stream, or by asking for its games.")
    expect(page.locator("#bots-none")).to_be_hidden()
    page.fill("#register-team", "ACME")  # the same name again (capitals lowered): taken
    page.fill("#register-name", "Star")
    page.click("#register")
    expect(page.locator("#add-message")).to_have_text("acme/star is taken: choose another name.")
    # the token shown stays (play-through s71: a failed attempt took it away, for good)
    expect(page.locator("#new-token-value")).to_have_value(token)
    page.fill("#register-team", "-acme")  # malformed: the rule, in the page's words, and nothing sent
    page.click("#register")
    expect(page.locator("#add-message")).to_have_text(
        "A team and a name are each 1 to 32 letters, digits or -, starting with a letter or a digit.")
    page.fill("#register-team", "house")  # well formed, and the site's own team (play-through s72: the rule was shown)
    page.fill("#register-name", "mine")
    page.click("#register")
    expect(page.locator("#add-message")).to_have_text(
        'The team "house" is reserved for this site\'s own bots: choose another team.')
    page.fill("#register-team", "")

    with WebhookReceiver() as receiver:
        # set up: the form only; then checked, and only then the bot's webhook, its secret shown once
        bot.locator("input[type=url]").fill(receiver.url() + "?code=function-key")
        bot.locator(".stage-form button").click()
        expect(bot.locator(".message")).to_have_text("Set up: now have it checked.")
        expect(bot.locator("input[type=url]")).to_have_value("")
        expect(bot.locator(".stage-form button")).to_be_focused()  # the redraw keeps the focus where it was
        setup = bot.locator(".setup-now")
        expect(setup).to_contain_text(f"Set up, not yet checked: {receiver.url()}?\u2026")  # the query never shown
        expect(setup).to_contain_text("5 of 5 checks left")
        assert receiver.of_kind("verification") == [], "nothing is sent before the check"
        bot.locator("[data-act=activate]").click()
        expect(bot.locator(".message")).to_have_text("Checked: this URL is the bot's webhook now.")
        assert len(receiver.of_kind("verification")) == 1
        expect(bot.locator(".webhook-now")).to_contain_text(f"Webhook: {receiver.url()}?\u2026, checked ")
        secret = bot.locator(".secret-box input").input_value()
        assert re.fullmatch(r"[0-9a-f]{64}", secret), secret
        expect(bot.locator(".secret-box")).to_contain_text("shown only now")
        expect(bot.locator(".tag")).to_have_text("webhook")
        expect(setup).to_have_count(0)  # the setup ended in the registration
        screenshot(page, artifacts, "your-bots-webhook")
        page.reload()  # the secret is gone for good
        expect(bot.locator(".webhook-now")).to_contain_text(receiver.url())
        expect(bot.locator(".secret-box")).to_be_hidden()

        # a change made meanwhile elsewhere (another tab, the API): this page's change is refused,
        # and the bot is shown as it is now
        slot = httpx.get(f"{base}/me/bots/acme/star/webhook", headers=session_headers(context, base, 0), timeout=10).json()
        other = httpx.put(f"{base}/me/bots/acme/star/webhook/setup", json={"url": "http://127.0.0.1:9/elsewhere"},
                          headers=session_headers(context, base, slot["revision"]), timeout=10)
        assert other.status_code == 200, other.text
        bot.locator("input[type=url]").fill(receiver.url("127.0.0.1", "/second"))
        bot.locator(".stage-form button").click()
        expect(bot.locator(".message")).to_have_text(
            "This bot changed meanwhile (another tab, an administrator or the bot itself): here it is now."
            " Try again if you still want to.")
        expect(setup).to_contain_text("http://127.0.0.1:9/elsewhere")
        expect(bot.locator("input[type=url]")).to_have_value(receiver.url("127.0.0.1", "/second"))  # kept to send again
        # a URL that does not answer: the check fails, and says how many are left
        bot.locator("[data-act=activate]").click()
        expect(bot.locator(".message")).to_contain_text("4 activation attempts left")
        expect(setup).to_contain_text("4 of 5 checks left")
        bot.locator("[data-act=discard]").click()
        expect(bot.locator(".message")).to_have_text("Setup discarded.")
        expect(setup).to_have_count(0)
        expect(bot.locator(".message")).to_be_focused()  # its button went: the focus lands on what happened

        # removed: asked twice, then no more deliveries
        remove = bot.locator("[data-act=remove]")
        remove.click()
        expect(remove).to_have_text("Remove it? Click again")
        expect(bot.locator(".webhook-now")).to_contain_text(receiver.url())  # nothing done yet
        remove.click()
        expect(bot.locator(".message")).to_have_text("Webhook removed.")
        expect(bot.locator(".webhook-now")).to_have_text(
            "No webhook: the bot plays through its stream, or by asking for its games.")
        expect(bot.locator(".tag")).to_have_text("no webhook")

    bot.locator(".audit summary").click()
    lines = bot.locator(".audit li")
    expect(lines.first).to_contain_text("You removed the webhook.")
    texts = bot.locator(".audit li .what").all_text_contents()
    assert bot.locator(".audit li time").first.text_content() == "now"  # how long ago (the date in its title)
    for said in ("You added the bot.", "You set up a webhook URL at 127.0.0.1.", "You had the URL checked (check 1 of 5).",
                 "You made the URL the bot's webhook.",
                 "You had a check fail: the URL did not answer the check.", "You discarded the setup."):
        assert said in texts, texts

    # a new token, asked twice: shown once, the old one dead at once
    renew = bot.locator("[data-act=token]")
    renew.click()
    expect(bot.locator(".message")).to_contain_text("the bot's token stops working at once")
    renew.click()
    expect(bot.locator(".message")).to_have_text("The bot has a new token.")
    renewed = bot.locator(".secret-box input").input_value()
    expect(bot.locator(".secret-box")).to_contain_text("acme/star's new token, shown only now")
    def identity(bearer: str) -> int:
        return httpx.get(f"{base}/bot/account", headers={"Authorization": f"Bearer {bearer}"}, timeout=10).status_code
    assert (identity(token), identity(renewed)) == (401, 200)
    expect(bot.locator(".audit li .what").first).to_have_text("You gave the bot a new token.")
    token = renewed

    # released, asked twice: no longer listed; added back by its token
    release = bot.locator("[data-act=release]")
    release.click()
    expect(bot.locator(".message")).to_contain_text("whoever holds the token may add it")
    release.click()
    expect(page.locator("#list-message")).to_have_text("acme/star is no longer yours; whoever holds its token may add it.")
    expect(bot).to_have_count(0)
    expect(page.locator("#bots-none")).to_be_visible()
    page.fill("#claim-token", "not-a-token")
    page.click("#claim")
    expect(page.locator("#add-message")).to_have_text(
        "That is not the token of a registered bot (an anonymous bot's cannot be added).")
    page.fill("#claim-token", token)
    page.click("#claim")
    expect(page.locator("#add-message")).to_have_text(
        "acme/star is yours: its card is open above, where you set up its webhook (or let it play through its stream).")
    expect(bot).to_have_count(1)
    expect(page.locator("#claim-token")).to_have_value("")
    assert failures == []

    # someone else cannot add it while it is the maker's
    other_page = signed_in(context.browser.new_context(), base, "thief")
    other_page.fill("#claim-token", token)
    other_page.click("#claim")
    expect(other_page.locator("#add-message")).to_have_text("Another account owns this bot; its owner can release it.")

    # the bot authors' page leads here where accounts manage bots
    page.goto(base + "/write-a-bot")
    expect(page.locator("#your-bots-line a[href='/account/bots']")).to_be_visible()
    page.goto(base + "/account/bots")

    # on a phone, in the dark theme: nothing wider than the screen, no serious accessibility fault
    phone = context.browser.new_context(bypass_csp=True, color_scheme="dark", viewport={"width": 360, "height": 740})
    page = signed_in(phone, base, "maker")
    bot = page.locator('li[data-bot="acme/star"]')
    expect(bot.locator(".webhook-now")).to_be_visible()
    bot.locator(".audit summary").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert serious_violations(page) == []
    screenshot(page, artifacts, "your-bots-phone")
    page.set_viewport_size({"width": 320, "height": 568})  # the narrowest phone: every field inside its card
    edges = page.locator("#bots-add").evaluate("""(card) => ({ card: card.getBoundingClientRect().right,
        fields: [...card.querySelectorAll('input')].map((input) => input.getBoundingClientRect().right) })""")
    assert all(right <= edges["card"] - 8 for right in edges["fields"]), edges


@pytest.mark.postgres
def test_an_administrator_sees_every_bot_and_acts_on_an_owners(site, context, artifacts):
    base = site.origin
    owner = signed_in(context, base, "owner1")
    owner.fill("#register-team", "zeta")
    owner.fill("#register-name", "probe")
    owner.click("#register")
    expect(owner.locator("#add-message")).to_have_text("zeta/probe is registered and yours.")
    owned = owner.locator('li[data-bot="zeta/probe"]')
    owned.locator("input[type=url]").fill("http://127.0.0.1:9/hook")
    owned.locator(".stage-form button").click()
    expect(owned.locator(".setup-now")).to_contain_text("Set up, not yet checked")
    registered = httpx.post(f"{base}/bot/register", json={"team": "lone", "name": "wolf"}, timeout=10)
    assert registered.status_code == 201, registered.text

    admin = signed_in(context.browser.new_context(bypass_csp=True), base, "root")
    admin.goto(base + "/account")  # the administrator's account page leads to every bot
    expect(admin.locator("#about-admin a")).to_have_attribute("href", "/account/bots?all=1")
    admin.goto(base + "/account/bots")
    expect(admin.locator("#bots-views")).to_be_visible()
    expect(admin.locator("#view-mine")).to_have_attribute("aria-current", "page")
    admin.click("#view-all")
    expect(admin.locator("#bots-title")).to_have_text("Every bot")
    expect(admin.locator("#view-all")).to_have_attribute("aria-current", "page")
    expect(admin.locator("#bots-listed-title")).to_have_text("Every registered bot (2)")
    expect(admin.locator("#bots-add")).to_be_hidden()  # bots are registered and added as their owners'
    expect(admin.locator('li[data-bot="lone/wolf"] > details > summary')).to_contain_text("no owner")
    probe = admin.locator('li[data-bot="zeta/probe"]')
    expect(probe.locator("> details > summary")).to_contain_text("owner1's")
    expect(probe.locator("[data-act=release]")).to_have_count(0)  # releasing is the owner's
    expect(probe.locator(".setup-now")).to_contain_text("http://127.0.0.1:9/hook")
    probe.locator(".audit summary").click()
    expect(probe.locator(".audit")).to_contain_text("The owner added the bot.")
    probe.locator("[data-act=discard]").click()
    expect(probe.locator(".message")).to_have_text("Setup discarded.")
    assert serious_violations(admin) == []
    screenshot(admin, artifacts, "every-bot")

    owner.reload()
    owned.locator(".audit summary").click()
    expect(owned.locator(".audit li").first).to_contain_text("An administrator discarded the setup.")
    expect(owned.locator(".setup-now")).to_have_count(0)


def test_a_server_without_bot_management_says_so(server, context):
    page = context.new_page()
    page.goto(server.base_url + "/account/bots")
    expect(page.locator("#bots-closed-why")).to_have_text(
        "This server does not manage bots from the browser: its operator has not turned it on."
        " Bots still play here with their tokens.")
    expect(page.locator("#bots-sign-in")).to_be_hidden()
    expect(page.locator("#bots-closed a[href='/write-a-bot']")).to_be_visible()
    expect(page.locator("#bots-add")).to_be_hidden()
    page.goto(server.base_url + "/write-a-bot")
    expect(page.locator("#bot-source")).not_to_have_text("Loading...")
    expect(page.locator("#your-bots-line")).to_be_hidden()
    site = page.evaluate("fetch('/web/site').then((r) => r.json())")
    assert site["bots"] is False and site["admin"] is False
