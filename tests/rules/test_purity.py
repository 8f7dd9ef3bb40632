"""playsite.rules stays pure: nothing from the rest of playsite, no I/O, no logging, no clocks."""

from __future__ import annotations

import ast
from pathlib import Path

import playsite.rules

RULES_DIR = Path(playsite.rules.__file__).parent
FORBIDDEN = {"logging", "time", "datetime", "os", "io", "socket", "random", "trio", "pathlib", "sys"}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module)
    return modules


def test_rules_package_is_pure():
    for path in RULES_DIR.glob("*.py"):
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top not in FORBIDDEN, f"{path.name} imports {module}"
            assert top != "playsite" or module.startswith("playsite.rules"), f"{path.name} imports {module}"
