"""The showcase table on a real PostgreSQL, booted in-process, with a real webhook endpoint
(a threaded HTTP server) as the featured bot. Real clock: PostgreSQL runs in worker threads.
"""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest
import trio

from playsite.config import Settings
from playsite.rooms.admission import Purpose
from playsite.rooms.intents import PlayerCommand
from playsite.showcase.table import TablePhase
from playsite.wire import Fischer, Resign
from tests.support.app import booted, test_client
from tests.support.database import allow_writes, migrated_url, refuse_writes, sql  # noqa: F401 (fixture)
from tests.support.frozen_postgres import frozen
from tests.support.receiver import Reply
from tests.support.showcase import (  # noqa: F401 (receiver: a fixture)
    FEATURED,
    ORIGIN,
    SIGN_IN,
    archived_as_technical_abort,
    created_earlier,
    end_game,
    receiver,
    signed_in,
    table_at,
)
from tests.support.waiting import deadline, wait_until

pytestmark = pytest.mark.postgres


# ----- status ------------------------------------------------------------------------------------


async def test_the_status_is_open_with_the_featured_bot_and_revalidates_with_its_etag(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        response, body = await t.status()
        assert body == {
            "status": "open",
            "featuredBot": {"team": "studio", "name": "featured"},
            "timeControl": {"Fischer": {"initialSeconds": 300, "incrementSeconds": 3}},
            "rated": False,
            "nextHumanColor": "White",
        }
        assert response.headers["Cache-Control"] == "no-store, no-cache, must-revalidate"
        etag = response.headers["ETag"]
        assert etag.startswith('W/"')
        again, _ = await t.status(**{"If-None-Match": etag})
        assert again.status_code == 304 and await again.get_data() == b""
        assert again.headers["ETag"] == etag
        # the weak comparison If-None-Match calls for: the tag without W/, among others, or *
        for tags in (etag[2:], f'"other", {etag[2:]}', "*"):
            revalidated, _ = await t.status(**{"If-None-Match": tags})
            assert revalidated.status_code == 304, tags
        changed, _ = await t.status(**{"If-None-Match": 'W/"other"'})
        assert changed.status_code == 200


async def test_without_the_featured_bot_the_table_is_unavailable_and_claims_are_503(migrated_url, receiver):
    async with table_at(migrated_url, receiver, register=False) as t:
        _, body = await t.status()
        assert body["status"] == "unavailable" and body["reason"] == "bot_unavailable"
        assert "nextHumanColor" not in body and "currentGame" not in body
        status, problem, headers = await t.claim(str(uuid.uuid4()))
        assert status == 503 and problem["code"] == "showcase_unavailable" and int(headers["Retry-After"]) > 0


async def test_the_memory_store_keeps_the_table_closed_for_maintenance(receiver):
    settings = Settings(showcase_enabled=True, showcase_bot=FEATURED, webhook_push_enabled=True)
    async with booted(settings) as services:
        _, body = None, await (await test_client(services).get("/showcase")).get_json()
        assert body["status"] == "unavailable" and body["reason"] == "maintenance"


# ----- claims ------------------------------------------------------------------------------------


async def test_fifty_concurrent_claims_make_exactly_one_winner(migrated_url, receiver, monkeypatch):
    monkeypatch.setattr("playsite.showcase.routes.CLAIMS_PER_ADDRESS_PER_MINUTE", 100)  # 50 visitors, one test address
    async with table_at(migrated_url, receiver) as t:
        answers = []

        async def claim():
            answers.append(await t.claim(str(uuid.uuid4())))

        async with trio.open_nursery() as nursery:
            for _ in range(50):
                nursery.start_soon(claim)
        assert all(status == 200 for status, _, _ in answers)
        winners = [body for _, body, _ in answers if body["outcome"] == "claimed"]
        losers = [body for _, body, _ in answers if body["outcome"] == "spectating"]
        assert len(winners) == 1 and len(losers) == 49
        game_id = winners[0]["gameId"]
        assert all(body == {"outcome": "spectating", "reason": "already_claimed", "gameId": game_id,
                            "spectatorWsUrl": f"/games/{game_id}/ws?mode=spectator"} for body in losers)
        assert not any("seatToken" in body for body in losers)
        assert winners[0]["seat"] == "White"
        assert [h["Cache-Control"] for _, b, h in answers if b["outcome"] == "claimed"] == ["no-store, private"]
        assert sql(migrated_url, "SELECT next_human_color, current_game::text FROM showcase_table") == [("Black", game_id)]
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'showcase'") == [(1,)]
        _, body = await t.status()
        assert body["status"] == "live" and body["currentGame"] == game_id and body["nextHumanColor"] == "Black"
        assert body["wsUrl"] == f"/games/{game_id}/ws?mode=spectator" and "seatToken" not in json.dumps(body)


async def test_a_retry_replays_the_outcome_and_another_fingerprint_conflicts(migrated_url, receiver):
    async with table_at(migrated_url, receiver, dice_seed_window_ms=2000) as t:
        guest, key = str(uuid.uuid4()), str(uuid.uuid4())
        entropy = "my own dice entropy 123"
        status, first, _ = await t.claim(guest, key, clientEntropy=entropy)
        assert status == 200 and first["outcome"] == "claimed"
        status, again, _ = await t.claim(guest, key, clientEntropy=entropy)
        assert status == 200 and again == first, "the same seat token again while the game is on"
        status, conflict, _ = await t.claim(guest, key, clientEntropy="another entropy value!!")
        assert status == 409 and conflict["code"] == "idempotency_conflict"
        # The winner's entropy became its dice seed.
        room = t.services.registry.get(first["gameId"])
        assert entropy in (room.game.fairness.client_seeds.white, room.game.fairness.client_seeds.black)
        await end_game(t, first["gameId"])
        status, ended, _ = await t.claim(guest, key, clientEntropy=entropy)
        assert ended == {"outcome": "spectating", "reason": "game_ended", "gameId": first["gameId"],
                         "spectatorWsUrl": f"/games/{first['gameId']}/ws?mode=spectator"}
        # An expired record is pruned and the same key then claims afresh.
        sql(migrated_url, "UPDATE showcase_claims SET created_at = now() - interval '25 hours'")
        status, fresh, _ = await t.claim(guest, key, clientEntropy=entropy)
        assert fresh["outcome"] == "claimed" and fresh["gameId"] != first["gameId"]
        assert sql(migrated_url, "SELECT count(*) FROM showcase_claims") == [(1,)]


async def test_the_winners_entropy_is_its_seed_even_when_the_claim_commits_after_the_seed_window(migrated_url, receiver):
    """The claim's transaction waits on a lock for longer than the 1 s seed window: the entropy,
    handed to the room after the commit, still seeds the winner's dice (the first roll waits for
    the winner's seat, which only the answered credential can take)."""
    async with table_at(migrated_url, receiver, dice_seed_window_ms=1000) as t:
        locked, release = trio.Event(), trio.Event()

        def hold_the_table() -> None:
            with psycopg.connect(migrated_url) as conn:
                conn.execute("LOCK TABLE showcase_table IN EXCLUSIVE MODE")
                trio.from_thread.run_sync(locked.set)
                trio.from_thread.run(release.wait)
                conn.rollback()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, hold_the_table)
            await locked.wait()
            began = trio.current_time()

            async def release_later():
                await trio.sleep(1.6)  # the lock outlives the seed window
                release.set()

            nursery.start_soon(release_later)
            entropy = "entropy that must not come too late"
            status, body, _ = await t.claim(str(uuid.uuid4()), clientEntropy=entropy)
        assert status == 200 and body["outcome"] == "claimed", body
        assert trio.current_time() - began >= 1.5, "the claim waited on the lock"
        seeds = t.services.registry.get(body["gameId"]).game.fairness.client_seeds
        assert (seeds.white if body["seat"] == "White" else seeds.black) == entropy


async def test_the_colour_alternates_on_each_successful_creation_only(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        seats = []
        for _ in range(3):
            _, body, _ = await t.claim(str(uuid.uuid4()))
            seats.append(body["seat"])
            await end_game(t, body["gameId"])
        assert seats == ["White", "Black", "White"]
        # A creation refused at admission (the featured bot's showcase seat is taken) advances nothing.
        bot = t.services.bots.get(FEATURED)
        held = t.services.registry.admission.reserve(Purpose.SHOWCASE, [bot.principal])
        try:
            status, problem, _ = await t.claim(str(uuid.uuid4()))
            assert status == 503 and problem["code"] == "showcase_unavailable"
        finally:
            held.release()
        assert sql(migrated_url, "SELECT next_human_color, current_game FROM showcase_table") == [("Black", None)]
        _, body, _ = await t.claim(str(uuid.uuid4()))
        assert body["seat"] == "Black"


async def test_the_featured_bot_plays_two_general_games_and_the_showcase_at_once(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        bot = t.services.bots.get(FEATURED)
        admission = t.services.registry.admission
        general = [admission.reserve(Purpose.GENERAL, [bot.principal]) for _ in range(2)]
        with pytest.raises(Exception):
            admission.reserve(Purpose.GENERAL, [bot.principal])  # general never borrows the showcase seat
        status, body, _ = await t.claim(str(uuid.uuid4()))
        assert status == 200 and body["outcome"] == "claimed"
        for reservation in general:
            reservation.release()


async def test_a_featured_bot_that_declares_less_keeps_its_showcase_seat_and_gives_up_general_ones(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        bot = t.services.bots.get(FEATURED)
        admission = t.services.registry.admission
        assert (await t.services.bots.update(bot, max_concurrent_games=1)).max_concurrent_games == 1
        with pytest.raises(Exception):
            admission.reserve(Purpose.GENERAL, [bot.principal])  # declared 1: the showcase seat only
        status, body, _ = await t.claim(str(uuid.uuid4()))
        assert status == 200 and body["outcome"] == "claimed"


# ----- the request -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "body", "status", "code"),
    [
        ({}, {"guestId": "11111111-2222-4333-8444-555555555555"}, 400, "missing_idempotency_key"),
        ({"Idempotency-Key": "not-a-uuid"}, {"guestId": "11111111-2222-4333-8444-555555555555"}, 400, "invalid_idempotency_key"),
        ({"Idempotency-Key": str(uuid.uuid4())}, {}, 400, "guest_required"),
        ({"Idempotency-Key": str(uuid.uuid4())}, {"guestId": "alice"}, 400, "invalid_guest_id"),
        ({"Idempotency-Key": str(uuid.uuid4())}, {"guestId": 7}, 400, "invalid_guest_id"),
        ({"Idempotency-Key": str(uuid.uuid4())}, {"guestId": "11111111-2222-4333-8444-555555555555", "seat": "White"}, 400, "malformed_request"),
        ({"Idempotency-Key": str(uuid.uuid4())}, {"guestId": "11111111-2222-4333-8444-555555555555", "clientEntropy": "short"}, 400, "malformed_request"),
        ({"Idempotency-Key": str(uuid.uuid4())}, [1, 2], 400, "malformed_request"),
    ],
)
async def test_bad_claims_are_problems_with_their_codes(migrated_url, receiver, headers, body, status, code):
    async with table_at(migrated_url, receiver) as t:
        response = await t.client.post("/showcase/claim", json=body, headers=headers)
        assert response.status_code == status
        assert response.mimetype == "application/problem+json"
        assert (await response.get_json())["code"] == code
        assert t.table.phase is TablePhase.OPEN, "a refused claim changes nothing"


async def test_unsupported_media_and_oversized_bodies(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        key = {"Idempotency-Key": str(uuid.uuid4())}
        form = await t.client.post("/showcase/claim", data="guestId=x", headers={**key, "Content-Type": "text/plain"})
        assert form.status_code == 415 and (await form.get_json())["code"] == "malformed_request"
        big = await t.client.post("/showcase/claim", json={"clientEntropy": "x" * 5000}, headers=key)
        assert big.status_code == 413 and (await big.get_json())["code"] == "request_too_large"
        # a method the path does not take: still a problem, as the family answers
        wrong = await t.client.get("/showcase/claim")
        assert wrong.status_code == 405 and wrong.mimetype == "application/problem+json"
        assert (await wrong.get_json())["code"] == "method_not_allowed"


async def test_claims_are_rate_limited_per_actor(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        guest = str(uuid.uuid4())
        answers = [await t.claim(guest) for _ in range(11)]
        assert [status for status, _, _ in answers[:10]] == [200] * 10
        status, problem, headers = answers[10]
        assert status == 429 and problem["code"] == "rate_limited" and int(headers["Retry-After"]) >= 1


async def test_the_session_path_needs_the_origin_and_csrf_header(migrated_url, receiver, pg_cluster):
    overrides = dict(SIGN_IN, cors_origins=(ORIGIN,))
    account, cookie = signed_in(migrated_url)
    async with table_at(migrated_url, receiver, **overrides) as t:
        key = str(uuid.uuid4())
        refused = await t.client.post(
            "/showcase/claim", json={}, headers={"Idempotency-Key": key, "Cookie": cookie, "Origin": "https://evil.example", "X-Game-CSRF": "1"}
        )
        assert refused.status_code == 403 and (await refused.get_json())["code"] == "csrf_origin_rejected"
        no_csrf = await t.client.post("/showcase/claim", json={}, headers={"Idempotency-Key": key, "Cookie": cookie, "Origin": ORIGIN})
        assert no_csrf.status_code == 403
        won = await t.client.post(
            "/showcase/claim", json={}, headers={"Idempotency-Key": key, "Cookie": cookie, "Origin": ORIGIN, "X-Game-CSRF": "1"}
        )
        body = await won.get_json()
        assert won.status_code == 200 and body["outcome"] == "claimed" and "guest=" not in body["wsUrl"]
        room = t.services.registry.get(body["gameId"])
        assert room.game.seats[body["seat"]].principal == account.principal
        # the session cannot be read (the database does not answer): the table's own 503
        with frozen(pg_cluster):
            down = await t.client.post("/showcase/claim", json={}, headers={
                "Idempotency-Key": str(uuid.uuid4()), "Cookie": cookie, "Origin": ORIGIN, "X-Game-CSRF": "1"})
        assert down.status_code == 503 and down.mimetype == "application/problem+json"
        assert (await down.get_json())["code"] == "showcase_unavailable" and down.headers["Retry-After"]


# ----- readiness and recovery -------------------------------------------------------------------


async def test_a_dead_bot_closes_the_table_and_its_return_reopens_it(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        receiver.script = lambda seen: Reply(503, b"down") if seen.kind == "verification" else None
        assert await t.table.reconcile() is TablePhase.UNAVAILABLE
        _, body = await t.status()
        assert body == {**body, "status": "unavailable", "reason": "bot_unavailable"}
        receiver.script = lambda seen: None
        assert await t.table.reconcile() is TablePhase.OPEN


async def test_the_readiness_loop_reconciles_every_period(migrated_url, receiver, monkeypatch):
    monkeypatch.setattr("playsite.showcase.table.READINESS_PERIOD_S", 0.2)
    async with table_at(migrated_url, receiver) as t:
        receiver.script = lambda seen: Reply(503, b"down") if seen.kind == "verification" else None
        await wait_until(lambda: t.table.phase is TablePhase.UNAVAILABLE, timeout=10, what="the loop closes the table")
        receiver.script = lambda seen: None
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, timeout=10, what="the loop reopens the table")


async def pointer_left_by_a_crash(url, receiver) -> str:
    """A showcase game played and ended, its pointer left set as if the process died between
    the terminal commit and the clear; its id."""
    async with table_at(url, receiver) as t:
        _, body, _ = await t.claim(str(uuid.uuid4()))
        await end_game(t, body["gameId"])
    sql(url, "UPDATE showcase_table SET current_game = %s", (body["gameId"],))
    return body["gameId"]


async def test_a_pointer_left_by_a_crash_is_repaired_at_boot(migrated_url, receiver):
    await pointer_left_by_a_crash(migrated_url, receiver)
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN
        assert sql(migrated_url, "SELECT current_game FROM showcase_table") == [(None,)]


async def test_a_store_that_refuses_the_repair_keeps_the_table_unavailable_and_the_server_up(migrated_url, receiver):
    await pointer_left_by_a_crash(migrated_url, receiver)
    # A store that refuses the write (not an outage: a trigger, a read-only standby, a constraint).
    refuse_writes(migrated_url, "showcase_table", "UPDATE")
    try:
        async with table_at(migrated_url, receiver) as t:
            assert t.table.phase is TablePhase.UNAVAILABLE and t.table.reason == "maintenance"
            status, spectate, _ = await t.claim(str(uuid.uuid4()))
            assert status == 503, spectate
    finally:
        allow_writes(migrated_url, "showcase_table")
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN, "repaired once the store takes the write"


async def test_a_game_whose_claim_never_committed_is_adopted_and_the_colour_advanced(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        _, body, _ = await t.claim(str(uuid.uuid4()))
        game_id = body["gameId"]
    # As if the process died after the creation snapshot and before the claim's transaction.
    sql(migrated_url, "UPDATE showcase_table SET current_game = NULL, next_human_color = 'White'")
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.LIVE and t.table.current_game == game_id
        assert sql(migrated_url, "SELECT next_human_color, current_game::text FROM showcase_table") == [("Black", game_id)]
        status, spectate, _ = await t.claim(str(uuid.uuid4()))
        assert spectate["outcome"] == "spectating" and spectate["gameId"] == game_id


async def test_two_active_showcase_games_keep_the_table_closed(migrated_url, receiver, caplog):
    async with table_at(migrated_url, receiver) as t:
        await t.claim(str(uuid.uuid4()))
        bot = t.services.bots.get(FEATURED)
        second = await t.services.bot_games.start(
            white=bot, black=__import__("playsite.bots.games", fromlist=["Human"]).Human(f"guest:{uuid.uuid4()}"),
            time_control=Fischer(300, 3), rated=False, origin="showcase",
        )
        t.table.phase = TablePhase.UNAVAILABLE
        with caplog.at_level("ERROR", logger="playsite.showcase"):
            assert await t.table.reconcile() is TablePhase.UNAVAILABLE
        assert "ALERT showcase: 2 active showcase games" in caplog.text
        assert second.room.game_id in caplog.text


async def test_a_stalled_live_game_makes_the_table_answer_unavailable(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        _, body, _ = await t.claim(str(uuid.uuid4()))
        room = t.services.registry.get(body["gameId"])
        human = next(s for s, state in room.game.seats.items() if state.principal.startswith("guest:"))
        # The claim answers before the room's next writes (its roll, the bot's turn) commit; such
        # a commit clears the flag set here, as a recovered stall does. Once the human's dice are
        # rolled and committed, nothing is written until the human plays.
        await wait_until(lambda: room.turn.awaits_turn_from(human) and room.published.version == room.version,
                         "the room to wait for the human's turn", 10)
        room.persistence_stalled = True
        try:
            _, status = await t.status()
            assert status["status"] == "unavailable" and status["reason"] == "maintenance"
        finally:
            room.persistence_stalled = False
        with deadline(5, "status"):
            _, status = await t.status()
        assert status["status"] == "live"


async def test_a_database_outage_closes_the_table_and_its_end_reopens_it(migrated_url, receiver, pg_cluster):
    async with table_at(migrated_url, receiver) as t:
        with frozen(pg_cluster):
            assert await t.table.reconcile() is TablePhase.UNAVAILABLE
            _, body = await t.status()
            assert body["status"] == "unavailable" and body["reason"] == "maintenance"
            status, problem, _ = await t.claim(str(uuid.uuid4()))
            assert status == 503 and problem["code"] == "showcase_unavailable"
        with deadline(30, "the table reopens once the database answers"):
            while await t.table.reconcile() is not TablePhase.OPEN:
                await trio.sleep(0.2)


# ----- claims under failures (issue 31: X1-X3, P5, P13) ----------------------------------------


async def test_a_claim_transaction_refused_by_the_database_aborts_the_game_answers_503_and_advances_the_colour(
    migrated_url, receiver
):
    sql(migrated_url, "CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS"
                      " $$ BEGIN RAISE EXCEPTION 'claims refused by a trigger'; END $$")
    sql(migrated_url, "CREATE TRIGGER refuse_claims BEFORE INSERT ON showcase_claims FOR EACH ROW EXECUTE FUNCTION refuse_claims()")
    async with table_at(migrated_url, receiver, dice_seed_window_ms=2000) as t:
        status, problem, _ = await t.claim(str(uuid.uuid4()), clientEntropy="entropy of a claim that never committed")
        assert status == 503 and problem["code"] == "showcase_unavailable"
        [(game_id,)] = sql(migrated_url, "SELECT id::text FROM games WHERE origin = 'showcase'")
        await archived_as_technical_abort(migrated_url, game_id)
        seeds = "SELECT record -> 'fairness' -> 'clientSeeds' FROM game_archive WHERE game_id = %s"
        assert sql(migrated_url, seeds, (game_id,)) == [({"white": "", "black": ""},)], "entropy goes only to a committed claim's game"
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen once the game ended", 20)
        assert t.services.registry.live == {} or game_id not in t.services.registry.live
        sql(migrated_url, "DROP TRIGGER refuse_claims ON showcase_claims")
        status, won, _ = await t.claim(str(uuid.uuid4()))
        assert status == 200 and won["outcome"] == "claimed"
        assert won["seat"] == "Black", "the failed claim's durable creation took White: the colour moved on"
        assert sql(migrated_url, "SELECT next_human_color FROM showcase_table") == [("White",)]


async def test_with_the_memory_store_a_claim_is_503_not_500(receiver):
    settings = Settings(showcase_enabled=True, showcase_bot=FEATURED, webhook_push_enabled=True)
    async with booted(settings) as services:
        response = await test_client(services).post(
            "/showcase/claim", json={"guestId": str(uuid.uuid4())}, headers={"Idempotency-Key": str(uuid.uuid4())}
        )
        assert response.status_code == 503
        assert (await response.get_json())["code"] == "showcase_unavailable"


async def test_a_losing_claim_is_recorded_its_key_conflicts_and_replays_spectating_after_the_table_reopens(
    migrated_url, receiver
):
    async with table_at(migrated_url, receiver) as t:
        _, won, _ = await t.claim(str(uuid.uuid4()))
        game_id = won["gameId"]
        loser, key = str(uuid.uuid4()), str(uuid.uuid4())
        status, lost, _ = await t.claim(loser, key, clientEntropy="the loser's own entropy")
        assert status == 200 and lost["outcome"] == "spectating" and lost["gameId"] == game_id
        status, conflict, _ = await t.claim(loser, key, clientEntropy="another entropy, same key")
        assert status == 409 and conflict["code"] == "idempotency_conflict"
        await end_game(t, game_id)
        status, replayed, _ = await t.claim(loser, key, clientEntropy="the loser's own entropy")
        assert status == 200 and replayed["outcome"] == "spectating" and replayed["gameId"] == game_id
        assert replayed["reason"] == "game_ended"
        assert sql(migrated_url, "SELECT count(*) FROM games WHERE origin = 'showcase'") == [(1,)], "no new game"
        assert t.table.phase is TablePhase.OPEN


async def test_an_ended_game_is_finishing_while_its_terminal_write_is_pending_and_unavailable_once_stalled(
    migrated_url, receiver, pg_cluster
):
    async with table_at(migrated_url, receiver) as t:
        _, won, _ = await t.claim(str(uuid.uuid4()))
        room = t.services.registry.get(won["gameId"])
        seat = next(s for s, state in room.game.seats.items() if state.principal.startswith("guest:"))
        # The claim answers before the room's next write (its roll) commits: freezing the
        # database under that write would hold the resignation behind it.
        stored = lambda: sql(migrated_url, "SELECT version FROM games WHERE id = %s", (won["gameId"],))  # noqa: E731
        await wait_until(lambda: stored() == [(room.version,)], "the room's writes to commit before the freeze", 10)
        with frozen(pg_cluster):
            await room.send(PlayerCommand(seat, Resign()))
            await wait_until(lambda: room.ended, "the room to end the game in memory", 10)
            assert not room.completed, "the terminal write cannot have committed while frozen"
            _, body = await t.status()
            assert body["status"] == "finishing" and body["currentGame"] == won["gameId"]
            room.persistence_stalled = True  # as the room sets it once its terminal write failed 15 s
            _, body = await t.status()
            assert body["status"] == "unavailable" and body["reason"] == "maintenance"
            room.persistence_stalled = False
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen after the commit", 30)


async def test_a_claim_while_an_ended_games_last_write_is_stalled_is_told_the_game_ended(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        _, won, _ = await t.claim(str(uuid.uuid4()))
        room = t.services.registry.get(won["gameId"])
        seat = next(s for s, state in room.game.seats.items() if state.principal.startswith("guest:"))
        refuse_writes(migrated_url, "game_archive", "INSERT")  # the terminal write fails; the database answers
        try:
            await room.send(PlayerCommand(seat, Resign()))
            await wait_until(lambda: room.ended, "the room to end the game in memory", 10)
            assert not room.completed
            room.persistence_stalled = True  # as the room sets it once its terminal write failed 15 s
            _, body = await t.status()
            assert body["status"] == "unavailable"
            status, lost, _ = await t.claim(str(uuid.uuid4()))
            assert status == 200 and lost["outcome"] == "spectating"
            assert lost["reason"] == "game_ended" and lost["gameId"] == won["gameId"]
            room.persistence_stalled = False
        finally:
            allow_writes(migrated_url, "game_archive")
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen once the ending commits", 30)


async def test_the_table_stays_unavailable_while_its_current_game_is_active_but_not_resumed(migrated_url, receiver):
    async with table_at(migrated_url, receiver) as t:
        assert t.table.phase is TablePhase.OPEN
        stray = str(uuid.uuid4())
        sql(migrated_url, "INSERT INTO games (id, origin, durability, status, version, snapshot)"
                          " VALUES (%s, 'showcase', 'required', 'active', 3, '{}')", (stray,))
        sql(migrated_url, "UPDATE showcase_table SET current_game = %s", (stray,))
        assert await t.table.reconcile() is TablePhase.UNAVAILABLE
        _, body = await t.status()
        assert body["status"] == "unavailable" and body["reason"] == "maintenance"
        status, problem, _ = await t.claim(str(uuid.uuid4()))
        assert status == 503 and problem["code"] == "showcase_unavailable"  # no game here to watch, none to win
        sql(migrated_url, "UPDATE games SET status = 'ended' WHERE id = %s", (stray,))
        sql(migrated_url, "INSERT INTO game_archive (game_id, finished_at, record) VALUES (%s, now(), '{}')", (stray,))
        assert await t.table.reconcile() is TablePhase.OPEN


async def test_the_winners_seat_token_is_sealed_at_rest_and_the_rightful_retry_still_gets_it(migrated_url, receiver):
    async with table_at(migrated_url, receiver, secrets_key="5e" * 32) as t:
        guest, key = str(uuid.uuid4()), str(uuid.uuid4())
        _, won, _ = await t.claim(guest, key)
        [(stored,)] = sql(migrated_url, "SELECT seat_token FROM showcase_claims WHERE seat IS NOT NULL")
        assert stored.startswith("sealed1:") and won["seatToken"] not in stored
        _, again, _ = await t.claim(guest, key)
        assert again == won
        # Copied to another claim's row, the sealed value does not open there: that retry is refused, not served.
        other = str(uuid.uuid4())
        sql(migrated_url, "INSERT INTO showcase_claims (actor, idempotency_key, fingerprint, game_id, seat, seat_token)"
                          " SELECT actor, %s, fingerprint, game_id, seat, seat_token FROM showcase_claims"
                          " WHERE seat IS NOT NULL", (other,))
        status, problem, _ = await t.claim(guest, other)
        assert status == 503 and problem["code"] == "showcase_unavailable"


async def test_a_resumed_game_already_ended_with_its_ending_still_being_written_reconciles_to_finishing(
    migrated_url, receiver
):
    async with table_at(migrated_url, receiver) as t:
        _, won, _ = await t.claim(str(uuid.uuid4()))
    game_id = won["gameId"]
    created_earlier(migrated_url, game_id, 31)  # resumed past its claim deadline: it ends at once
    sql(migrated_url, "CREATE FUNCTION refuse_archive() RETURNS trigger LANGUAGE plpgsql AS"
                      " $$ BEGIN RAISE EXCEPTION 'archive refused by a trigger'; END $$")
    sql(migrated_url, "CREATE TRIGGER refuse_archive BEFORE INSERT ON game_archive FOR EACH ROW EXECUTE FUNCTION refuse_archive()")
    async with table_at(migrated_url, receiver) as t:
        room = t.services.registry.get(game_id)
        await wait_until(lambda: room.ended, "the resumed game to end", 10)
        assert not room.completed
        t.table.phase = TablePhase.UNAVAILABLE
        assert await t.table.reconcile() is TablePhase.FINISHING
        _, body = await t.status()
        assert body["status"] == "finishing" and body["currentGame"] == game_id
        sql(migrated_url, "DROP TRIGGER refuse_archive ON game_archive")
        await wait_until(lambda: t.table.phase is TablePhase.OPEN, "the table to reopen once the ending commits", 20)
