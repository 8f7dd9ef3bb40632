"""Admission: atomic capacity checks per purpose, 5 s leases, release exactly once."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from playsite.rooms.admission import ADMISSION_LEASE_S, Admission, AdmissionRefused, Limits, Purpose
from tests.support.rooms import room_setup, running_registry

FEATURED = "bot:featured"
SMALL = "bot:small"


def limits_of(participant: str) -> Limits | None:
    return {FEATURED: Limits.featured_bot(), SMALL: Limits.bot(2)}.get(participant)


async def test_humans_are_unbounded(autojump_clock):
    admission = Admission(limits_of)
    held = [admission.reserve(Purpose.GENERAL, ["guest:a"]) for _ in range(50)]
    assert len(held) == 50


async def test_per_bot_capacity_max_concurrent_games(autojump_clock):
    admission = Admission(limits_of)
    admission.reserve(Purpose.GENERAL, [SMALL, "guest:a"]).commit()
    admission.reserve(Purpose.GENERAL, [SMALL, "guest:b"])
    with pytest.raises(AdmissionRefused) as refused:
        admission.reserve(Purpose.GENERAL, [SMALL, "guest:c"])
    assert refused.value.participant == SMALL


async def test_featured_bot_general_paths_never_borrow_the_reserved_seat(autojump_clock):
    admission = Admission(limits_of)
    admission.reserve(Purpose.GENERAL, [FEATURED]).commit()
    admission.reserve(Purpose.GENERAL, [FEATURED]).commit()
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.GENERAL, [FEATURED])  # showcase idle, still refused
    showcase = admission.reserve(Purpose.SHOWCASE, [FEATURED])
    showcase.commit()
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.SHOWCASE, [FEATURED])
    assert admission.occupancy(FEATURED) == {Purpose.GENERAL: 2, Purpose.SHOWCASE: 1}


async def test_ordinary_bots_have_no_showcase_capacity(autojump_clock):
    with pytest.raises(AdmissionRefused):
        Admission(limits_of).reserve(Purpose.SHOWCASE, [SMALL])


async def test_provisional_reservation_lease_lapses_after_5_seconds(autojump_clock):
    admission = Admission(limits_of)
    admission.reserve(Purpose.SHOWCASE, [FEATURED])
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.SHOWCASE, [FEATURED])
    await trio.sleep(ADMISSION_LEASE_S)
    admission.reserve(Purpose.SHOWCASE, [FEATURED])  # the lapsed lease no longer holds


async def test_a_lapsed_lease_commits_only_if_its_place_is_still_free(autojump_clock):
    admission = Admission(limits_of)
    slow = admission.reserve(Purpose.SHOWCASE, [FEATURED])
    await trio.sleep(ADMISSION_LEASE_S + 1)
    admission.reserve(Purpose.SHOWCASE, [FEATURED]).commit()
    with pytest.raises(AdmissionRefused):
        slow.commit()
    lonely = Admission(limits_of).reserve(Purpose.SHOWCASE, [FEATURED])
    await trio.sleep(ADMISSION_LEASE_S + 1)
    lonely.commit()
    assert lonely.active


async def test_release_happens_exactly_once(autojump_clock):
    admission = Admission(limits_of)
    reservation = admission.reserve(Purpose.GENERAL, [SMALL])
    reservation.commit()
    assert reservation.release() is True
    assert reservation.release() is False
    assert admission.occupancy(SMALL)[Purpose.GENERAL] == 0


async def test_reducing_capacity_blocks_new_games_but_ends_none(autojump_clock):
    declared = {"n": 3}
    admission = Admission(lambda p: Limits.bot(declared["n"]) if p == SMALL else None)
    held = [admission.reserve(Purpose.GENERAL, [SMALL]) for _ in range(3)]
    for reservation in held:
        reservation.commit()
    declared["n"] = 1
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.GENERAL, [SMALL])
    assert all(r.active for r in held)
    held[0].release()
    held[1].release()
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.GENERAL, [SMALL])  # still at the new limit of 1
    held[2].release()
    admission.reserve(Purpose.GENERAL, [SMALL])


async def test_restored_admissions_count_at_boot(autojump_clock):
    admission = Admission(limits_of)
    admission.restore(Purpose.SHOWCASE, [FEATURED])
    admission.restore(Purpose.GENERAL, [FEATURED])
    assert admission.occupancy(FEATURED) == {Purpose.GENERAL: 1, Purpose.SHOWCASE: 1}
    with pytest.raises(AdmissionRefused):
        admission.reserve(Purpose.SHOWCASE, [FEATURED])


async def test_registry_releases_admission_when_the_game_ends(autojump_clock):
    async with running_registry(limits_of=limits_of) as registry:
        room = await registry.create(room_setup(), Purpose.GENERAL, [SMALL])
        await registry.create(room_setup(), Purpose.GENERAL, [SMALL])
        with pytest.raises(AdmissionRefused):
            await registry.create(room_setup(), Purpose.GENERAL, [SMALL])
        from playsite.rooms.intents import Abort

        await room.send(Abort("test"))
        await room.finished.wait()
        await trio.testing.wait_all_tasks_blocked()
        assert registry.admission.occupancy(SMALL)[Purpose.GENERAL] == 1
        await registry.create(room_setup(), Purpose.GENERAL, [SMALL])


async def test_failed_room_creation_releases_the_reservation(autojump_clock):
    async with running_registry(seeds=[], limits_of=limits_of) as registry:  # no seed to draw: creation fails
        with pytest.raises(Exception):
            await registry.create(room_setup(), Purpose.GENERAL, [SMALL])
        assert registry.admission.occupancy(SMALL)[Purpose.GENERAL] == 0


async def test_cancelled_creation_releases_the_reservation(autojump_clock):
    async with running_registry(limits_of=limits_of) as registry:
        with trio.CancelScope() as scope:
            scope.cancel()
            await registry.create(room_setup(), Purpose.GENERAL, [SMALL])
        assert registry.admission.occupancy(SMALL)[Purpose.GENERAL] == 0
        assert not registry.live
