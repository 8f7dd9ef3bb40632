"""Bot identity routes over a real `playsite serve`: tokens, account, ladder, catalog opt-in,
capacity, rate limits, every error in the Bot API error shape, and durability across a restart."""

from __future__ import annotations

import psycopg
import pytest

from playsite.bots.directory import BotDirectory
from playsite.bots.identity_routes import ANON_MINTS_PER_MINUTE, REGISTRATIONS_PER_HOUR
from playsite.bots.store import MemoryBotStore
from playsite.store.database import DatabaseUnavailable
from playsite.store.migrations import apply_pending, load_migrations
from playsite.tokens import digest
from tests.support.errors import assert_error
from tests.support.lobby_api import FAST_GAMES, Api, api, assert_no_server_errors, shared_api  # noqa: F401

AUTHENTICATED = [
    ("POST", "/bot/token"),
    ("GET", "/bot/account"),
    ("POST", "/bot/ladder/join"),
    ("POST", "/bot/ladder/leave"),
    ("POST", "/bot/open-to-humans"),
    ("POST", "/bot/open-to-humans/leave"),
    ("GET", "/bot/capacity"),
    ("POST", "/bot/capacity"),
    ("POST", "/bot/challenge"),
    ("GET", "/bot/challenges"),
    ("POST", "/bot/challenge/challenge-1/accept"),
    ("POST", "/bot/challenge/challenge-1/decline"),
    ("POST", "/bot/seeks"),
    ("POST", "/bot/seeks/seek-1/accept"),
]
REGISTERED_ONLY = [
    ("POST", "/bot/token"),
    ("POST", "/bot/ladder/join"),
    ("POST", "/bot/ladder/leave"),
    ("POST", "/bot/open-to-humans"),
    ("POST", "/bot/open-to-humans/leave"),
    ("GET", "/bot/capacity"),
    ("POST", "/bot/capacity"),
]


# ----- anonymous identities ------------------------------------------------------------------


def test_anon_mint_answers_a_token_response(api):
    response = api.call("POST", "/bot/anon", params={"name": "rustam"})
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store"
    bot = response.json()
    assert set(bot) == {"token", "team", "name", "id"}
    assert bot["team"] == "anon" and bot["name"].startswith("rustam-")
    assert bot["id"] == f"bot:team:anon:{bot['name']}"
    account = api.ok("GET", "/bot/account", bot)
    assert account == {"team": "anon", "name": bot["name"], "id": bot["id"]}


def test_anon_mint_without_a_name_gets_a_generated_one(api):
    first, second = api.anon(), api.anon()
    assert first["name"] != second["name"] and first["token"] != second["token"]


@pytest.mark.parametrize(
    ("name", "slug"),
    [("MyBot", "mybot"), ("-dash", "dash"), ("sp ace", "sp-ace"), ("x" * 40, "x" * 23), ("Ünï Bot!", "n-bot"), ("Cool_Bot 2", "cool-bot-2")],
)
def test_anon_mint_makes_a_slug_of_the_name_as_the_ecosystem_does(shared_api, name, slug):
    answer = shared_api.call("POST", "/bot/anon", params={"name": name})
    assert answer.status_code == 201
    assert answer.json()["name"].rsplit("-", 1)[0] == slug


@pytest.mark.parametrize("name", ["---", "ü", "!!"])
def test_anon_mint_with_nothing_to_make_a_slug_of_is_400(shared_api, name):
    assert_error(shared_api.call("POST", "/bot/anon", params={"name": name}), 400, "invalid_request")


def test_anon_mint_rate_limit_per_address_answers_429_with_retry_after(api):
    for _ in range(ANON_MINTS_PER_MINUTE):
        api.anon()
    response = api.call("POST", "/bot/anon")
    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response.headers["retry-after"]) <= 60


# ----- registration ------------------------------------------------------------------------------


def test_register_answers_a_token_response_once(api):
    response = api.call("POST", "/bot/register", json={"team": "dragons", "name": "smaug"})
    assert response.status_code == 201
    bot = response.json()
    assert {k: bot[k] for k in ("team", "name", "id")} == {"team": "dragons", "name": "smaug", "id": "bot:team:dragons:smaug"}
    assert api.ok("GET", "/bot/account", bot)["id"] == "bot:team:dragons:smaug"


@pytest.mark.parametrize(
    "body",
    [
        {"team": "Dragons", "name": "smaug"},
        {"team": "dragons", "name": "-smaug"},
        {"team": "dragons", "name": "s" * 33},
        {"team": "dragons"},
        {"name": "smaug"},
        {"team": 7, "name": "smaug"},
        {},
    ],
)
def test_register_with_an_invalid_slug_is_400(shared_api, body):
    assert_error(shared_api.call("POST", "/bot/register", json=body), 400, "invalid_request")


def test_register_without_a_name_or_team_says_it_is_required(shared_api):
    """Play-through (session 62): a missing name read "name must be 1-32 of a-z, ...", as if
    the one sent were malformed."""
    for body, missing in (({"team": "dragons"}, "name"), ({"name": "smaug"}, "team")):
        message = assert_error(shared_api.call("POST", "/bot/register", json=body), 400, "invalid_request")
        assert message.startswith(f"{missing} is required"), message
    message = assert_error(shared_api.call("POST", "/bot/register", json={"team": "dragons", "name": "-x"}), 400,
                           "invalid_request")
    assert message.startswith("name must be 1-32"), message


@pytest.mark.parametrize("team", ["anon", "house"])
def test_register_a_reserved_team_is_400(shared_api, team):
    message = assert_error(shared_api.call("POST", "/bot/register", json={"team": team, "name": "mine"}), 400, "team_reserved")
    assert message == f"the team '{team}' is reserved for this server's own bots", message


def test_register_a_taken_identity_is_409(api):
    api.register("dragons", "smaug")
    assert_error(api.call("POST", "/bot/register", json={"team": "dragons", "name": "smaug"}), 409, "identity_taken")


def test_register_rate_limit_per_address_answers_429_with_retry_after(api):
    for n in range(REGISTRATIONS_PER_HOUR):
        api.register("rl", f"bot{n}")
    response = api.call("POST", "/bot/register", json={"team": "rl", "name": "one-more"})
    assert_error(response, 429, "rate_limited")
    assert 1 <= int(response.headers["retry-after"]) <= 3600


@pytest.mark.parametrize(
    ("content", "content_type", "status", "code"),
    [
        (b"{not json", "application/json", 400, "invalid_request"),
        (b"[1, 2]", "application/json", 400, "invalid_request"),
        (b'"team"', "application/json", 400, "invalid_request"),
        (b'{"team": "a", "name": "b"}', "text/plain", 415, "unsupported_media_type"),
        (b'{"team": "a", "name": "' + b"x" * 5000 + b'"}', "application/json", 413, "request_too_large"),
    ],
)
def test_register_rejects_malformed_bodies_in_the_error_shape(shared_api, content, content_type, status, code):
    response = shared_api.call("POST", "/bot/register", content=content, headers={"Content-Type": content_type})
    assert_error(response, status, code)


# ----- bearer authentication -------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), AUTHENTICATED)
@pytest.mark.parametrize("authorization", [None, "Bearer nope", "Basic abc", "bearer"])
def test_authenticated_routes_answer_401_without_a_valid_bearer(shared_api, method, path, authorization):
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = shared_api.call(method, path, headers=headers)
    assert_error(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_registered_only_routes_answer_403_to_anonymous_bots(api):
    anonymous = api.anon()
    for method, path in REGISTERED_ONLY:
        response = api.call(method, path, anonymous["token"], json={"maxConcurrentGames": 2})
        assert_error(response, 403, "registered_only")


def test_token_rotation_invalidates_the_old_token_at_once(api):
    bot = api.register("acme", "alice")
    rotated = api.ok("POST", "/bot/token", bot)
    assert set(rotated) == {"token"} and rotated["token"] != bot["token"]
    assert_error(api.call("GET", "/bot/account", bot["token"]), 401, "unauthorized")
    assert api.ok("GET", "/bot/account", rotated)["id"] == "bot:team:acme:alice"


# ----- ladder and catalog opt-in -----------------------------------------------------------------


def test_ladder_join_and_leave_answer_the_ladder_state(api):
    bot = api.register("acme", "alice")
    assert api.ok("POST", "/bot/ladder/join", bot) == {"onLadder": True, "glickoRating": 1500.0, "glickoRd": 350.0}
    assert api.ok("POST", "/bot/ladder/join", bot)["onLadder"] is True
    assert api.ok("POST", "/bot/ladder/leave", bot) == {"onLadder": False, "glickoRating": 1500.0, "glickoRd": 350.0}


def test_open_to_humans_sets_and_clears_the_description(api):
    bot = api.register("acme", "alice")
    opened = api.ok("POST", "/bot/open-to-humans", bot, json={"description": "aggressive + book"})
    assert opened == {"openToHumans": True, "description": "aggressive + book"}
    # Leaving keeps the description; opening again without one clears it.
    assert api.ok("POST", "/bot/open-to-humans/leave", bot) == {"openToHumans": False, "description": "aggressive + book"}
    assert api.ok("POST", "/bot/open-to-humans", bot) == {"openToHumans": True}
    assert api.ok("POST", "/bot/open-to-humans", bot, json={"description": "x" * 200})["description"] == "x" * 200
    assert api.ok("POST", "/bot/open-to-humans", bot, json={"description": ""}) == {"openToHumans": True}


def test_open_to_humans_refuses_bad_bodies_and_changes_nothing(api):
    bot = api.register("acme", "alice")
    json_type = {"Content-Type": "application/json"}
    for kwargs, status, code in [
        ({"json": {"description": "x" * 201}}, 400, "invalid_request"),
        ({"json": {"description": 5}}, 400, "invalid_request"),
        ({"content": b"{", "headers": json_type}, 400, "invalid_request"),
        ({"content": b"description=x", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"),
        ({"content": b" " * 5000 + b"{}", "headers": json_type}, 413, "request_too_large"),
    ]:
        assert_error(api.call("POST", "/bot/open-to-humans", bot["token"], **kwargs), status, code)
    assert api.ok("GET", "/bot/capacity", bot)["openToHumans"] is False


# ----- capacity ----------------------------------------------------------------------------------


def test_capacity_starts_at_one_and_follows_the_declaration(api):
    bot = api.register("acme", "alice")
    assert api.ok("GET", "/bot/capacity", bot) == {
        "maxConcurrentGames": 1,
        "openToHumans": False,
        "ladderAllowance": 1,
        "activeGames": 0,
    }
    declared = api.ok("POST", "/bot/capacity", bot, json={"maxConcurrentGames": 4})
    assert declared == {"maxConcurrentGames": 4, "openToHumans": False, "ladderAllowance": 4, "activeGames": 0}
    api.ok("POST", "/bot/open-to-humans", bot)
    # A catalog bot keeps one slot free for people: the ladder may take the rest.
    assert api.ok("GET", "/bot/capacity", bot)["ladderAllowance"] == 3


def test_capacity_out_of_range_or_not_an_integer_is_400(api):
    bot = api.register("acme", "alice")
    for value in (0, 33, -1, "3", 2.5, True, None, [3]):
        response = api.call("POST", "/bot/capacity", bot["token"], json={"maxConcurrentGames": value})
        assert_error(response, 400, "invalid_request")
    assert api.ok("GET", "/bot/capacity", bot)["maxConcurrentGames"] == 1
    assert api.ok("POST", "/bot/capacity", bot, json={"maxConcurrentGames": 32})["maxConcurrentGames"] == 32


def test_capacity_counts_active_games(api):
    bot = api.register("acme", "alice", capacity=2)
    challenger = api.anon()
    challenge = api.challenge(challenger, bot)
    api.ok("POST", f"/bot/challenge/{challenge['id']}/accept", bot, 201)
    assert api.active_games(bot) == 1


def test_capacity_without_a_body_is_400_and_with_a_wrong_type_415(api):
    bot = api.register("acme", "alice")
    assert_error(api.call("POST", "/bot/capacity", bot["token"]), 400, "invalid_request")
    response = api.call("POST", "/bot/capacity", bot["token"], content=b"maxConcurrentGames=2")
    assert_error(response, 415, "unsupported_media_type")


@pytest.mark.postgres
def test_a_rotation_whose_token_was_replaced_in_the_store_first_is_401_and_changes_nothing(serve, database_url):
    """As when its owner's new token is stored while the rotation is under way: the rotation
    swaps only the digest it was called with (tests/bots/test_token_races.py: the interleavings)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
        server = serve({**FAST_GAMES, "DATABASE_URL": database_url})
        api = Api(server)
        bot = api.register("acme", "raced")
        conn.execute("UPDATE bots SET token_hash = %s WHERE id = 'acme/raced'", (digest("the owner's"),))
        answer = api.call("POST", "/bot/token", bot)
        assert_error(answer, 401, "unauthorized")
        assert answer.headers["WWW-Authenticate"] == 'Bearer realm="playsite"'
        stored = conn.execute("SELECT token_hash FROM bots WHERE id = 'acme/raced'").fetchone()[0]
        assert bytes(stored) == digest("the owner's")
        api.close()
        assert_no_server_errors(server)


# ----- durability ----------------------------------------------------------------------------


@pytest.mark.postgres
def test_registered_bots_survive_a_restart_with_postgres(serve, database_url):
    with psycopg.connect(database_url, autocommit=True) as conn:
        apply_pending(conn, load_migrations())
    env = {**FAST_GAMES, "DATABASE_URL": database_url}
    first = serve(env)
    before = Api(first)
    bot = before.register("acme", "alice", capacity=3)
    before.ok("POST", "/bot/open-to-humans", bot, json={"description": "plays fast"})
    before.ok("POST", "/bot/ladder/join", bot)
    rotated = before.ok("POST", "/bot/token", bot)
    anonymous = before.anon()
    before.close()
    assert first.stop() == 0
    assert_no_server_errors(first)

    second = serve(env)
    after = Api(second)
    assert after.ok("GET", "/bot/account", rotated)["id"] == "bot:team:acme:alice"
    assert after.ok("GET", "/bot/capacity", rotated) == {
        "maxConcurrentGames": 3,
        "openToHumans": True,
        "ladderAllowance": 2,
        "activeGames": 0,
    }
    assert after.ok("POST", "/bot/ladder/join", rotated)["onLadder"] is True
    catalog = after.ok("GET", "/lobby/bots")["bots"]
    assert [(b["team"], b["name"], b["description"]) for b in catalog] == [("acme", "alice", "plays fast")]
    # The token replaced before the restart stays dead; anonymous bots are memory only.
    assert_error(after.call("GET", "/bot/account", bot["token"]), 401, "unauthorized")
    assert_error(after.call("GET", "/bot/account", anonymous["token"]), 401, "unauthorized")
    # The name is still taken.
    assert_error(after.call("POST", "/bot/register", json={"team": "acme", "name": "alice"}), 409, "identity_taken")
    after.close()
    assert_no_server_errors(second)


async def test_the_featured_bot_s_declaration_is_split_between_general_and_its_showcase_seat():
    from playsite.bots.directory import BotDirectory
    from playsite.rooms.admission import FEATURED_BOT_CAPACITY, Limits, Purpose

    directory = BotDirectory(featured="acme/star")
    star, _ = await directory.register("acme", "star")
    other, _ = await directory.register("acme", "other")
    splits = {}
    for declared in (1, 2, 3, 10):
        await directory.update(star, max_concurrent_games=declared)
        limits = directory.limits_of(star.principal)
        splits[declared] = (limits.total, limits.per_purpose[Purpose.GENERAL], limits.per_purpose[Purpose.SHOWCASE])
    # The showcase seat first (it is why the bot is featured), then up to 2 general; never over 3.
    assert splits == {1: (1, 0, 1), 2: (2, 1, 1), 3: (3, 2, 1), 10: (3, 2, 1)}
    assert directory.limits_of(star.principal) == Limits.featured_bot(FEATURED_BOT_CAPACITY)
    assert directory.limits_of(other.principal).per_purpose[Purpose.SHOWCASE] == 0


# ----- the public name of a bot --------------------------------------------------------------


async def test_a_bot_is_shown_as_team_space_name_while_its_principal_stays_team_slash_name():
    from playsite.bots.directory import BotDirectory

    directory = BotDirectory()
    alice, _ = await directory.register("acme", "alice")
    assert alice.public_name == "acme alice"
    assert (alice.face.kind, alice.face.name) == ("Bot", "acme alice")
    assert alice.external_id == "bot:team:acme:alice"
    assert alice.principal == "bot:acme/alice", "the stored principal is unchanged"


def test_a_bot_face_stored_as_team_slash_name_is_read_as_team_space_name():
    """Snapshots written before the public name took the ecosystem's form resume in the new form."""
    import attrs

    from playsite.rooms.durable import dump_setup, load_setup
    from playsite.wire import PublicFace
    from tests.support.rooms import room_setup

    setup = room_setup()
    setup = attrs.evolve(setup, white=attrs.evolve(setup.white, face=PublicFace(kind="Bot", name="acme alice")))
    data = dump_setup(setup)
    assert load_setup(data) == setup
    data["seats"]["White"]["face"]["name"] = "acme/alice"
    assert load_setup(data).white.face == PublicFace(kind="Bot", name="acme alice")
    assert load_setup(data).black.face == PublicFace(kind="Human", name=None)


class LostAnswers(MemoryBotStore):
    """A bot store whose writes, once `failing`, raise DatabaseUnavailable as a lost answer does:
    after the write landed (`landed`), or without it."""

    def __init__(self, landed: bool):
        super().__init__()
        self.landed = landed
        self.failing = False

    async def save(self, account, *, created=False):
        await self.written(super().save(account, created=created))

    async def replace_token(self, bot_id, old, new):
        return await self.written(super().replace_token(bot_id, old, new))

    async def written(self, write):
        if self.failing and not self.landed:
            write.close()
            raise DatabaseUnavailable("the connection went before the write")
        done = await write
        if self.failing:
            raise DatabaseUnavailable("the COMMIT's answer was lost")
        return done


@pytest.mark.parametrize("landed", [True, False], ids=["landed", "never-written"])
async def test_a_registration_or_a_rotation_whose_answer_never_came_is_read_back(landed):
    """An answer that never came is not a failure: the directory reads the store back. A write
    that landed is a success (its token works, and is the one answered; a setting is set); one
    that did not is refused as before, and the directory holds what the store holds."""
    store = LostAnswers(landed)
    directory = BotDirectory(store)
    kept, kept_token = await directory.register("lost", "kept")
    store.failing = True
    if landed:
        account, token = await directory.register("lost", "answer")
        assert directory.authenticate(token) is account and (await store.stored("lost/answer")).token_hash == digest(token)
        rotated = await directory.rotate_token(kept)
        assert directory.authenticate(rotated) is kept and directory.authenticate(kept_token) is None
        await directory.update(kept, max_concurrent_games=4)  # a setting, the same way
        assert kept.max_concurrent_games == 4
    else:
        with pytest.raises(DatabaseUnavailable):
            await directory.register("lost", "answer")
        assert directory.get("lost/answer") is None and await store.stored("lost/answer") is None
        with pytest.raises(DatabaseUnavailable):
            await directory.rotate_token(kept)
        assert directory.authenticate(kept_token) is kept, "the old token still opens the bot"
        with pytest.raises(DatabaseUnavailable):
            await directory.update(kept, max_concurrent_games=4)
        assert kept.max_concurrent_games == 1
    stored = await store.stored("lost/kept")
    assert (stored.token_hash, stored.max_concurrent_games) == (kept.token_hash, kept.max_concurrent_games)  # they agree


async def test_a_settings_write_never_writes_a_token_back():
    """A bot's settings written while its token is being replaced elsewhere (its owner's new
    token, stored before this process's copy of the bot knows it) keep the new token."""
    store = MemoryBotStore()
    directory = BotDirectory(store)
    account, _ = await directory.register("race", "settings")
    await store.replace_token(account.id, account.token_hash, digest("the owner's new token"))
    await directory.update(account, max_concurrent_games=3)  # the in-memory copy still holds the old digest
    assert (await store.stored(account.id)).token_hash == digest("the owner's new token")
    assert (await store.load())[0].max_concurrent_games == 3
