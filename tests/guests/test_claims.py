"""Guest claims in PostgreSQL: first claim wins under a race, the bound per account holds."""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest

from playsite.accounts import queries as store
from playsite.guests import claims
from tests.support.database import in_transaction, migrated_url  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres
ISSUER = "https://id.example"


def account(url: str, subject: str) -> uuid.UUID:
    return in_transaction(url, lambda c: store.sign_in(c, ISSUER, subject, {})).id


def test_two_accounts_racing_for_one_guest_id_one_wins_and_the_other_is_told(migrated_url):
    racers = [account(migrated_url, f"racer-{n}") for n in range(8)]
    guest_id = str(uuid.uuid4())
    start, outcomes = threading.Barrier(len(racers)), {}

    def race(account_id: uuid.UUID) -> None:
        start.wait()
        try:
            outcomes[account_id] = in_transaction(migrated_url, lambda c: claims.claim_guest(c, account_id, guest_id))
        except claims.ClaimedByAnother:
            outcomes[account_id] = "claimed by another"
        except psycopg.errors.UniqueViolation:  # never: the insert yields on conflict
            outcomes[account_id] = "unique violation"

    threads = [threading.Thread(target=race, args=(racer,)) for racer in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [racer for racer, outcome in outcomes.items() if outcome == [guest_id]]
    assert len(winners) == 1 and len(outcomes) == len(racers)
    assert all(outcome == "claimed by another" for racer, outcome in outcomes.items() if racer not in winners)
    owner = in_transaction(migrated_url, lambda c: c.execute("SELECT account_id FROM guest_claims WHERE guest_id = %s", (guest_id,)).fetchone())
    assert owner == (winners[0],)


def test_an_account_claims_at_most_the_bound(migrated_url):
    holder = account(migrated_url, "collector")
    ids = [str(uuid.uuid4()) for _ in range(claims.MAX_CLAIMS_PER_ACCOUNT)]

    def claim_all(conn):
        for guest_id in ids:
            claims.claim_guest(conn, holder, guest_id)

    in_transaction(migrated_url, claim_all)
    with pytest.raises(claims.TooManyClaims):
        in_transaction(migrated_url, lambda c: claims.claim_guest(c, holder, str(uuid.uuid4())))
    again = in_transaction(migrated_url, lambda c: claims.claim_guest(c, holder, ids[0]))
    assert len(again) == claims.MAX_CLAIMS_PER_ACCOUNT, "one already held is still answered at the bound"
