"""Who may claim the showcase table, and how often: the per-address limit (service.md Errors,
429 `rate_limited` "per IP or per actor") and the guest path a deployment without a
`PLAY_CORS_ORIGINS` allow-list falls back to (service.md, claim rule 5). Real PostgreSQL.
"""

from __future__ import annotations

import uuid

import pytest

from playsite.showcase.routes import CLAIMS_PER_ACTOR_PER_MINUTE, CLAIMS_PER_ADDRESS_PER_MINUTE
from tests.support.database import migrated_url, sql  # noqa: F401 (a fixture)
from tests.support.showcase import ORIGIN, SIGN_IN, receiver, signed_in, table_at  # noqa: F401 (receiver: a fixture)

pytestmark = pytest.mark.postgres


async def test_one_address_is_limited_whatever_guest_ids_it_sends(migrated_url, receiver):
    assert CLAIMS_PER_ADDRESS_PER_MINUTE > CLAIMS_PER_ACTOR_PER_MINUTE  # distinct guests: only the address limit binds
    async with table_at(migrated_url, receiver) as t:
        answers = [await t.claim(str(uuid.uuid4())) for _ in range(CLAIMS_PER_ADDRESS_PER_MINUTE + 1)]
        assert [status for status, _, _ in answers] == [200] * CLAIMS_PER_ADDRESS_PER_MINUTE + [429]
        assert [body["outcome"] for _, body, _ in answers[:-1]].count("claimed") == 1
        status, problem, headers = answers[-1]
        assert problem["code"] == "rate_limited" and 1 <= int(headers["Retry-After"]) <= 60
        assert sql(migrated_url, "SELECT count(*) FROM showcase_claims") == [(CLAIMS_PER_ADDRESS_PER_MINUTE,)], (
            "the refused claim reached the table"
        )


async def test_without_an_allow_list_the_session_is_ignored_and_visitors_claim_as_guests(migrated_url, receiver):
    account, cookie = signed_in(migrated_url)
    async with table_at(migrated_url, receiver, **SIGN_IN, cors_origins=()) as t:
        assert t.services.settings.accounts_enabled, "sign-in works: only the allow-list is missing"
        browser = {"Cookie": cookie, "Origin": ORIGIN, "X-Game-CSRF": "1"}
        alone = await t.client.post("/showcase/claim", json={}, headers={**browser, "Idempotency-Key": str(uuid.uuid4())})
        assert alone.status_code == 400 and (await alone.get_json())["code"] == "guest_required"
        guest = str(uuid.uuid4())
        won = await t.client.post(
            "/showcase/claim", json={"guestId": guest}, headers={**browser, "Idempotency-Key": str(uuid.uuid4())}
        )
        body = await won.get_json()
        assert won.status_code == 200 and body["outcome"] == "claimed", body
        assert body["wsUrl"].endswith(f"&guest={guest}")
        room = t.services.registry.get(body["gameId"])
        assert room.game.seats[body["seat"]].principal == f"guest:{guest}" != account.principal
        assert sql(migrated_url, "SELECT actor FROM showcase_claims") == [(f"guest:{guest}",)]
