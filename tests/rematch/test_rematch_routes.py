"""Rematch and continuation over HTTP, on a real PostgreSQL, booted in-process (real clock:
PostgreSQL runs in worker threads). Each test finishes a real friend game between two guests
and works on its opportunity; the server's clock for rematch deadlines is replaced where a
test needs an exact instant."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
import trio

from playsite.accounts import queries as accounts_store
from playsite.accounts.sessions import SESSION_COOKIE, Sessions
from playsite.rooms.model import RoomPhase
from playsite.rules import Termination
from playsite.tokens import matches
from playsite.wire import BLACK, SEATS, WHITE, Fischer
from tests.support.app import booted, friend_game, test_client
from tests.support.database import migrated_url, refuse_writes, sql  # noqa: F401 (fixture)
from tests.support.rematch import (
    ORIGIN, WRITE, accept, as_seat, continuation, finished_game, get, matched_state, post, rematched, seconds, server,
)
from tests.support.rooms import attach
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres

SECRET = "rematch-session-secret-" + "r" * 20


# ----- the whole flow ----------------------------------------------------------------------------


async def test_propose_then_accept_commits_one_successor_with_each_seat_told_only_its_own(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, principals = await finished_game(services)
        status, available, headers = await get(client, game_id, tokens[WHITE])
        assert status == 200 and headers["Cache-Control"] == "no-store"
        assert available["phase"] == "available" and available["allowedActions"] == ["propose"]
        assert available["myConsent"] is False and "deadlineAt" in available
        assert available["settings"] == {
            "timeControl": {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}}, "rated": False, "mode": "classic",
        }
        assert (await continuation(client, game_id))["phase"] == "waiting"

        status, offered, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 200 and offered["phase"] == "offered" and offered["myConsent"] is True
        assert offered["allowedActions"] == ["propose", "cancel"]
        _, seen_by_black, _ = await get(client, game_id, tokens[BLACK])
        assert seen_by_black["allowedActions"] == ["accept", "decline"] and seen_by_black["myConsent"] is False
        assert seen_by_black["deadlineAt"] == offered["deadlineAt"]

        matched = await accept(client, game_id, tokens[BLACK])
        assert matched["phase"] == "matched", matched
        assert matched["allowedActions"] == [] and "deadlineAt" not in matched and "closedReason" not in matched
        _, white_view, _ = await get(client, game_id, tokens[WHITE])
        assert white_view["nextGameId"] == matched["nextGameId"] and white_view["joinDeadlineAt"] == matched["joinDeadlineAt"]
        assert {white_view["join"]["seat"], matched["join"]["seat"]} == {"White", "Black"}
        assert white_view["join"]["token"] != matched["join"]["token"]

        successor = services.registry.get(matched["nextGameId"])
        assert successor.setup.predecessor == game_id and successor.setup.origin == "rematch"
        # the server's limits hold in a rematch as in any game (play-through s59: its first-move
        # limit was lost with the setup the commit returned)
        assert successor.setup.first_move_s == services.settings.first_move_s == 30
        assert sql(migrated_url, "SELECT (snapshot -> 'setup' ->> 'firstMoveS')::float FROM games WHERE id = %s",
                   (matched["nextGameId"],)) == [(30.0,)]
        state = json.loads(successor.state_text())
        assert state["rematchStartup"] == {"phase": "awaiting_joins", "joinDeadlineAt": matched["joinDeadlineAt"]}
        # The final participants keep their people: each one's new seat is held by them.
        for view, source_seat in ((white_view, WHITE), (matched, BLACK)):
            assert successor.game.seats[view["join"]["seat"]].principal == principals[source_seat]
        public = await continuation(client, game_id)
        assert public.pop("serverNow") and public == {"sourceGameId": game_id, "phase": "matched", "nextGameId": matched["nextGameId"]}
        assert sql(migrated_url, "SELECT count(*) FROM rematch_successors WHERE source_game_id = %s", (game_id,)) == [(1,)]


async def test_the_successors_first_join_window_is_15_s_from_its_commit(migrated_url):
    """service.md: "15 s from commit". The link's table is locked for 2 s while the successor
    commits: the deadline is stamped after that wait, not before it (it was 12.4 s from the
    commit with a 3 s wait)."""
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        status, _, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 200
        locked, released = trio.Event(), []

        def hold_the_link_table() -> None:
            with psycopg.connect(migrated_url) as conn:
                conn.execute("LOCK TABLE rematch_successors IN SHARE MODE")
                trio.from_thread.run_sync(locked.set)
                time.sleep(2)
                released.append(time.time())
                conn.rollback()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, hold_the_link_table)
            await locked.wait()
            matched = await accept(client, game_id, tokens[BLACK])
        assert released, "the successor committed while the table was locked"
        left = seconds(matched["joinDeadlineAt"]) - released[0]
        assert left >= 14.9, f"{left:.2f} s of the 15 s window left after the commit"
        successor = services.registry.get(matched["nextGameId"])
        assert successor.game.setup.join_deadline_at == matched["joinDeadlineAt"], "the room keeps the committed deadline"
        stored = sql(migrated_url, "SELECT snapshot -> 'setup' ->> 'joinDeadlineAt' FROM games WHERE id = %s",
                     (matched["nextGameId"],))
        assert stored == [(matched["joinDeadlineAt"],)]


async def test_both_seats_joining_the_successor_starts_it_and_it_can_be_rematched_in_turn(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, principals = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        # the other's propose is consent (matched, or starting on a loaded machine: seen once in
        # CI, the commit past the request's 3 s wait)
        matched = await accept(client, game_id, tokens[BLACK], action="propose")
        assert matched["phase"] == "matched"
        successor = services.registry.get(matched["nextGameId"])
        for seat in SEATS:
            await attach(successor, seat)
        await wait_until(
            lambda: json.loads(successor.state_text())["rematchStartup"] == {"phase": "active"}, "the successor begins"
        )
        # begun: a roll to play, whose first-move limit runs (a person's first turn is not on the clock)
        assert successor.game.phase is RoomPhase.PLAYING and successor.game.first_move_deadline() is not None
        # The chain goes on: the successor, once finished, is itself a source.
        continuing = await continuation(client, successor.game_id)
        assert continuing["phase"] == "waiting" and "deadlineAt" not in continuing


async def test_retries_return_the_canonical_state_and_a_reused_id_with_another_action_conflicts(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        request_id = str(uuid.uuid4())
        first = await post(client, game_id, tokens[WHITE], "propose", request_id)
        again = await post(client, game_id, tokens[WHITE], "propose", request_id)
        assert first[0] == again[0] == 200 and again[1]["deadlineAt"] == first[1]["deadlineAt"]
        status, body, headers = await post(client, game_id, tokens[WHITE], "cancel", request_id)
        assert status == 409 and body["error"] == {"code": "request_id_conflict"} and body["state"]["phase"] == "offered"
        assert headers["Cache-Control"] == "no-store"
        # A rejected command keeps its error on replay, with the state as it is now.
        bad = str(uuid.uuid4())
        status, body, _ = await post(client, game_id, tokens[WHITE], "accept", bad)
        assert status == 409 and body["error"]["code"] == "invalid_transition"
        await post(client, game_id, tokens[BLACK], "decline")
        status, body, _ = await post(client, game_id, tokens[WHITE], "accept", bad)
        assert status == 409 and body["error"]["code"] == "invalid_transition" and body["state"]["phase"] == "closed"
        # Replaying the first (successful) propose: 200 with the current, closed, state.
        status, body, _ = await post(client, game_id, tokens[WHITE], "propose", request_id)
        assert status == 200 and body["phase"] == "closed" and body["closedReason"] == "declined"


async def test_decline_and_cancel_close_it_and_closed_stays_closed(migrated_url):
    async with server(migrated_url) as (services, client):
        declined, tokens, _ = await finished_game(services)
        await post(client, declined, tokens[WHITE], "propose")
        status, body, _ = await post(client, declined, tokens[WHITE], "decline")
        assert status == 409 and body["error"]["code"] == "invalid_transition"  # the initiator cannot decline
        status, body, _ = await post(client, declined, tokens[BLACK], "decline")
        assert status == 200 and body["phase"] == "closed" and body["closedReason"] == "declined"
        assert body["allowedActions"] == [] and "deadlineAt" not in body
        status, body, _ = await post(client, declined, tokens[BLACK], "propose")
        assert status == 410 and body["error"]["code"] == "rematch_closed" and body["state"]["phase"] == "closed"
        public = await continuation(client, declined)
        assert public.pop("serverNow") and public == {"sourceGameId": declined, "phase": "closed"}

        cancelled, tokens, _ = await finished_game(services)
        await post(client, cancelled, tokens[BLACK], "propose")
        status, body, _ = await post(client, cancelled, tokens[BLACK], "cancel")
        assert status == 200 and body["closedReason"] == "cancelled"


async def test_deadlines_are_absolute_and_equality_rejects(migrated_url):
    async with server(migrated_url) as (services, client):
        rematches = services.rematches
        game_id, tokens, _ = await finished_game(services)
        _, available, _ = await get(client, game_id, tokens[WHITE])
        ends = seconds(available["deadlineAt"])
        rematches.wall = lambda: ends - 0.001
        status, offered, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 200 and seconds(offered["deadlineAt"]) == pytest.approx(ends - 0.001 + 15, abs=0.002)
        # Reads, repeats and the initiator's own repeated propose do not move the deadline.
        rematches.wall = lambda: ends + 10
        await post(client, game_id, tokens[WHITE], "propose")
        _, still, _ = await get(client, game_id, tokens[BLACK])
        assert still["deadlineAt"] == offered["deadlineAt"]
        offer_deadline = seconds(offered["deadlineAt"])
        rematches.wall = lambda: offer_deadline  # exactly at the deadline: too late
        status, body, _ = await post(client, game_id, tokens[BLACK], "accept")
        assert status == 410 and body["state"]["phase"] == "closed" and body["state"]["closedReason"] == "expired"
        assert (await continuation(client, game_id))["phase"] == "closed"

        rematches.wall = time.time
        untouched, tokens, _ = await finished_game(services)
        _, fresh, _ = await get(client, untouched, tokens[BLACK])
        rematches.wall = lambda: seconds(fresh["deadlineAt"])
        _, expired, _ = await get(client, untouched, tokens[BLACK])
        assert expired["phase"] == "closed" and expired["closedReason"] == "expired"


async def test_who_may_act(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        status, body, _ = await get(client, game_id, None)
        assert status == 401 and body == {"error": {"code": "authentication_required"}}
        status, body, _ = await get(client, game_id, "not-a-seat-token")
        assert status == 403 and body == {"error": {"code": "not_participant"}}
        # Origin and CSRF are checked before the seat: a valid token does not help without them.
        for headers in ({"Origin": "https://evil.example"}, {"X-Game-CSRF": ""}, {"Origin": ""}):
            status, body, _ = await post(client, game_id, tokens[WHITE], "propose", **headers)
            assert status == 403 and body == {"error": {"code": "not_participant"}}, headers
        status, body, _ = await get(client, str(uuid.uuid4()), tokens[WHITE])
        assert status == 404 and body == {"error": {"code": "game_not_found"}}
        status, body, _ = await get(client, "not-a-game", tokens[WHITE])
        assert status == 404


async def test_a_guest_token_counts_only_over_https(migrated_url):
    remote = {"client": ("203.0.113.7", 40000)}
    async with server(migrated_url, trusted_proxies=("10.0.0.0/8",)) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        url = f"/games/{game_id}/rematch"
        plain = await client.get(url, headers=as_seat(tokens[WHITE]), scope_base=remote)
        assert plain.status_code == 401 and (await plain.get_json()) == {"error": {"code": "authentication_required"}}
        tls = await client.get(url, headers=as_seat(tokens[WHITE]), scope_base=remote, scheme="https")
        assert tls.status_code == 200
        proxy = {"client": ("10.1.2.3", 40000)}
        for proto, status in (("https", 200), ("http", 401), (None, 401)):
            forwarded = {"X-Forwarded-Proto": proto} if proto else {}
            answer = await client.get(url, headers={**as_seat(tokens[WHITE]), **forwarded}, scope_base=proxy)
            assert answer.status_code == status, proto
        # Anyone else saying X-Forwarded-Proto is not believed.
        spoofed = await client.get(url, headers={**as_seat(tokens[WHITE]), "X-Forwarded-Proto": "https"}, scope_base=remote)
        assert spoofed.status_code == 401


ACCOUNTS = dict(session_secret=SECRET, oidc_issuer="https://id.example", oidc_client_id="playsite",
                oidc_client_secret="s", public_origin=ORIGIN)
"""The settings of a server with sign-in, for `two_accounts`' sessions."""


def two_accounts(url: str):
    """Alice and Bob, signed in once: (alice, bob, {principal: their session cookie header})."""
    with psycopg.connect(url) as conn:
        alice = accounts_store.sign_in(conn, "https://id.example", "alice", {"nickname": "alice"})
        bob = accounts_store.sign_in(conn, "https://id.example", "bob", {"nickname": "bob"})
        conn.commit()
    sessions = Sessions(SECRET, 3600)
    return alice, bob, {a.principal: {"Cookie": f"{SESSION_COOKIE}={sessions.issue(a)}"} for a in (alice, bob)}


async def test_an_account_seat_answers_to_its_session_and_never_to_a_token(migrated_url):
    alice, bob, cookie = two_accounts(migrated_url)
    async with server(migrated_url, **ACCOUNTS) as (services, client):
        game_id, tokens, _ = await finished_game(services, {WHITE: alice.principal, BLACK: bob.principal}, rated=True)
        status, body, _ = await get(client, game_id, tokens[WHITE])
        assert status == 403 and body == {"error": {"code": "not_participant"}}  # a token never opens an account's seat
        status, body, _ = await get(client, game_id, None, **cookie[alice.principal])
        assert status == 200 and body["settings"]["rated"] is True
        status, body, _ = await post(client, game_id, None, "propose", **cookie[alice.principal])
        assert status == 200 and body["phase"] == "offered"
        # Alice's account is deactivated meanwhile: a rated rematch can no longer be made as it was.
        with psycopg.connect(migrated_url) as conn:
            accounts_store.set_active(conn, alice.id, False)
            conn.commit()
        status, body, _ = await post(client, game_id, None, "accept", **cookie[bob.principal])
        assert status == 409 and body["error"]["code"] == "settings_unavailable"
        assert body["state"]["phase"] == "offered" and body["state"]["settings"]["rated"] is True


async def test_a_commit_retried_by_the_scan_checks_the_inherited_settings_again(migrated_url):
    """Rule 17: the settings are validated when the successor is made, not only when the
    consent was taken. A `starting` left to the scan (its commit task lost) whose rated source
    lost an account meanwhile is closed (technical_failure), never committed as something else."""
    alice, bob, cookie = two_accounts(migrated_url)
    alice_cookie, bob_cookie = cookie[alice.principal], cookie[bob.principal]
    async with server(migrated_url, **ACCOUNTS) as (services, client):
        game_id, _, _ = await finished_game(services, {WHITE: alice.principal, BLACK: bob.principal}, rated=True)
        status, body, _ = await post(client, game_id, None, "propose", **alice_cookie)
        assert status == 200 and body["phase"] == "offered"
        # Both consented, and the commit task was lost (the process busy elsewhere): the row
        # waits in `starting` for the scan. Meanwhile Alice's account is deactivated.
        sql(migrated_url, "UPDATE rematch_opportunities SET phase = 'starting', consents = '{White,Black}',"
                          " updated_at = now() - interval '1 minute' WHERE source_game_id = %s", (game_id,))
        with psycopg.connect(migrated_url) as conn:
            accounts_store.set_active(conn, alice.id, False)
            conn.commit()
        await services.rematches.scan()
        closed = await wait_until(
            lambda: _closed(client, game_id, None, **bob_cookie), "the opportunity closed", 10, 0.25)
        assert closed["closedReason"] == "technical_failure"
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'rematch'") == [(0,)]


async def test_ineligible_sources_read_closed(migrated_url):
    async with server(migrated_url) as (services, client):
        same = f"guest:{uuid.uuid4()}"
        game_id, tokens, _ = await finished_game(services, {WHITE: same, BLACK: same})
        status, body, _ = await get(client, game_id, tokens[WHITE])
        assert status == 200 and body["phase"] == "closed" and body["allowedActions"] == []
        status, body, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 410 and body["error"]["code"] == "rematch_closed"
        assert (await continuation(client, game_id))["phase"] == "closed"

        aborted, tokens, _ = await finished_game(services, technical_abort=True)
        ending = services.registry.get(aborted).ending
        assert ending.termination is Termination.ABORTED and ending.technical
        _, body, _ = await get(client, aborted, tokens[BLACK])
        assert body["phase"] == "closed" and body["closedReason"] == "technical_failure"
        status, body, _ = await post(client, aborted, tokens[WHITE], "propose")
        assert status == 410 and body["error"]["code"] == "rematch_closed"


async def test_a_game_its_players_aborted_before_both_played_can_be_rematched(migrated_url):
    async with server(migrated_url) as (services, client):
        aborted, tokens, _ = await finished_game(services, resign_after_turns=False)  # resigned before both played
        ending = services.registry.get(aborted).ending
        assert ending.termination is Termination.ABORTED and not ending.technical
        await rematched(client, aborted, tokens)


async def test_a_game_two_people_met_in_through_a_seek_can_be_rematched(migrated_url):
    """An ordinary human-versus-human game of the /play product (service.md, rematch
    eligibility): the lobby's seeks are part of it as friend games are (play-through, session 51:
    no rematch was offered after a quick-pairing game)."""
    async with server(migrated_url) as (services, client):
        met, tokens, _ = await finished_game(services, through_a_seek=True)
        assert services.registry.get(met).setup.origin == "seek"
        await rematched(client, met, tokens)


async def test_an_ongoing_game_is_waiting_without_a_deadline(migrated_url):
    async with server(migrated_url) as (services, client):
        created = await friend_game(services, Fischer(300, 3))
        body = await continuation(client, created.room.game_id)
        assert body["phase"] == "waiting" and "deadlineAt" not in body


async def test_the_first_serialised_answer_wins_a_race_of_accepts_and_cancels(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        outcomes = []

        async def send(token, action):
            outcomes.append((action, *(await post(client, game_id, token, action))[:2]))

        async with trio.open_nursery() as nursery:
            for _ in range(10):
                nursery.start_soon(send, tokens[BLACK], "accept")
                nursery.start_soon(send, tokens[WHITE], "cancel")
        # "starting" while the successor's commit outlasts the requests' wait (a loaded machine).
        final = await wait_until(lambda: _settled(client, game_id, tokens[WHITE]), "the race settled", timeout=20)
        assert final["phase"] in ("matched", "closed")
        answers = {action: [(status, body) for a, status, body in outcomes if a == action] for action in ("accept", "cancel")}
        if final["phase"] == "matched":  # the accept came first: every cancel was too late
            assert all(
                status == 200 and (body["phase"] == "starting" or body["nextGameId"] == final["nextGameId"])
                for status, body in answers["accept"]
            )
            assert all(status == 409 and body["error"]["code"] == "invalid_transition" for status, body in answers["cancel"])
        else:  # the cancel came first: no accept got through
            assert final["closedReason"] == "cancelled"
            assert all(status == 410 for status, _ in answers["accept"])
        successors = sql(migrated_url, "SELECT count(*) FROM rematch_successors WHERE source_game_id = %s", (game_id,))
        assert successors == [(1 if final["phase"] == "matched" else 0,)]
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE snapshot->'setup'->>'predecessor' = %s", (game_id,)) == successors


async def test_a_request_that_goes_away_after_consent_still_gets_its_successor_on_retry(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        request_id = str(uuid.uuid4())
        source = await services.rematches.source(game_id)
        async with trio.open_nursery() as nursery:
            # The client is gone right after its consent committed, before its answer: the
            # successor's commit is the service's work, not the request's.
            nursery.start_soon(services.rematches.command, source, BLACK, uuid.UUID(request_id), "accept")
            await wait_until(lambda: _phase(migrated_url, game_id) in ("starting", "matched"), "the consent committed")
            nursery.cancel_scope.cancel()
        # Read back as a client would, about once per 250 ms: well under the 120 reads a minute
        # the route allows one address.
        matched = await wait_until(
            lambda: matched_state(client, game_id, tokens[BLACK]), "the successor committed without its request",
            timeout=10, interval=0.25,
        )
        status, again, _ = await post(client, game_id, tokens[BLACK], "accept", request_id)
        assert status == 200 and again["nextGameId"] == matched["nextGameId"] and again["join"] == matched["join"]


def _phase(url: str, game_id: str) -> str | None:
    rows = sql(url, "SELECT phase FROM rematch_opportunities WHERE source_game_id = %s", (game_id,))
    return rows[0][0] if rows else None


async def _settled(client, game_id, token):
    status, body, _ = await get(client, game_id, token)
    assert status == 200, body
    return None if body["phase"] == "starting" else body


async def test_a_restart_closes_unfinished_offers_and_aborts_a_successor_that_never_began(migrated_url):
    async with server(migrated_url) as (services, client):
        offered, offered_tokens, _ = await finished_game(services)
        await post(client, offered, offered_tokens[WHITE], "propose")
        matched_source, tokens, _ = await finished_game(services)
        await post(client, matched_source, tokens[WHITE], "propose")
        matched = await accept(client, matched_source, tokens[BLACK])
        untouched, untouched_tokens, _ = await finished_game(services)
        _, before, _ = await get(client, untouched, untouched_tokens[WHITE])
    async with server(migrated_url) as (services, client):
        _, body, _ = await get(client, offered, offered_tokens[BLACK])
        assert body["phase"] == "closed" and body["closedReason"] == "restart"
        successor = services.registry.get(matched["nextGameId"])
        assert successor.ended and successor.ending.termination is Termination.ABORTED and successor.ending.technical
        # The public state is the committed one: read it once the abort's write has committed.
        await wait_until(lambda: successor.completed, "the successor's abort committed", timeout=10)
        assert json.loads(successor.state_text())["rematchStartup"] == {"phase": "aborted"}
        _, body, _ = await get(client, matched_source, tokens[WHITE])
        assert body["phase"] == "matched" and body["nextGameId"] == matched["nextGameId"]  # never reopened
        _, after, _ = await get(client, untouched, untouched_tokens[WHITE])
        assert after["deadlineAt"] == before["deadlineAt"]  # an untouched window keeps its end-based deadline


async def test_bodies_limits_and_the_memory_store(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        url = f"/games/{game_id}/rematch"
        headers = {**WRITE, **as_seat(tokens[WHITE])}
        for body in ({"requestId": str(uuid.uuid4())}, {"requestId": str(uuid.uuid4()), "action": "propose", "seat": "White"},
                     {"requestId": "nope", "action": "propose"}, {"requestId": str(uuid.uuid4()), "action": "rematch"}):
            response = await client.post(url, json=body, headers=headers)
            assert response.status_code == 400 and (await response.get_json()) == {"error": {"code": "invalid_request"}}
        response = await client.post(url, data="requestId=1", headers={**headers, "Content-Type": "text/plain"})
        assert response.status_code == 400
        response = await client.post(url, data=json.dumps({"requestId": "x" * 2000, "action": "propose"}),
                                     headers={**headers, "Content-Type": "application/json"})
        # over the 1 KiB a command may be: a malformed body in the rematch contract (no 413 there)
        assert response.status_code == 400 and (await response.get_json()) == {"error": {"code": "invalid_request"}}
        assert response.headers["Cache-Control"] == "no-store" and response.headers["Connection"] == "close"
        # a method the path does not take: still the contract's shape and no-store
        response = await client.put(url, json={}, headers=headers)
        assert response.status_code == 405 and response.headers["Cache-Control"] == "no-store"
        assert (await response.get_json()) == {"error": {"code": "method_not_allowed"}}
    async with booted() as services:
        response = await test_client(services).get(f"/games/{uuid.uuid4()}/continuation")
        assert response.status_code == 503 and (await response.get_json()) == {"error": {"code": "temporarily_unavailable"}}
        assert response.headers["Cache-Control"] == "no-store"


async def test_behind_a_trusted_proxy_each_client_has_its_own_limit(migrated_url):
    """The proxy's peer address is every client's: the limit counts the client its
    X-Forwarded-For names (strangers here: 403, counted all the same)."""
    proxy = {"client": ("10.1.2.3", 40000)}
    async with server(migrated_url, trusted_proxies=("10.0.0.0/8",)) as (services, client):
        game_id, _, _ = await finished_game(services)

        async def command(address: str) -> int:
            headers = {"X-Forwarded-For": address, "X-Forwarded-Proto": "https"}
            status, _, _ = await post(client, game_id, "not-a-seat-token", "propose", **headers, scope_base=proxy)
            return status

        assert [await command(f"203.0.113.{n}") for n in range(1, 32)] == [403] * 31
        assert [await command("198.51.100.7") for _ in range(31)] == [403] * 30 + [429]


async def test_thirty_commands_a_minute_then_429(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        answers = [await post(client, game_id, tokens[WHITE], "propose") for _ in range(31)]
        assert [status for status, _, _ in answers[:30]] == [200] * 30
        status, body, headers = answers[-1]
        assert status == 429 and body == {"error": {"code": "rate_limited"}} and headers["Retry-After"] == "60"


async def test_with_postgresql_and_no_cors_origins_the_boot_warns_that_rematch_commands_are_refused(migrated_url, caplog):
    with caplog.at_level("WARNING", logger="playsite"):
        async with server(migrated_url, cors_origins=()):
            pass
    assert "PLAY_CORS_ORIGINS is empty: rematch reads work, every rematch command is refused" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="playsite"):
        async with server(migrated_url):
            pass
    assert "rematch reads work, every rematch command is refused" not in caplog.text


async def test_a_source_pruned_by_retention_still_answers_its_continuation(migrated_url):
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        matched = await accept(client, game_id, tokens[BLACK])
        assert matched["phase"] == "matched"
    async with server(migrated_url) as (services, client):  # a later process: nothing of it in memory
        pruned = await services.store.prune(datetime.now(timezone.utc) + timedelta(days=1))
        assert pruned.games >= 1
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE id = %s", (game_id,)) == [(0,)]
        history = await client.get(f"/games/{game_id}/history")
        assert history.status_code == 200
        public = await continuation(client, game_id)
        assert public["phase"] == "matched" and public["nextGameId"] == matched["nextGameId"]
        status, _, _ = await get(client, game_id, tokens[WHITE])
        assert status in (401, 403), "a guest's seat capability went with the pruned digests: refused, not 404"


async def test_the_successors_seat_tokens_are_sealed_at_rest_and_each_participant_still_gets_its_own(migrated_url):
    async with server(migrated_url, secrets_key="7a" * 32) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        matched = await accept(client, game_id, tokens[BLACK])
        [(white, black)] = sql(migrated_url, "SELECT white_token, black_token FROM rematch_successors")
        assert white.startswith("sealed1:") and black.startswith("sealed1:")
        _, white_view, _ = await get(client, game_id, tokens[WHITE])
        joins = {white_view["join"]["seat"]: white_view["join"]["token"], matched["join"]["seat"]: matched["join"]["token"]}
        assert all(token not in white + black for token in joins.values())
        successor = services.registry.get(matched["nextGameId"])
        for seat, token in joins.items():
            assert matches(token, successor.setup.seat(seat).token_hash), "the token opened is the seat's capability"


async def test_a_successor_that_cannot_be_created_closes_the_opportunity_as_technical_failure(migrated_url):
    refuse_writes(migrated_url, "rematch_successors", "INSERT")
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        await post(client, game_id, tokens[WHITE], "propose")
        await post(client, game_id, tokens[BLACK], "accept")
        closed = await wait_until(
            lambda: _closed(client, game_id, tokens[WHITE]), "the opportunity closed as technical_failure", 10, 0.25
        )
        assert closed["closedReason"] == "technical_failure" and "nextGameId" not in closed
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'rematch'") == [(0,)]
        assert (await continuation(client, game_id))["phase"] == "closed"
        status, again, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 410 and again["error"] == {"code": "rematch_closed"}
        assert again["state"]["closedReason"] == "technical_failure"


async def test_a_database_that_refuses_the_opportunity_write_answers_503_not_500(migrated_url):
    refuse_writes(migrated_url, "rematch_opportunities")
    async with server(migrated_url) as (services, client):
        game_id, tokens, _ = await finished_game(services)
        status, body, _ = await post(client, game_id, tokens[WHITE], "propose")
        assert status == 503 and body["error"]["code"] == "temporarily_unavailable", body
        assert "refuses" not in json.dumps(body), "the database's own words stay in the log"


async def _closed(client, game_id, token, **headers):
    status, body, _ = await get(client, game_id, token, **headers)
    assert status == 200, body
    return body if body["phase"] == "closed" else None


async def test_a_person_signed_in_since_joins_the_successor_seat_of_their_earlier_guest_id(migrated_url):
    with psycopg.connect(migrated_url) as conn:
        alice = accounts_store.sign_in(conn, "https://id.example", "alice-later", {"nickname": "alicelater"})
        conn.commit()
    signed_in = {"Cookie": f"{SESSION_COOKIE}={Sessions(SECRET, 3600).issue(alice)}", "Origin": ORIGIN}
    async with server(migrated_url, **ACCOUNTS) as (services, client):
        guests = {seat: str(uuid.uuid4()) for seat in SEATS}
        game_id, tokens, _ = await finished_game(services, {seat: f"guest:{guests[seat]}" for seat in SEATS})
        await post(client, game_id, tokens[WHITE], "propose")
        matched = await accept(client, game_id, tokens[BLACK])
        _, white_view, _ = await get(client, game_id, tokens[WHITE])
        join = white_view["join"]  # what the person who played White as a guest was given
        successor = services.registry.get(matched["nextGameId"])
        # They signed in since; their page still names their guest id, and carries the session.
        path = f"/games/{successor.game_id}/ws?token={join['token']}&guest={guests[WHITE].upper()}"
        async with client.websocket(path, headers=signed_in) as ws:
            assert '"Snapshot"' in await ws.receive()
            await wait_until(lambda: successor.game.seats[join["seat"]].connections == 1, "the seat taken", 5)
        assert successor.game.seats[join["seat"]].principal == f"guest:{guests[WHITE]}"
        # Another guest id with the same session is still not that seat's.
        other = f"/games/{successor.game_id}/ws?token={join['token']}&guest={uuid.uuid4()}"
        with pytest.raises(Exception):
            async with client.websocket(other, headers=signed_in) as ws:
                await ws.receive()
