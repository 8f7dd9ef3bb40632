"""Staged webhook management across real `playsite serve` processes on PostgreSQL: a process
killed with -9 after it sent the verification echo leaves a lease that expires while its
attempt stays spent; a deploy that changes PLAY_ADMINS refuses every admin request until the
old process's generation is no longer live, and only then does the new one scrub what admins
staged under the old list."""

from __future__ import annotations

import threading

import httpx
import psycopg
import pytest
import trio

from playsite.accounts import queries as accounts_store
from playsite.accounts.sessions import SESSION_COOKIE, Sessions
from playsite.webhooks.slot_queries import LEASE_LIFETIME_S
from tests.support.database import migrated_url  # noqa: F401 (a fixture)
from tests.support.receiver import WebhookReceiver, echo
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

ORIGIN = "https://play.example"
SECRET = "e2e-management-session-" + "e" * 20


def env_for(url: str, admins: str = "") -> dict[str, str]:
    return {
        "DATABASE_URL": url, "DICE_SEED_WINDOW_MS": "0", "PLAY_CORS_ORIGINS": ORIGIN, "PLAY_PUBLIC_ORIGIN": ORIGIN,
        "PLAY_SESSION_SECRET": SECRET, "OIDC_ISSUER": "https://id.example", "OIDC_CLIENT_ID": "playsite",
        "OIDC_CLIENT_SECRET": "s", "WEBHOOK_SESSION_MANAGEMENT_ENABLED": "true", "WEBHOOK_ALLOW_LOOPBACK": "true",
        "PLAY_ADMINS": admins, "PLAY_HOUSE_BOTS": "false",
    }


def account(url: str, name: str):
    with psycopg.connect(url) as conn:
        made = accounts_store.sign_in(conn, "https://id.example", name, {"nickname": name})
        conn.commit()
    return made


def as_person(person, revision: int | None = None, write: bool = True) -> dict:
    headers = {"Cookie": f"{SESSION_COOKIE}={Sessions(SECRET, 3600).issue(person)}"}
    if write:
        headers.update({"Origin": ORIGIN, "X-Game-CSRF": "1", "Content-Type": "application/json"})
    if revision is not None:
        headers["If-Match"] = f'"{revision}"'
    return headers


async def registered_bot(http: httpx.AsyncClient, name: str) -> str:
    response = await http.post("/bot/register", json={"team": "e2e", "name": name})
    assert response.status_code in (200, 201), response.text
    return response.json()["token"]


async def read_slot(http: httpx.AsyncClient, person, path: str) -> dict:
    response = await http.get(path, headers=as_person(person, write=False))
    assert response.status_code == 200, response.text
    return response.json()


async def test_kill_9_after_the_echo_leaves_a_lease_that_expires_and_an_attempt_that_stays_spent(serve, migrated_url):
    alice = account(migrated_url, "alice")
    release = threading.Event()

    def held_echo(seen):
        release.wait(timeout=60)  # the first echo is never answered: its server dies meanwhile
        return echo(seen)

    with WebhookReceiver(held_echo) as receiver:
        server = serve(env_for(migrated_url))
        slot = "/me/bots/e2e/crashy/webhook"
        async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
            token = await registered_bot(http, "crashy")
            unfenced = await http.post("/me/bots", json={"token": token}, headers=as_person(alice))
            assert unfenced.status_code == 428  # a claim names the slot's revision, learnt from this answer
            fenced = as_person(alice, int(unfenced.headers["ETag"].strip('"')))
            assert (await http.post("/me/bots", json={"token": token}, headers=fenced)).status_code == 201
            revision = (await read_slot(http, alice, slot))["revision"]
            staged = await http.put(f"{slot}/setup", json={"url": receiver.url()}, headers=as_person(alice, revision))
            assert staged.status_code == 200, staged.text
            revision = staged.json()["revision"]

            async def activation():
                with pytest.raises(httpx.TransportError):  # the server is killed under it
                    await http.post(f"{slot}/setup/activate", json={}, headers=as_person(alice, revision))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(activation)
                await wait_until(lambda: receiver.seen, "the verification echo sent", timeout=10)
                server.kill()

        restarted = serve(env_for(migrated_url))
        async with httpx.AsyncClient(base_url=restarted.base_url, timeout=20) as http:
            read = await read_slot(http, alice, slot)
            assert read["setup"]["activating"] is True and read["setup"]["activationAttempts"] == 1
            again = await http.post(f"{slot}/setup/activate", json={}, headers=as_person(alice, read["revision"]))
            assert again.status_code == 409 and again.json()["code"] == "activation_in_progress"
            assert len(receiver.seen) == 1  # the refusal sent nothing

            async def lease_gone():
                return not (await read_slot(http, alice, slot))["setup"]["activating"]

            await wait_until(lease_gone, "the dead process's lease expired", timeout=LEASE_LIFETIME_S + 10, interval=0.5)
            read = await read_slot(http, alice, slot)
            assert read["setup"]["state"] == "pending" and read["setup"]["attemptsLeft"] == 4
            release.set()
            done = await http.post(f"{slot}/setup/activate", json={}, headers=as_person(alice, read["revision"]))
            assert done.status_code == 200, done.text
            assert done.json()["setup"]["activationAttempts"] == 2 and len(done.json()["secret"]) == 64
            assert done.json()["registration"]["url"] == receiver.url()
        assert "Traceback" not in restarted.output()


async def test_a_changed_admin_list_fails_closed_until_the_old_generation_expires_then_scrubs(serve, migrated_url):
    first, second = account(migrated_url, "first"), account(migrated_url, "second")
    old = serve(env_for(migrated_url, str(first.id)))
    slot = "/admin/bots/e2e/managed/webhook"
    async with httpx.AsyncClient(base_url=old.base_url, timeout=20) as http:
        await registered_bot(http, "managed")
        assert (await http.get("/admin/bots", headers=as_person(first, write=False))).status_code == 200
        other = await http.get("/admin/bots", headers=as_person(second, write=False))
        assert other.status_code == 403 and other.json()["code"] == "admin_required"  # not on this list
        assert "retry-after" not in other.headers  # waiting changes nothing for them
        revision = (await read_slot(http, first, slot))["revision"]
        staged = await http.put(f"{slot}/setup", json={"url": "https://hook.example/x"}, headers=as_person(first, revision))
        assert staged.status_code == 200 and staged.json()["setup"]["authority"] == "admin"
    old.kill()  # its last beat keeps the old generation live for up to 20 s

    new = serve(env_for(migrated_url, f"{first.id},{second.id}"))
    async with httpx.AsyncClient(base_url=new.base_url, timeout=20) as http:
        overlap = await http.get("/admin/bots", headers=as_person(second, write=False))
        assert overlap.status_code == 403 and overlap.json()["code"] == "admin_required"
        # on the new list: told the authority is not settled yet, and when to try again (play-through
        # s62: the same bare refusal as for anyone, no Retry-After)
        assert overlap.headers["retry-after"] == "20" and "not settled" in overlap.json()["title"], overlap.text
        with psycopg.connect(migrated_url) as conn:  # two live generations: nobody scrubs
            (state,) = conn.execute("SELECT state FROM webhook_setups WHERE bot_id = 'e2e/managed'").fetchone()
        assert state == "pending"

        async def admitted():
            return (await http.get("/admin/bots", headers=as_person(second, write=False))).status_code == 200

        await wait_until(admitted, "the old generation no longer live", timeout=30, interval=0.5)

        async def scrubbed():
            read = await http.get(slot, headers=as_person(second, write=False))
            return read.status_code == 200 and read.json()["setup"]["state"] == "scrubbed"

        await wait_until(scrubbed, "the sole generation scrubbed the old list's setup", timeout=15, interval=0.5)
        read = await read_slot(http, first, slot)
        kinds = [event["kind"] for event in read["audit"]]
        assert kinds[0] == "webhook.setup.scrubbed" and "webhook.setup.staged" in kinds
        refused = await http.post(f"{slot}/setup/activate", json={}, headers=as_person(first, read["revision"]))
        assert refused.status_code == 409 and refused.json()["code"] == "no_setup"
    assert "Traceback" not in new.output()


async def test_a_clean_stop_takes_its_admin_generation_away_so_a_changed_list_holds_at_once(serve, migrated_url):
    """Play-through (session 62): every stop logged "admin heartbeat: row not removed at stop:
    DatabaseUnavailable" (the row's removal ran after the database had closed, all loops being
    cancelled at once), so a restart with another list refused admins until the old beat aged
    out. The stop now withdraws the row while the database is open."""
    first, second = account(migrated_url, "first"), account(migrated_url, "second")

    def generations() -> int:
        with psycopg.connect(migrated_url) as conn:
            return conn.execute("SELECT count(*) FROM admin_generations").fetchone()[0]

    old = serve(env_for(migrated_url, str(first.id)))
    assert generations() == 1
    assert old.stop() == 0
    assert generations() == 0, old.output()
    assert "row not removed" not in old.output()
    new = serve(env_for(migrated_url, f"{first.id},{second.id}"))
    async with httpx.AsyncClient(base_url=new.base_url, timeout=20) as http:
        admitted = await http.get("/admin/bots", headers=as_person(second, write=False))
        assert admitted.status_code == 200, admitted.text  # the new list at once, not 20 s later
    assert "Traceback" not in new.output() + old.output()
