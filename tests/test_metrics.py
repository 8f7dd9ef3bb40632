"""GET /metrics (Prometheus text, behind PLAY_METRICS_TOKEN) and the collector's watch."""

from __future__ import annotations

import contextlib
import gc
import random
import re
import weakref

import pytest
import trio
import trio.testing
from prometheus_client.parser import text_string_to_metric_families

from playsite.config import Settings
from playsite.gcwatch import GEN0_THRESHOLD, YOUNG_PERIOD_S, GcWatch, run_gc_watch
from playsite.rooms.intents import Rebind
from playsite.wire import WHITE, Fischer, Resign, SubmitTurn
from tests.support.app import booted, friend_game, test_client
from tests.support.database import migrated_url  # noqa: F401 (fixture)
from tests.support.rooms import attach, command, sparing_turn
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

        created = await friend_game(services, Fischer(300, 3))
        room = created.room


        for seat, who in ((WHITE, "guest:00000000-0000-4000-8000-000000000001"), ("Black", "guest:00000000-0000-4000-8000-000000000002")):
            rebind = Rebind(seat, who, None)
            assert await room.send(rebind) and await rebind.reply.wait()
        subscribers = [await attach(room, seat) for seat in (WHITE, "Black")]
        await attach(room, None)
        rng = random.Random(2)
        played = 0
        while played < 3:
            await wait_until(lambda: room.game.tree, "a roll with moves")
            verdict = await command(room, room.game.active_seat, SubmitTurn(sparing_turn(room, rng)))
            assert verdict.applied
            played += 1
        await command(room, WHITE, Resign())
        answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200 and answer.content_type.startswith("text/plain")
        text = await answer.get_data(as_text=True)
        found = samples(text)
        # each family's HELP and TYPE once (ops review s74: the collector's pauses had one a generation)
        kinds = re.findall(r"^# TYPE (\S+) ", text, re.M)
        assert len(kinds) == len(set(kinds)), sorted(k for k in kinds if kinds.count(k) > 1)
        assert found[("playsite_turns_total", ())] == 3
        assert found[("playsite_games_ended_total", ())] == 1
        assert found[("playsite_turn_verdict_seconds_count", ())] == 4  # three turns and the resignation
        assert found[("playsite_tree_wait_seconds_count", ())] == room.game.ply >= 4  # every roll waited for its tree
        assert found[("playsite_events_delivered_total", ())] > 0
        assert ("playsite_gc_pause_seconds_count", (("generation", "2"),)) in found
        assert ("process_resident_memory_bytes", ()) in found
        assert ("playsite_gc_full_collections_total", ()) in found
        assert found[("playsite_heap_trim_seconds_count", ())] == 0, "no trim before the port opens"
        assert ("playsite_heap_trimmed_bytes_total", ()) in found
        assert ("playsite_database_wait_seconds_count", ()) not in found, "no database behind the memory store"
        del subscribers


DATABASE_PARTS = ("wait", "transaction", "return")


@pytest.mark.postgres
async def test_on_postgresql_every_database_call_is_timed_in_three_parts(migrated_url):
    settings = Settings(database_url=migrated_url, persistence_enabled=True, metrics_token=TOKEN, dice_seed_window_ms=0)
    async with booted(settings) as services:
        client = test_client(services)

        async def scraped() -> dict[tuple[str, tuple], float]:
            answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            return samples(await answer.get_data(as_text=True))

        before = await scraped()
        await friend_game(services, Fischer(300, 3))  # its creation is written before it is answered
        after = await scraped()
        for part in DATABASE_PARTS:
            name = f"playsite_database_{part}_seconds"
            assert after[(f"{name}_count", ())] > before[(f"{name}_count", ())], part
            assert after[(f"{name}_bucket", (("le", "+Inf"),))] == after[(f"{name}_count", ())]
        counts = {after[(f"playsite_database_{part}_seconds_count", ())] for part in DATABASE_PARTS}
        assert len(counts) == 1, "each call that returned is timed in all three parts"


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


class Node:
    """A weakly referenceable object to build cycles with."""

    def __init__(self):
        self.other = self


@contextlib.contextmanager
def tuned_watch():
    """A watch that tuned this process's collector; everything is put back afterwards."""
    before = gc.get_threshold()
    watch = GcWatch()
    watch.install()
    try:
        watch.tune()
        yield watch
    finally:
        watch.remove()
        gc.unfreeze()
        gc.set_threshold(*before)


def in_a_generation(target) -> bool:
    return any(any(o is target for o in gc.get_objects(generation)) for generation in range(3))


def test_tuning_freezes_what_exists_and_raises_the_young_threshold():
    with tuned_watch():
        assert gc.get_threshold()[0] == GEN0_THRESHOLD and gc.get_freeze_count() > 0


def test_once_tuned_the_survivors_of_a_young_collection_are_frozen():
    with tuned_watch() as watch:
        survivor = Node()
        assert in_a_generation(survivor)
        frozen = gc.get_freeze_count()
        gc.collect(0)
        assert not in_a_generation(survivor), "a survivor stayed where young collections walk it"
        assert gc.get_freeze_count() > frozen and watch.pauses[0].count >= 1


def test_a_frozen_cycle_waits_for_the_full_collection():
    with tuned_watch() as watch:
        node = Node()
        gc.collect(0)  # survives: frozen
        gone = weakref.ref(node)
        del node
        gc.collect(0)
        gc.collect(2)
        assert gone() is not None, "an automatic collection walked the permanent generation"
        assert watch.collect_everything() >= 1
        assert gone() is None and watch.full_collections == 1
        assert gc.get_freeze_count() > 0, "what survived the full collection is frozen again"


async def test_once_tuned_the_watch_collects_the_young_often_and_everything_every_interval(autojump_clock):
    before = gc.get_threshold()
    async with trio.open_nursery() as nursery:
        watch = await nursery.start(run_gc_watch, 60)
        try:
            await trio.sleep(61)
            assert watch.full_collections == 0, "an untuned process keeps Python's own schedule"
            assert watch.pauses[0].count == 0
            watch.tune()
            await trio.sleep(YOUNG_PERIOD_S * 10)
            assert 9 <= watch.pauses[0].count <= 11, "young collections are not on the watch's period"
            await trio.sleep(60 - YOUNG_PERIOD_S * 10)
            await trio.testing.wait_all_tasks_blocked()
            assert watch.full_collections == 1
            await trio.sleep(60)
            await trio.testing.wait_all_tasks_blocked()
            assert watch.full_collections == 2 and watch.pauses[2].count >= 2
        finally:
            nursery.cancel_scope.cancel()
            gc.unfreeze()
            gc.set_threshold(*before)
    assert watch._on_gc not in gc.callbacks
