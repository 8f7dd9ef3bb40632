"""The layers of playsite/ (docs/architecture.md, "Layers"), checked on the source: no import
cycle between modules, and no import a layer may not make. Every import counts, also one
inside a function or under `if TYPE_CHECKING:`: hiding an import is how cycles survive."""

from __future__ import annotations

import ast
from pathlib import Path

import attrs

PACKAGE = Path(__file__).resolve().parent.parent / "playsite"

WEB_FRAMEWORKS = ("quart", "quart_trio", "hypercorn", "werkzeug", "httpx")


@attrs.frozen
class Layer:
    """The modules under `prefix` import from playsite only themselves and what is under
    `may_import`, and from outside playsite none of `never_import`."""

    prefix: str
    may_import: tuple[str, ...] | None = None
    """None: any playsite module (the cycle check still applies)."""
    never_import: tuple[str, ...] = ()
    """Top-level packages outside playsite (web frameworks, HTTP clients)."""


PURE = ("playsite.rules", "playsite.dice")
CODECS = (*PURE, "playsite.wire")

LAYERS = (
    # The pure layer imports only itself; the rules do not use the dice (and need not).
    Layer("playsite.rules", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.dice", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.wire", may_import=PURE, never_import=WEB_FRAMEWORKS),
    Layer("playsite.verifier", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.principals", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.store", may_import=("playsite.config", "playsite.histogram"), never_import=WEB_FRAMEWORKS),
    Layer("playsite.rooms", may_import=(*CODECS, "playsite.principals", "playsite.store", "playsite.tokens",
                                        "playsite.channels", "playsite.histogram"),
          never_import=WEB_FRAMEWORKS),
    # The edge encodes JSON as events are encoded: one encoder (wire/text.py, pure); it renders
    # the domains' refusals and reads the credentials a person presents, both plain values.
    Layer("playsite.http", may_import=("playsite.wire.text", "playsite.refusals", "playsite.credentials",
                                       "playsite.channels")),
    Layer("playsite.refusals", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.http.routercycles", may_import=()),
    Layer("playsite.gcwatch", may_import=("playsite.periodic", "playsite.histogram"), never_import=WEB_FRAMEWORKS),
    Layer("playsite.credentials", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.periodic", may_import=()),
    Layer("playsite.histogram", may_import=(), never_import=WEB_FRAMEWORKS),
    Layer("playsite.channels", may_import=(), never_import=WEB_FRAMEWORKS),
    # People's seeks are domain: the routes render their refusals (lobby/people_seek_routes.py).
    # The seek lifecycle they share with bot seeks is held to the same rule.
    Layer("playsite.lobby.seek_board", may_import=(*CODECS, "playsite.tokens", "playsite.refusals"),
          never_import=WEB_FRAMEWORKS),
    Layer("playsite.lobby.people_seeks",
          may_import=(*CODECS, "playsite.tokens", "playsite.refusals", "playsite.lobby.seek_board"),
          never_import=WEB_FRAMEWORKS),
    # The settings read UUIDs (PLAY_ADMINS) through principals.py and import nothing else of playsite.
    Layer("playsite.config", may_import=("playsite.principals",), never_import=WEB_FRAMEWORKS),
    # Functions of a connection (a package's queries.py) import the rows they build, no service.
    Layer("playsite.strength.queries", may_import=("playsite.strength.report",), never_import=WEB_FRAMEWORKS),
    Layer("playsite.ratings.queries", may_import=("playsite.principals", "playsite.ratings.book", "playsite.wire.instant"),
          never_import=WEB_FRAMEWORKS),
    Layer("playsite.showcase.queries", may_import=(), never_import=WEB_FRAMEWORKS),
    # A slot's release ends the ownership: the slot's queries use the owners' (another connection's functions).
    Layer("playsite.webhooks.slot_queries", may_import=("playsite.bots.owners",), never_import=WEB_FRAMEWORKS),
    Layer("playsite.bots.owners", may_import=(), never_import=WEB_FRAMEWORKS),
)
"""What each layer may import (docs/architecture.md, "Layers"). A rule for another layer is
one more line, e.g. `Layer("playsite.services", never_import=("quart",))`."""

ONLY_FROM_THE_TOP = {
    "playsite.app": ("playsite.server", "playsite.cli"),
    "playsite.server": ("playsite.cli",),
    # Every service in one value: a package importing it would be tied to every other package.
    # Route factories take the few services they use; the app hands them over.
    "playsite.services": ("playsite.app", "playsite.server", "playsite.cli", "playsite.metrics", "playsite.demo"),
}
"""Modules only the top of the stack may import, and who may."""


SPEAKING_HTTP = ("quart", "quart_trio", "hypercorn", "werkzeug")
"""The web framework and server: only the edge, the routes and the composition root speak HTTP."""

HTTP_MAY_BE_SPOKEN_BY = {
    "playsite.http": "the edge itself",
    "playsite.app": "the composition root: the app and its route families",
    "playsite.server": "the composition root: hypercorn and the edge's patches of it",
    "playsite.services": "the composition root: boot builds the origin policy the edge and accounts share",
    "playsite.cli": "the commands that start the server (`playsite demo` serves its own helpers)",
    "playsite.metrics": "holds the /metrics route family",
    "playsite.demo.identity": "the demo's own sign-in server (an OpenID provider on its own port)",
    "playsite.demo.bot": "the demo's webhook bot, an HTTP server of its own",
    "playsite.demo.address": "an ASGI wrapper of the demo's app (redirects page loads to the public origin)",
}
"""Modules outside `*routes.py` that may import a web framework or `playsite.http`, and why.
Every other module is a domain (or lower) module: it refuses with `playsite.refusals.Refused`
and reads a person's `playsite.credentials.Credentials`, never a request."""


def is_route_module(name: str) -> bool:
    return name.rpartition(".")[2].endswith("routes")


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    """The dotted name of the module at `path` (a file under `root`, the repository)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: frozenset[str] = frozenset(), *, name: str | None = None) -> set[str]:
    """Every module `path` (the module `name`, by default its name under playsite/) imports,
    resolved to full dotted names (relative imports included). `from package import
    submodule` counts as an import of the submodule only."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return found


def import_graph() -> dict[str, set[str]]:
    """playsite module -> the playsite modules it imports (names that are not modules dropped)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = frozenset(paths)
    return {name: {i for i in imports_of(path, modules) if i in paths and i != name} for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_no_import_cycle_in_playsite():
    assert find_cycle(import_graph()) is None, f"import cycle: {' -> '.join(find_cycle(import_graph()))}"


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


def outside_imports() -> dict[str, set[str]]:
    """playsite module -> the top-level packages outside playsite it imports."""
    return {
        module_name(path): {i.split(".")[0] for i in imports_of(path) if i} - {"playsite"}
        for path in PACKAGE.rglob("*.py")
    }


def layer_violations(graph: dict[str, set[str]], outside: dict[str, set[str]], layers=LAYERS) -> list[str]:
    """Every import in `graph` (playsite -> playsite) or `outside` (playsite -> top-level
    packages elsewhere) that `layers` forbid, as "module -> import"."""
    wrong = []
    for layer in layers:
        for module in sorted(m for m in graph if within(m, layer.prefix)):
            if layer.may_import is not None:
                allowed = (layer.prefix, *layer.may_import)
                wrong += [f"{module} -> {t}" for t in sorted(graph[module]) if not any(within(t, a) for a in allowed)]
            wrong += [f"{module} -> {t}" for t in sorted(outside.get(module, ())) if t in layer.never_import]
    return wrong


def test_each_layer_imports_only_what_it_may():
    graph = import_graph()
    wrong = layer_violations(graph, outside_imports())
    for module, targets in sorted(graph.items()):
        for target in targets:
            for guarded, importers in ONLY_FROM_THE_TOP.items():
                if within(target, guarded) and not any(within(module, i) for i in importers):
                    wrong.append(f"{module} -> {target}")
    assert not wrong, f"imports across layers: {wrong}"


def test_the_layer_check_finds_forbidden_imports():
    graph = {"playsite.rules.a": {"playsite.rules.b", "playsite.wire"}, "playsite.rules.b": set()}
    outside = {"playsite.rules.a": {"chess"}, "playsite.rules.b": {"quart"}}
    rules_alone = (Layer("playsite.rules", may_import=(), never_import=("quart",)),)
    assert layer_violations(graph, outside, rules_alone) == [
        "playsite.rules.a -> playsite.wire",
        "playsite.rules.b -> quart",
    ]
    assert layer_violations(graph, outside, (Layer("playsite.rules", may_import=("playsite.wire",)),)) == []


def test_hidden_imports_count(tmp_path):
    source = tmp_path / "hidden.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import quart\n"
        "def later():\n    from ..rooms import room\n",
        encoding="utf-8",
    )
    found = imports_of(source, frozenset({"playsite.rooms.room"}), name="playsite.games.hidden")
    assert {"quart", "playsite.rooms.room"} <= found


def http_speakers(graph: dict[str, set[str]], outside: dict[str, set[str]]) -> list[str]:
    """Every import of a web framework or of `playsite.http` by a module that may not speak
    HTTP (not a route module, not in HTTP_MAY_BE_SPOKEN_BY), as "module -> import"."""
    wrong = []
    for module in sorted(graph):
        if is_route_module(module) or any(within(module, allowed) for allowed in HTTP_MAY_BE_SPOKEN_BY):
            continue
        wrong += [f"{module} -> {t}" for t in sorted(outside.get(module, ())) if t in SPEAKING_HTTP]
        wrong += [f"{module} -> {t}" for t in sorted(graph[module]) if within(t, "playsite.http")]
    return wrong


def test_domains_speak_no_http():
    wrong = http_speakers(import_graph(), outside_imports())
    assert not wrong, f"modules that are not routes import the web framework or the edge: {wrong}"


def test_the_http_check_finds_a_domain_speaking_http():
    graph = {
        "playsite.lobby.service": {"playsite.http.errors", "playsite.refusals"},
        "playsite.lobby.routes": {"playsite.http.errors"},
        "playsite.app": {"playsite.http.edge"},
        "playsite.games.socket_limits": set(),
    }
    outside = {"playsite.games.socket_limits": {"werkzeug", "attrs"}, "playsite.lobby.routes": {"quart"}}
    assert http_speakers(graph, outside) == [
        "playsite.games.socket_limits -> werkzeug",
        "playsite.lobby.service -> playsite.http.errors",
    ]


def test_route_modules_are_imported_only_by_the_app():
    graph = import_graph()
    routes = {m for m in graph if is_route_module(m)}
    wrong = [f"{m} -> {t}" for m, ts in graph.items() for t in ts & routes if m != "playsite.app" and not m.endswith("routes")]
    assert not wrong, wrong


TESTS = PACKAGE.parent / "tests"


def imported_tests(paths: list[Path], root: Path = PACKAGE.parent) -> list[str]:
    """Every import of a test module (`test_*`) or a conftest by a module in `paths` (files
    under `root`), as "module -> import": what tests share lives in tests/support/."""
    names = {path: module_name(path, root) for path in paths}
    modules = frozenset(names.values())
    wrong = []
    for path in sorted(paths):
        for target in sorted(imports_of(path, modules, name=names[path])):
            leaf = target.rpartition(".")[2]
            if target.split(".")[0] == "tests" and (leaf.startswith("test_") or leaf == "conftest"):
                wrong.append(f"{names[path]} -> {target}")
    return wrong


def test_no_test_module_imports_another_test_module_or_a_conftest():
    wrong = imported_tests(list(TESTS.rglob("*.py")))
    assert not wrong, f"move what they share into tests/support/ (fixtures too): {wrong}"


def test_the_test_import_check_finds_imported_tests(tmp_path):
    sources = {
        "tests/web/conftest.py": "from tests.support.browser import chromium\n",
        "tests/web/test_a.py": "from tests.web.conftest import PHONE\nfrom .test_b import pending\n",
        "tests/web/test_b.py": "from tests.web import test_a\nfrom tests.web import helpers\nimport tests.support.app\n",
        "tests/web/helpers.py": "",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert imported_tests(list(tmp_path.rglob("*.py")), tmp_path) == [
        "tests.web.test_a -> tests.web.conftest",
        "tests.web.test_a -> tests.web.test_b",
        "tests.web.test_b -> tests.web.test_a",
    ]
