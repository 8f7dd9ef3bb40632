"""Accounts in PostgreSQL: first sign-in, nicknames, sign-out everywhere, deactivation, deletion."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid

import pytest

from playsite.accounts import queries
from playsite.accounts.queries import NicknameReserved, NicknameTaken
from tests.support.database import in_transaction, migrated_url  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres
ISSUER = "https://id.example"


def test_first_sign_in_creates_the_account_and_the_next_finds_it(migrated_url):
    first = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "sub-1", {"preferred_username": "Alice Smith"}))
    again = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "sub-1", {"preferred_username": "other"}))
    assert first == again and first.active and first.session_generation == 0
    assert first.nickname == "Alice_Smith" and first.principal == f"user:{first.id}"
    other_issuer = in_transaction(migrated_url, lambda c: queries.sign_in(c, "https://elsewhere.example", "sub-1", {}))
    assert other_issuer.id != first.id, "a subject is unique only within its issuer"


def test_a_taken_nickname_gets_a_suffix_whatever_its_case(migrated_url):
    a = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"preferred_username": "bob"}))
    b = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "b", {"preferred_username": "BOB"}))
    c = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "c", {"email": "bob@example.test"}))
    assert (a.nickname, b.nickname, c.nickname) == ("bob", "BOB-1", "bob-2")
    none = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "d", {"preferred_username": "!!"}))
    assert none.nickname.startswith("player-")


def test_a_first_sign_in_reports_the_nickname_it_could_not_have_and_only_then(migrated_url):
    def signed(subject, claims):
        return in_transaction(migrated_url, lambda c: queries.sign_in_reporting_nickname(c, ISSUER, subject, claims))

    carol, wanted = signed("c1", {"preferred_username": "carol"})
    assert (carol.nickname, wanted) == ("carol", None), "had it: nothing to tell"
    other, wanted = signed("c2", {"preferred_username": "carol"})
    assert (other.nickname, wanted) == ("carol-1", "carol")
    assert signed("c2", {"preferred_username": "carol"}) == (other, None), "an account found again: nothing new"
    nameless, wanted = signed("c3", {"preferred_username": "!!"})
    assert nameless.nickname.startswith("player-") and wanted is None, "asked for nothing"


def test_a_nickname_of_twenty_characters_is_kept_whole_and_its_suffix_fits_in_twenty(migrated_url):
    name = "frankie_longname_xyz"  # 20: the most a nickname may have
    first = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "f1", {"preferred_username": name}))
    second = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "f2", {"preferred_username": name}))
    longer = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "f3", {"preferred_username": name + "_and_more"}))
    assert (first.nickname, second.nickname) == (name, "frankie_longname_x-1")
    assert longer.nickname == "frankie_longname_x-2", "cut to twenty, then taken: the suffix still fits"


def test_two_first_sign_ins_racing_make_one_account(migrated_url):
    results, barrier = [], threading.Barrier(4)

    def sign_in():
        barrier.wait()
        results.append(in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "racer", {"nickname": "racer"})))

    threads = [threading.Thread(target=sign_in) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({account.id for account in results}) == 1
    count = in_transaction(migrated_url, lambda c: c.execute("SELECT count(*) FROM accounts").fetchone()[0])
    assert count == 1


def test_rename_refuses_a_nickname_another_account_has_in_any_case(migrated_url):
    a = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"nickname": "carol"}))
    b = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "b", {"nickname": "dave"}))
    with pytest.raises(NicknameTaken):
        in_transaction(migrated_url, lambda c: queries.rename(c, b.id, "CAROL"))
    renamed = in_transaction(migrated_url, lambda c: queries.rename(c, a.id, "Carol_2"))
    assert renamed.nickname == "Carol_2"


def test_a_nickname_given_up_stays_the_accounts_own_until_it_is_deleted(migrated_url):
    """Play-through (session 55): a renamed player's old profile link was dead, and the old name
    free for anyone to take. It leads to the account under its new name; no other account may
    take it (a first sign-in suggesting it gets another); the account may take it back; deleting
    the account frees it."""
    from playsite.ratings.queries import player_principal, read_player_profile

    a = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"nickname": "carol"}))
    b = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "b", {"nickname": "dave"}))
    in_transaction(migrated_url, lambda c: queries.rename(c, a.id, "Carol_2"))
    assert in_transaction(migrated_url, lambda c: read_player_profile(c, "CAROL"))["nickname"] == "Carol_2"
    assert in_transaction(migrated_url, lambda c: player_principal(c, "carol")) == f"user:{a.id}"
    with pytest.raises(NicknameReserved):
        in_transaction(migrated_url, lambda c: queries.rename(c, b.id, "Carol"))
    newcomer = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "n", {"nickname": "carol"}))
    assert newcomer.nickname.lower() != "carol"
    # a second rename keeps both old names the account's; taking one back is allowed
    in_transaction(migrated_url, lambda c: queries.rename(c, a.id, "Carol_3"))
    assert in_transaction(migrated_url, lambda c: read_player_profile(c, "Carol_2"))["nickname"] == "Carol_3"
    assert in_transaction(migrated_url, lambda c: queries.rename(c, a.id, "carol")).nickname == "carol"
    assert in_transaction(migrated_url, lambda c: read_player_profile(c, "carol_3"))["nickname"] == "carol"
    # deleted, the account's names are free, and lead nowhere
    assert in_transaction(migrated_url, lambda c: queries.delete(c, a.id))
    assert in_transaction(migrated_url, lambda c: read_player_profile(c, "Carol_2")) is None
    assert in_transaction(migrated_url, lambda c: queries.rename(c, b.id, "Carol_3")).nickname == "Carol_3"


def test_sign_out_everywhere_deactivation_and_deletion(migrated_url):
    a = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"nickname": "erin"}))
    in_transaction(migrated_url, lambda c: queries.end_sessions(c, a.id))
    assert in_transaction(migrated_url, lambda c: queries.find(c, a.id)).session_generation == 1
    off = in_transaction(migrated_url, lambda c: queries.set_active(c, a.id, False))
    assert off.status == "deactivated" and off.session_generation == 2 and not off.active
    assert in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {})).status == "deactivated"
    on = in_transaction(migrated_url, lambda c: queries.set_active(c, a.id, True))
    assert on.active and on.session_generation == 3
    in_transaction(
        migrated_url,
        lambda c: c.execute("INSERT INTO account_ratings (account_id, rating) VALUES (%s, 1600)", (a.id,)),
    )
    assert in_transaction(migrated_url, lambda c: queries.delete(c, a.id))
    row = in_transaction(
        migrated_url, lambda c: c.execute("SELECT issuer, subject, nickname, status FROM accounts").fetchone()
    )
    assert row == (None, None, None, "deleted")
    assert in_transaction(migrated_url, lambda c: c.execute("SELECT count(*) FROM account_ratings").fetchone()[0]) == 0
    assert not in_transaction(migrated_url, lambda c: queries.delete(c, a.id)), "deleting twice changes nothing"
    assert in_transaction(migrated_url, lambda c: queries.set_active(c, a.id, True)) is None
    # The same person signing in again starts a new account; the nickname is free again.
    again = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"nickname": "erin"}))
    assert again.id != a.id and again.nickname == "erin"


def test_the_accounts_command_deactivates_by_nickname(migrated_url):
    a = in_transaction(migrated_url, lambda c: queries.sign_in(c, ISSUER, "a", {"nickname": "frank"}))
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": migrated_url}
    done = subprocess.run(
        [sys.executable, "-m", "playsite", "accounts", "deactivate", "FRANK"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert f"account {a.id} nickname=frank status=deactivated" in done.stdout
    assert in_transaction(migrated_url, lambda c: queries.find(c, a.id)).status == "deactivated"
    missing = subprocess.run(
        [sys.executable, "-m", "playsite", "accounts", "show", str(uuid.uuid4())], env=env, capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and "no account" in missing.stderr
