"""The layers of playsite/ (docs/architecture.md, "Layers"), checked on the source: no import
cycle between modules, and no import a layer may not make. Every import counts, also one
inside a function or under `if TYPE_CHECKING:`: hiding an import is how cycles survive."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "playsite"

WEB_FRAMEWORKS = ("quart", "quart_trio", "hypercorn", "werkzeug", "httpx")

RULES = [
    # (modules under this prefix, may import nothing of playsite outside these prefixes)
    ("playsite.rules", ("playsite.rules",)),
    ("playsite.dice", ("playsite.dice",)),
    ("playsite.wire", ("playsite.wire", "playsite.rules", "playsite.dice")),
    ("playsite.store", ("playsite.store", "playsite.config")),
    ("playsite.rooms", ("playsite.rooms", "playsite.rules", "playsite.dice", "playsite.wire", "playsite.store", "playsite.tokens")),
    ("playsite.http", ("playsite.http",)),
    ("playsite.periodic", ()),
]
"""A layer that may import only itself (and the listed packages) from playsite."""

NO_WEB_FRAMEWORK = ("playsite.rooms", "playsite.rules", "playsite.dice", "playsite.wire", "playsite.store")
"""Layers that know no web framework or HTTP client."""

ONLY_FROM_THE_TOP = {
    "playsite.app": ("playsite.server", "playsite.cli"),
    "playsite.server": ("playsite.cli",),
}
"""Modules only the top of the stack may import."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: frozenset[str] = frozenset()) -> set[str]:
    """Every module `path` imports, resolved to full dotted names (relative imports included).
    `from package import submodule` counts as an import of the submodule only."""
    name = module_name(path)
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


def test_each_layer_imports_only_what_it_may():
    graph = import_graph()
    wrong = []
    for module, targets in sorted(graph.items()):
        for prefix, allowed in RULES:
            if within(module, prefix):
                wrong += [f"{module} -> {t}" for t in sorted(targets) if not any(within(t, a) for a in allowed)]
        for target in targets:
            for guarded, importers in ONLY_FROM_THE_TOP.items():
                if within(target, guarded) and not any(within(module, i) for i in importers):
                    wrong.append(f"{module} -> {target}")
    assert not wrong, f"imports across layers: {wrong}"


def test_the_core_knows_no_web_framework():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        if any(within(name, layer) for layer in NO_WEB_FRAMEWORK):
            wrong += [f"{name} -> {i}" for i in sorted(imports_of(path)) if i.split(".")[0] in WEB_FRAMEWORKS]
    assert not wrong, wrong


def test_route_modules_are_imported_only_by_the_app():
    graph = import_graph()
    routes = {m for m in graph if m.rpartition(".")[2].endswith("routes")}
    wrong = [f"{m} -> {t}" for m, ts in graph.items() for t in ts & routes if m != "playsite.app" and not m.endswith("routes")]
    assert not wrong, wrong
