"""playsite.wire is pure: no I/O, and nothing from the rest of playsite but the rules' one
`Termination` (which the wire names, and the rules decide in part)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

WIRE = Path(__file__).resolve().parents[2] / "playsite" / "wire"
PURE_IMPORTS = {
    "__future__", "attrs", "collections.abc", "datetime", "enum", "json", "orjson", "re", "typing",
    "playsite.rules.ending",
}
SCHEMA_HELPER_IMPORTS = {"__future__", "functools", "json", "pathlib", "typing", "jsonschema", "referencing"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("path", sorted(WIRE.glob("*.py")), ids=lambda path: path.name)
def test_wire_module_imports_only_pure_dependencies(path):
    allowed = SCHEMA_HELPER_IMPORTS if path.name == "schemas.py" else PURE_IMPORTS
    outside = {name for name in _imports(path) if not name.startswith(".") and name not in allowed}
    assert not outside, f"{path.name} imports {sorted(outside)}"


def test_importing_wire_loads_no_other_playsite_package_but_the_rules_nor_jsonschema():
    code = (
        "import sys, playsite.wire; "
        "print(sorted(m for m in sys.modules if m.startswith('playsite') and not m.startswith('playsite.wire') "
        "and not m.startswith('playsite.rules') and m != 'playsite')); print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=WIRE.parents[1]).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "False"
