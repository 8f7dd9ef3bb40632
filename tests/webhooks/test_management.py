"""Account-owned bots and staged webhook management over HTTP, on a real PostgreSQL, booted
in-process (real clock: PostgreSQL runs in worker threads), with a real loopback webhook
endpoint and a resolver that counts every lookup."""

from __future__ import annotations

import copy

import psycopg
import pytest
import trio

from playsite.bots.store import PostgresBotStore
from playsite.tokens import digest
from playsite.webhooks import slot_queries
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.receiver import Reply, WebhookReceiver, echo
from tests.support.webhook_management import browser, hook_url, make_account, managed_server, new_bot_name, slot, stage

pytestmark = pytest.mark.postgres


async def claim(person, token: str):
    """POST /me/bots as a client does: the 428 names the slot's revision (ETag), the claim is
    sent again with it as If-Match. (status, body, headers) of that second answer."""
    status, body, headers = await person.call("POST", "/me/bots", body={"token": token})
    if status != 428:
        return status, body, headers
    assert body["code"] == "revision_required", body
    return await person.call("POST", "/me/bots", body={"token": token}, revision=int(headers["ETag"].strip('"')))


async def release(person, bot: str):
    """DELETE /me/bots/{bot} against the slot's revision read first."""
    _, revision = await slot(person, bot)
    return await person.call("DELETE", f"/me/bots/{bot}", revision=revision)


async def owned_bot(services, person) -> tuple[str, str]:
    """A registered bot claimed by `person`: (team/name path part, its token)."""
    name = new_bot_name()
    _, token = await services.bots.register("owned", name)
    status, body, _ = await claim(person, token)
    assert status == 201, body
    return f"owned/{name}", token


async def activate(person, bot: str, revision: int, prefix: str = "/me"):
    return await person.call("POST", f"{prefix}/bots/{bot}/webhook/setup/activate", revision=revision)


def audit_kinds(url: str, bot: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [row[0] for row in conn.execute("SELECT kind FROM audit_events WHERE bot_id = %s ORDER BY id", (bot,))]


# ----- ownership -------------------------------------------------------------------------------


async def test_an_owner_gives_a_bot_a_new_token_and_the_old_one_stops_at_once(migrated_url):
    """A token lost or leaked: the owner asks for a new one (POST /me/bots/{bot}/token, fenced
    on the slot's revision like every change); only the new one opens the bot from then on, in
    memory and in the database, and the trail says who did it."""
    alice, bob = make_account(migrated_url, "alice"), make_account(migrated_url, "bob")
    async with managed_server(migrated_url) as (services, client, _):
        a, b = browser(client, alice), browser(client, bob)
        bot, token = await owned_bot(services, a)
        _, revision = await slot(a, bot)
        status, body, _ = await a.call("POST", f"/me/bots/{bot}/token")
        assert status == 428 and body["code"] == "revision_required"
        status, body, _ = await a.call("POST", f"/me/bots/{bot}/token", revision=revision + 1)
        assert status == 412 and body["code"] == "revision_mismatch"
        status, body, _ = await b.call("POST", f"/me/bots/{bot}/token", revision=revision)
        assert status == 404 and body["code"] == "bot_not_found"  # another's bot reads as no bot
        assert services.bots.authenticate(token).id == bot, "nothing changed by the refusals"
        status, body, headers = await a.call("POST", f"/me/bots/{bot}/token", revision=revision)
        assert status == 200 and set(body) == {"token"}, body
        assert int(headers["ETag"].strip('"')) > revision and "no-store" in headers["Cache-Control"]
        new = body["token"]
        assert services.bots.authenticate(token) is None, "the old token stops at once"
        assert services.bots.authenticate(new).id == bot
        with psycopg.connect(migrated_url) as conn:
            stored = conn.execute("SELECT token_hash FROM bots WHERE id = %s", (bot,)).fetchone()[0]
            assert bytes(stored) == digest(new), "a restart keeps the new token"
        assert audit_kinds(migrated_url, bot)[-1] == "bot.token.replaced"
        # a settings write made from a copy that still holds the old token never writes it back
        stale = copy.copy(services.bots.get(bot))
        stale.token_hash, stale.max_concurrent_games = digest(token), 2
        await PostgresBotStore(services.database).save(stale)
        with psycopg.connect(migrated_url) as conn:
            stored, capacity = conn.execute("SELECT token_hash, max_concurrent_games FROM bots WHERE id = %s", (bot,)).fetchone()
            assert (bytes(stored), capacity) == (digest(new), 2)
        status, body, _ = await claim(b, new)
        assert status == 409 and body["code"] == "bot_owned"  # still alice's


async def test_a_deleted_accounts_bots_are_released_for_their_token_holders(migrated_url):
    """An account deleted while it owned bots: each is released as its owner would (the trail
    says why, the owner's pending setup can no longer be activated, the slot moves on), so the
    token holder may claim it again; before, the bots stayed a deleted account's for good and
    every claim was `bot_owned`."""
    alice, bob = make_account(migrated_url, "alice"), make_account(migrated_url, "bob")
    async with managed_server(migrated_url) as (services, client, _):
        a, b = browser(client, alice), browser(client, bob)
        first, token = await owned_bot(services, a)
        second, _ = await owned_bot(services, a)
        await stage(a, first, "https://hook.example/first")
        _, before = await slot(a, first)
        status, body, _ = await a.call("DELETE", "/auth/me", body={"confirm": "delete my account"})
        assert status == 204, body
        with psycopg.connect(migrated_url) as conn:
            for bot in (first, second):
                assert conn.execute("SELECT count(*) FROM bot_owners WHERE bot_id = %s", (bot,)).fetchone()[0] == 0
                kind, actor, detail = conn.execute(
                    "SELECT kind, actor, detail FROM audit_events WHERE bot_id = %s ORDER BY id DESC LIMIT 1", (bot,)
                ).fetchone()
                assert (kind, actor, detail) == ("bot.released", alice.principal, {"why": "account_deleted"})
            setup = slot_queries.setup_of(conn, first)
            assert setup is not None and setup.state == "scrubbed"  # the deleted owner's setup is dead
            assert slot_queries.peek(conn, first).revision > before
        status, body, _ = await claim(b, token)
        assert status == 201 and body["id"] == first, body


async def test_an_account_claims_a_bot_with_its_token_lists_it_and_releases_it(migrated_url):
    alice, bob = make_account(migrated_url, "alice"), make_account(migrated_url, "bob")
    async with managed_server(migrated_url) as (services, client, _):
        a, b = browser(client, alice), browser(client, bob)
        _, token = await services.bots.register("owned", "claimed")
        status, body, _ = await claim(a, "not-a-token")
        assert status == 403 and body["code"] == "bot_token_rejected"
        anonymous_token = services.bots.mint_anonymous(None)[1]
        status, body, _ = await claim(a, anonymous_token)
        assert status == 403 and body["code"] == "bot_token_rejected"  # only registered bots have owners

        # A claim is a mutation: without If-Match it is 428, naming the revision to send.
        status, body, headers = await a.call("POST", "/me/bots", body={"token": token})
        assert status == 428 and body["code"] == "revision_required"
        revision = int(headers["ETag"].strip('"'))
        status, body, _ = await a.call("POST", "/me/bots", body={"token": token}, revision=revision + 7)
        assert status == 412 and body["code"] == "revision_mismatch"
        status, body, headers = await a.call("POST", "/me/bots", body={"token": token}, revision=revision)
        assert status == 201 and body["id"] == "owned/claimed" and int(headers["ETag"].strip('"')) > revision
        status, _, _ = await a.call("POST", "/me/bots", body={"token": token}, revision=revision)
        assert status == 412  # the claim moved the revision on: a replay of it is stale
        status, _, _ = await a.call("POST", "/me/bots", body={"token": token}, revision=int(headers["ETag"].strip('"')))
        assert status == 200  # claiming again at the current revision changes nothing
        status, body, _ = await claim(b, token)
        assert status == 409 and body["code"] == "bot_owned"

        status, body, _ = await a.call("GET", "/me/bots")
        assert status == 200 and [bot["id"] for bot in body["bots"]] == ["owned/claimed"]
        assert body["bots"][0]["owner"] == alice.principal and body["bots"][0]["webhookRegistered"] is False
        assert body["bots"][0]["ownerNickname"] == alice.nickname  # a page names the owner by it
        status, body, _ = await b.call("GET", "/me/bots")
        assert body["bots"] == []
        status, body, _ = await b.call("GET", "/me/bots/owned/claimed/webhook")
        assert status == 404 and body["code"] == "bot_not_found"  # not yours reads as not there

        status, body, _ = await b.call("DELETE", "/me/bots/owned/claimed")
        assert status == 404
        status, body, _ = await a.call("DELETE", "/me/bots/owned/claimed")
        assert status == 428 and body["code"] == "revision_required"  # releasing is a mutation too
        status, _, _ = await release(a, "owned/claimed")
        assert status == 204
        status, _, _ = await claim(b, token)
        assert status == 201  # released: the next token holder may claim it
    assert audit_kinds(migrated_url, "owned/claimed") == ["bot.claimed", "bot.released", "bot.claimed"]


async def test_the_browser_boundary_and_the_session_come_first(migrated_url):
    alice = make_account(migrated_url, "alice")
    async with managed_server(migrated_url) as (services, client, _):
        a = browser(client, alice)
        bot, _ = await owned_bot(services, a)
        path = f"/me/bots/{bot}/webhook/setup"
        _, revision = await slot(a, bot)
        cases = {
            "no origin": ({k: v for k, v in a.headers(True, revision).items() if k != "Origin"}, 403, "csrf_origin_rejected"),
            "other origin": ({**a.headers(True, revision), "Origin": "https://evil.example"}, 403, "csrf_origin_rejected"),
            "no csrf": ({k: v for k, v in a.headers(True, revision).items() if k != "X-Game-CSRF"}, 403, "csrf_origin_rejected"),
            "form body": ({**a.headers(True, revision), "Content-Type": "text/plain"}, 415, "unsupported_media_type"),
            "no session": ({k: v for k, v in a.headers(True, revision).items() if k != "Cookie"}, 401, "not_signed_in"),
            "no if-match": (a.headers(True), 428, "revision_required"),
            "weak if-match": ({**a.headers(True), "If-Match": f'W/"{revision}"'}, 412, "revision_mismatch"),
            "stale if-match": (a.headers(True, revision - 1 if revision > 1 else revision + 5), 412, "revision_mismatch"),
        }
        for name, (headers, status, code) in cases.items():
            got, body, answer = await a.call("PUT", path, body={"url": "https://hook.example/x"}, headers=headers)
            assert (got, body["code"]) == (status, code), name
            assert answer["Content-Type"] == "application/problem+json", name
            if code == "revision_mismatch":
                assert answer["ETag"] == f'"{revision}"', name  # the current revision, to read again
        status, body, _ = await a.call("PUT", path, body={"url": "https://hook.example/x", "extra": 1}, revision=revision)
        assert status == 400 and body["code"] == "invalid_request"
        status, body, _ = await a.call("PUT", path, body={"url": "ftp://hook.example/x"}, revision=revision)
        assert status == 422 and body["code"] == "url_policy"
        body, unchanged = await slot(a, bot)
        assert unchanged == revision and body["setup"] is None  # nothing above changed the slot


async def test_an_activation_verifies_the_candidate_and_shows_the_secret_once(migrated_url):
    alice = make_account(migrated_url, "alice")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url) as (services, client, resolver):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver) + "?code=s3cret-key")
            status, body, headers = await activate(a, bot, revision)
            assert status == 200, body
            secret = body["secret"]
            assert len(secret) == 64 and "no-store" in headers["Cache-Control"]
            assert body["setup"]["state"] == "activated" and body["setup"]["activationAttempts"] == 1
            assert body["registration"]["url"] == hook_url(receiver) + "?…"  # the query's key is never shown
            assert int(headers["ETag"].strip('"')) == body["revision"] > revision

            (echo,) = receiver.seen
            assert echo.kind == "verification" and echo.path == "/hook" and echo.query == {"code": ["s3cret-key"]}
            assert resolver.lookups == ["hook.test"]
            current = await services.webhooks.current(bot)
            assert current is not None and current.secret == secret  # deliveries now sign with it

            read, _ = await slot(a, bot)
            assert "secret" not in read and "s3cret-key" not in str(read)
            assert read["registration"]["registrationId"] == current.registration_id
            assert [event["kind"] for event in read["audit"]][:2] == ["webhook.activation.complete", "webhook.activation.start"]
            status, listed, _ = await a.call("GET", "/me/bots")
            assert listed["bots"][0]["webhookRegistered"] is True

            # Removing the registration is a change of the slot like any other.
            status, body, _ = await a.call("DELETE", f"/me/bots/{bot}/webhook", revision=read["revision"])
            assert status == 200 and body["registration"] is None
            assert await services.webhooks.current(bot) is None
    with psycopg.connect(migrated_url) as conn:
        stored = conn.execute("SELECT detail::text FROM audit_events WHERE bot_id = %s", (bot,)).fetchall()
    assert not any("s3cret-key" in row[0] or secret in row[0] for row in stored)


async def test_two_concurrent_activations_take_one_lease_and_the_other_is_409(migrated_url):
    alice = make_account(migrated_url, "alice")

    def slow_echo(seen):
        return echo(seen, delay_s=1.0)

    with WebhookReceiver(slow_echo) as receiver:
        async with managed_server(migrated_url) as (services, client, _):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            answers = []

            async def one():
                answers.append(await activate(a, bot, revision))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(one)
                nursery.start_soon(one)
            statuses = sorted(status for status, _, _ in answers)
            assert statuses == [200, 409], answers
            refused = next(body for status, body, _ in answers if status == 409)
            headers = next(headers for status, _, headers in answers if status == 409)
            assert refused["code"] == "activation_in_progress" and int(headers["Retry-After"]) >= 1
            assert len(receiver.of_kind("verification")) == 1
            read, _ = await slot(a, bot)
            assert read["setup"]["activationAttempts"] == 1  # the refused one spent nothing
    assert audit_kinds(migrated_url, bot).count("webhook.activation.start") == 1


async def test_five_failed_attempts_exhaust_the_setup_and_the_sixth_is_refused_without_a_request(migrated_url):
    alice = make_account(migrated_url, "alice")
    with WebhookReceiver(lambda seen: Reply(500, b"down")) as receiver:
        async with managed_server(migrated_url) as (services, client, resolver):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            for attempt in range(1, 6):
                status, body, headers = await activate(a, bot, revision)
                assert status == 422 and body["code"] == "handshake_failed", body
                assert f"{5 - attempt} activation attempts left" in body["title"]
                revision = int(headers["ETag"].strip('"'))
            read, revision = await slot(a, bot)
            assert read["setup"]["state"] == "exhausted" and read["setup"]["attemptsLeft"] == 0
            status, body, _ = await activate(a, bot, revision)
            assert status == 409 and body["code"] == "attempts_exhausted"
            assert len(receiver.seen) == 5 and len(resolver.lookups) == 5
            assert await services.webhooks.current(bot) is None
            # A new setup is a new budget.
            revision = await stage(a, bot, hook_url(receiver, "/other"))
            read, _ = await slot(a, bot)
            assert read["setup"]["activationAttempts"] == 0


async def test_stale_or_unauthorised_activations_cause_no_lookup_no_connection_and_spend_nothing(migrated_url):
    alice, mallory = make_account(migrated_url, "alice"), make_account(migrated_url, "mallory")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url) as (services, client, resolver):
            a, m = browser(client, alice), browser(client, mallory)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            path = f"/me/bots/{bot}/webhook/setup/activate"
            refused = [
                await a.call("POST", path, revision=revision - 1),  # stale
                await a.call("POST", path),  # no If-Match
                await m.call("POST", path, revision=revision),  # not the owner
                await m.call("POST", f"/admin/bots/{bot}/webhook/setup/activate", revision=revision),  # not an admin
                await a.call("POST", path, headers={**a.headers(True, revision), "X-Game-CSRF": "0"}),
                await a.call("POST", path, headers={k: v for k, v in a.headers(True, revision).items() if k != "Cookie"}),
            ]
            assert [status for status, _, _ in refused] == [412, 428, 404, 403, 403, 401]
            assert resolver.lookups == [] and receiver.seen == []
            read, unchanged = await slot(a, bot)
            assert unchanged == revision and read["setup"]["activationAttempts"] == 0
            status, _, _ = await activate(a, bot, revision)
            assert status == 200 and len(receiver.seen) == 1


async def test_a_lease_left_by_a_dead_process_expires_on_the_database_clock_and_its_attempt_stays_spent(migrated_url):
    alice = make_account(migrated_url, "alice")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url) as (services, client, resolver):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            # What a process that died after taking the lease leaves behind (tests/e2e kills one for real).
            with psycopg.connect(migrated_url) as conn:
                leased = slot_queries.fence(conn, bot).revision + 1
                slot_queries.bump(conn, bot)
                slot_queries.take_lease(conn, bot, leased)
                conn.commit()
            read, revision = await slot(a, bot)
            assert read["setup"]["activating"] is True and read["setup"]["activationAttempts"] == 1
            status, body, _ = await activate(a, bot, revision)
            assert status == 409 and body["code"] == "activation_in_progress" and receiver.seen == []
            with psycopg.connect(migrated_url) as conn:  # the hard expiry passes
                conn.execute("UPDATE webhook_setups SET lease_expires_at = now() - interval '1 second' WHERE bot_id = %s", (bot,))
                conn.commit()
            read, revision = await slot(a, bot)
            assert read["setup"]["activating"] is False and read["setup"]["attemptsLeft"] == 4
            status, body, _ = await activate(a, bot, revision)
            assert status == 200 and body["setup"]["activationAttempts"] == 2
            assert resolver.lookups == ["hook.test"]


async def test_a_transaction_that_began_before_a_lease_expired_sees_it_expired(migrated_url):
    """Deadlines are read on the statement's clock: a transaction that waited (on the fence, say)
    past a lease's expiry sees the lease expired, where its start time would still call it live."""
    alice = make_account(migrated_url, "alice")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url) as (services, client, _):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            await stage(a, bot, hook_url(receiver))
            with psycopg.connect(migrated_url) as conn:
                leased = slot_queries.fence(conn, bot).revision + 1
                slot_queries.bump(conn, bot)
                slot_queries.take_lease(conn, bot, leased)
                conn.execute("UPDATE webhook_setups SET lease_expires_at = now() + interval '1 second' WHERE bot_id = %s", (bot,))
                conn.commit()
            with psycopg.connect(migrated_url) as conn:
                began = slot_queries.database_now(conn)  # the transaction starts here
                assert slot_queries.setup_of(conn, bot).lease_live
                conn.execute("SELECT pg_sleep(1.5)")  # as a wait on the fence would
                setup = slot_queries.setup_of(conn, bot)
                assert setup.lease_expires_at < slot_queries.database_now(conn) and setup.lease_expires_at > began
                assert not setup.lease_live, "a lease that expired during the transaction is not live"
                conn.rollback()


@pytest.mark.parametrize("change", ["release", "new token"])
async def test_a_release_or_a_new_token_during_the_echo_goes_through_and_nothing_is_installed(migrated_url, change):
    """The two changes an owner may need at once (a bot let go, a leaked token replaced) do not
    wait for the activation's lease: they go through, and the activation finds the slot moved
    and installs nothing."""
    alice = make_account(migrated_url, "alice")
    echoed = trio.Event()
    token = trio.lowlevel.current_trio_token()

    def slow_echo(seen):
        token.run_sync_soon(echoed.set)
        return echo(seen, delay_s=1.5)

    with WebhookReceiver(slow_echo) as receiver:
        async with managed_server(migrated_url) as (services, client, _):
            a = browser(client, alice)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            answers = []

            async def activation():
                answers.append(await activate(a, bot, revision))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(activation)
                await echoed.wait()
                if change == "release":  # the owner lets the bot go meanwhile
                    status, _, _ = await release(a, bot)
                    assert status == 204
                else:  # or gives it a new token
                    _, now = await slot(a, bot)
                    status, _, _ = await a.call("POST", f"/me/bots/{bot}/token", revision=now)
                    assert status == 200
            ((status, body, _),) = answers
            assert status == 409 and body["code"] == "setup_changed"
            assert await services.webhooks.current(bot) is None and len(receiver.seen) == 1
    assert audit_kinds(migrated_url, bot)[-1] == "webhook.activation.abandoned"


async def test_the_bots_own_registration_is_a_change_of_the_slot(migrated_url):
    alice = make_account(migrated_url, "alice")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url) as (services, client, _):
            a = browser(client, alice)
            bot, token = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            response = await client.post("/bot/webhook", json={"url": receiver.url()}, headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 201, await response.get_data(as_text=True)
            read, now = await slot(a, bot)
            assert now == revision + 1 and read["registration"]["url"] == receiver.url()
            assert read["audit"][0]["kind"] == "webhook.registration.replaced" and read["audit"][0]["actor"] == f"bot:{bot}"
            status, body, _ = await activate(a, bot, revision)  # made against the slot before the bot's change
            assert status == 412 and body["code"] == "revision_mismatch"
            response = await client.delete("/bot/webhook", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code in (200, 204)
            _, after = await slot(a, bot)
            assert after == now + 1


async def test_an_admin_may_activate_what_an_owner_staged_and_every_answer_is_private(migrated_url):
    alice, root = make_account(migrated_url, "alice"), make_account(migrated_url, "root")
    with WebhookReceiver() as receiver:
        async with managed_server(migrated_url, admins=(str(root.id),)) as (services, client, _):
            a, r = browser(client, alice), browser(client, root)
            bot, _ = await owned_bot(services, a)
            revision = await stage(a, bot, hook_url(receiver))
            status, body, headers = await activate(r, bot, revision, prefix="/admin")
            assert status == 200, body
            assert body["audit"][0]["actor"] == root.principal and body["setup"]["authority"] == "owner"
            refusals = [
                await a.call("GET", "/admin/bots"),  # not an admin
                await a.call("PUT", f"/me/bots/{bot}/webhook/setup", body={"url": "x"}),  # no If-Match
                await a.call("PUT", f"/me/bots/{bot}/webhook/setup", headers={"Cookie": "access_token=forged"}),
            ]
            assert [status for status, _, _ in refusals] == [403, 428, 403]
            for _, _, headers in refusals:
                assert headers["Cache-Control"] == "no-store, private" and "Cookie" in headers["Vary"]
