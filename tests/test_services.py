"""`services.boot`: one boot builds every service and starts every enabled loop; settings
that are not built yet are named at startup; no module keeps mutable state of its own."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import trio

from playsite.config import Settings
from playsite.lobby.challenges import CHALLENGE_TTL_S
from playsite.store import MemoryStore, StoreHealth
from playsite.wire import Unlimited
from tests.support.app import booted, test_client

PACKAGE = Path(__file__).resolve().parent.parent / "playsite"


async def test_two_boots_share_nothing():
    async with booted() as one, booted() as two:
        for field in ("store", "registry", "bots", "bot_events", "lobby", "ratings", "webhooks"):
            assert getattr(one, field) is not getattr(two, field), field


async def test_the_boot_runs_the_lobby_housekeeping(autojump_clock):
    async with booted(Settings(dice_seed_window_ms=0)) as services:
        a, _ = services.bots.mint_anonymous("a")
        b, _ = services.bots.mint_anonymous("b")
        stream = services.bot_events.open(a.id)
        challenge = services.lobby.challenges.create(a, b, Unlimited())
        await trio.sleep(CHALLENGE_TTL_S + 2)
        assert stream.events.receive_nowait() == f'{{"ChallengeDeclined":{{"id":"{challenge.id}","reason":"expired"}}}}'


async def test_the_boot_wires_webhook_delivery_only_when_push_is_enabled():
    async with booted(Settings(webhook_push_enabled=True)) as on, booted(Settings()) as off:
        assert on.webhook_dispatch.attach in on.registry.creation_hooks
        assert off.webhook_dispatch.attach not in off.registry.creation_hooks
        # the lobby's hook is there either way: a person seated in a new game leaves no open seek
        assert off.registry.creation_hooks == [off.lobby.seated]


async def test_the_ladder_exists_only_when_enabled():
    async with booted(Settings(ladder_enabled=True)) as on, booted() as off:
        assert on.ladder is not None and off.ladder is None


async def test_admins_without_management_are_named_in_a_warning_without_their_ids(caplog):
    admin = "0b5e6a8c-4f7e-4a55-9d51-3a0f3d1b2c44"
    with caplog.at_level(logging.WARNING, logger="playsite"):
        async with booted(Settings(admins=(admin,))) as services:
            assert services.management is None
    warnings = [r.getMessage() for r in caplog.records if "PLAY_ADMINS" in r.getMessage()]
    assert len(warnings) == 1 and "WEBHOOK_SESSION_MANAGEMENT_ENABLED" in warnings[0]
    assert admin not in caplog.text


async def test_management_asked_for_but_not_mountable_names_what_is_missing(caplog):
    settings = Settings(session_secret="x" * 32, webhook_session_management_enabled=True)
    with caplog.at_level(logging.WARNING, logger="playsite"):
        async with booted(settings) as services:
            assert services.management is None
            assert (await test_client(services).get("/me/bots")).status_code == 404
            assert (await test_client(services).get("/admin/bots")).status_code == 404
    warnings = [r.getMessage() for r in caplog.records if "/me, /admin" in r.getMessage()]
    assert len(warnings) == 1
    for missing in ("DATABASE_URL", "OIDC_ISSUER", "PLAY_CORS_ORIGINS"):
        assert missing in warnings[0]
    assert "x" * 32 not in caplog.text


async def test_half_configured_sign_in_is_named_in_a_warning_without_the_secret(caplog):
    secret = "s3cret-" * 6
    with caplog.at_level(logging.WARNING, logger="playsite"):
        async with booted(Settings(session_secret=secret, oidc_issuer="https://id.example")) as services:
            assert not services.accounts.enabled
            assert (await test_client(services).get("/auth/login")).status_code == 404
    warnings = [r.getMessage() for r in caplog.records if "sign-in" in r.getMessage()]
    assert len(warnings) == 1
    for missing in ("DATABASE_URL", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "PLAY_PUBLIC_ORIGIN"):
        assert missing in warnings[0]
    assert "PLAY_SESSION_SECRET" not in warnings[0] and secret not in caplog.text


MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary", "deque"}


def module_level_state(tree: ast.Module) -> list[str]:
    """Names bound at module level to a mutable container, and `global` statements anywhere."""
    found = []
    for node in tree.body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", None)) in MUTABLE_CALLS
        )
        for target in targets:
            name = getattr(target, "id", "")
            # UPPER_CASE containers are constant tables (never written after import).
            if mutable and not name.isupper() and name != "__all__":
                found.append(f"{name} (line {node.lineno})")
    found += [f"global {', '.join(n.names)} (line {n.lineno})" for n in ast.walk(tree) if isinstance(n, ast.Global)]
    return found


def test_no_module_keeps_mutable_state():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if state := module_level_state(ast.parse(path.read_text(encoding="utf-8"))):
            offenders[str(path.relative_to(PACKAGE))] = state
    assert not offenders, f"module-level state (keep it in a service built by boot): {offenders}"


def test_the_state_check_finds_state():
    tree = ast.parse("import weakref\n_cache = {}\nBY = weakref.WeakKeyDictionary()\nT = {1: 2}\n_by = weakref.WeakKeyDictionary()\ndef f():\n    global x\n")
    assert module_level_state(tree) == ["_cache (line 2)", "_by (line 5)", "global x (line 7)"]


def database_guesses(tree: ast.Module) -> list[str]:
    """Places that ask a store whether it is PostgreSQL: `getattr`/`hasattr` of its `database`
    or `kind`, `isinstance(..., PostgresStore)`, a comparison with "postgres"."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name, args = node.func.id, node.args
            asked = args[1].value if len(args) >= 2 and isinstance(args[1], ast.Constant) else None
            if name in ("getattr", "hasattr") and asked in ("database", "kind"):
                found.append(f"{name}(..., {asked!r}) (line {node.lineno})")
            if name == "isinstance" and len(args) == 2 and "PostgresStore" in ast.unparse(args[1]):
                found.append(f"isinstance(..., PostgresStore) (line {node.lineno})")
        if isinstance(node, ast.Compare):
            if any(isinstance(side, ast.Constant) and side.value == "postgres" for side in (node.left, *node.comparators)):
                found.append(f"a comparison with 'postgres' (line {node.lineno})")
    return found


def test_only_the_boot_asks_whether_the_store_is_postgresql():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "services.py" or relative.startswith("store/"):
            continue  # the boot decides (Services.database); the store knows what it is
        if found := database_guesses(ast.parse(path.read_text(encoding="utf-8"))):
            offenders[relative] = found
    assert not offenders, f"take the Database (or None) the boot hands over instead: {offenders}"
    boot = database_guesses(ast.parse((PACKAGE / "services.py").read_text(encoding="utf-8")))
    assert len(boot) == 1, f"the boot decides once: {boot}"


def test_the_database_check_finds_guesses():
    tree = ast.parse('getattr(store, "database", None)\nif store.kind == "postgres": pass\nisinstance(s, PostgresStore)\n')
    assert database_guesses(tree) == [
        "getattr(..., 'database') (line 1)", "a comparison with 'postgres' (line 2)", "isinstance(..., PostgresStore) (line 3)",
    ]


async def test_ready_answers_200_while_the_store_is_reachable():
    async with booted() as services:
        response = await test_client(services).get("/ready")
    assert response.status_code == 200 and await response.get_json() == {"status": "ready"}
    assert response.headers["Cache-Control"] == "no-store"


async def test_ready_stays_200_while_the_store_is_unreachable_and_health_says_degraded():
    """Ops review s74: one process serves a database, so a 503 took the only backend out of
    rotation for a database restart, while its games went on."""

    class Unreachable(MemoryStore):
        async def health(self):
            return StoreHealth(kind="memory", durable=False, reachable=False, detail="down for the test")

    async with booted(store=Unreachable()) as services:
        client = test_client(services)
        ready, health = await client.get("/ready"), await client.get("/health")
    assert ready.status_code == 200 and await ready.get_json() == {"status": "ready"}
    assert health.status_code == 200 and (await health.get_json())["status"] == "degraded"


async def test_ready_answers_503_once_the_server_is_stopping():
    async with booted() as services:
        services.stopping.begin()
        ready = await test_client(services).get("/ready")
    assert ready.status_code == 503 and ready.headers["Retry-After"] == "5"
    assert (await ready.get_json())["error"] == {"code": "not_ready", "message": "the server is stopping"}
