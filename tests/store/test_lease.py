"""The serving lease is given back at once when its holder stops: the next process (or the
demo's real boot after its private first-run boot, in the same process) takes it at once.

Closing the lease's connection alone left the release to the server's backend as it exited,
after the client had gone on: CI (session 61) saw the demo's real boot refused with "another
playsite process is serving this database" by the lease its own first-run boot had just closed.
"""

from __future__ import annotations

import pytest

from playsite.store.lease import ServingLease

pytestmark = pytest.mark.postgres

ROUNDS = 300


async def test_a_closed_lease_is_free_for_the_next_holder_at_once(database_url):
    for round_ in range(ROUNDS):
        holder = ServingLease(database_url)
        await holder.take()
        assert holder.held
        await holder.close()
        assert not holder.held
        successor = ServingLease(database_url)
        assert successor._take(), f"round {round_}: the lease closed a moment ago was still held"
        await successor.close()
