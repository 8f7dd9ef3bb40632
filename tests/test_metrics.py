"""GET /metrics (Prometheus text, behind PLAY_METRICS_TOKEN) and the collector's watch."""

from __future__ import annotations

import gc
import random

from prometheus_client.parser import text_string_to_metric_families

from playsite.config import Settings
from playsite.games.creation import create_human_game
from playsite.gcwatch import GEN0_THRESHOLD, GcWatch, tune_after_boot
from playsite.rooms.intents import Rebind
from playsite.wire import WHITE, Fischer, Resign, SubmitTurn
from tests.rooms.harness import attach, command, sparing_turn
from tests.support.app import booted, test_client
from tests.support.waiting import wait_until

TOKEN = "metrics-token-for-tests"


def samples(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def test_metrics_need_the_token_and_count_what_the_rooms_did():
    async with booted(Settings(metrics_token=TOKEN, dice_seed_window_ms=0)) as services:
        client = test_client(services)
        refused = await client.get("/metrics")
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
        assert (await client.get("/metrics", headers={"Authorization": "Bearer wrong"})).status_code == 401

        created = await create_human_game(services.registry, Fischer(300, 3), rated=False, seed_window_s=0, durability="best_effort")
        room = created.room


        for seat, who in ((WHITE, "guest:00000000-0000-4000-8000-000000000001"), ("Black", "guest:00000000-0000-4000-8000-000000000002")):
            rebind = Rebind(seat, who, None)
            assert await room.send(rebind) and await rebind.reply.wait()
        subscribers = [await attach(room, seat) for seat in (WHITE, "Black")]
        await attach(room, None)
        rng = random.Random(2)
        played = 0
        while played < 3:
            await wait_until(lambda: room.tree, "a roll with moves")
            verdict = await command(room, room.active_seat, SubmitTurn(sparing_turn(room, rng)))
            assert verdict.applied
            played += 1
        await command(room, WHITE, Resign())
        answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200 and answer.content_type.startswith("text/plain")
        found = samples(await answer.get_data(as_text=True))
        assert found[("playsite_turns_total", ())] == 3
        assert found[("playsite_games_ended_total", ())] == 1
        assert found[("playsite_turn_verdict_seconds_count", ())] == 4  # three turns and the resignation
        assert found[("playsite_events_delivered_total", ())] > 0
        assert ("playsite_gc_pause_seconds_count", (("generation", "2"),)) in found
        assert ("process_resident_memory_bytes", ()) in found
        del subscribers


async def test_without_the_setting_there_is_no_metrics_route():
    async with booted() as services:
        assert (await test_client(services).get("/metrics")).status_code == 404


def test_the_watch_times_every_collection_while_installed():
    watch = GcWatch()
    watch.install()
    try:
        gc.collect()
        assert watch.pauses[2].count == 1 and watch.seconds > 0
    finally:
        watch.remove()
    gc.collect()
    assert watch.pauses[2].count == 1  # removed: no longer called


def test_tuning_freezes_what_exists_and_raises_the_young_threshold():
    before = gc.get_threshold()
    try:
        tune_after_boot()
        assert gc.get_threshold()[0] == GEN0_THRESHOLD and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
