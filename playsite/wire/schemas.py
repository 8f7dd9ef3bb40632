"""Where the wire protocol's JSON Schemas live, and validators for them (tests, tools).

The schemas are repository files (``specs/wire/*.schema.json``), not package data; jsonschema
is a test dependency, so it is imported only when a validator is asked for.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema is a test dependency: imported at run time only when asked for
    from jsonschema import Draft202012Validator
    from referencing import Registry

SCHEMA_SUFFIX = ".schema.json"


def schema_dir() -> Path:
    """The directory holding the wire schemas (repository ``specs/wire``)."""
    return Path(__file__).parent.parent / "specs" / "wire"  # playsite/specs links to specs/


def schema_names() -> list[str]:
    """Every schema's short name, e.g. ``time-control``."""
    return sorted(path.name.removesuffix(SCHEMA_SUFFIX) for path in schema_dir().glob(f"*{SCHEMA_SUFFIX}"))


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `name` (``time-control`` or ``time-control.schema.json``)."""
    schema: dict[str, Any] = json.loads((schema_dir() / _file_name(name)).read_text(encoding="utf-8"))
    return schema


def _file_name(name: str) -> str:
    return name if name.endswith(SCHEMA_SUFFIX) else name + SCHEMA_SUFFIX


@functools.cache
def _registry() -> Registry:
    from referencing import Registry, Resource

    resources = []
    for short in schema_names():
        schema = load_schema(short)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """A draft 2020-12 validator for schema `name`, with every sibling schema resolvable."""
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(
        schema, registry=_registry(), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
