"""The reference documents of the ecosystem, read in place from ../shared/reference (tests
that use them skip when it is absent): the dicechess-play contract (`reference`, a fixture
validating an instance against a schema inside it) and the movegen conformance data."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared" / "reference"
REFERENCE = SHARED / "dicechess-play"
MOVEGEN = SHARED / "movegen"
ASYNCAPI = "urn:reference:asyncapi"
OPENAPI = "urn:reference:openapi"


@pytest.fixture(scope="module")
def reference():
    """validate(document, pointer, instance) against a schema inside a reference document."""
    yaml = pytest.importorskip("yaml")
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resources(
        (uri, DRAFT202012.create_resource(yaml.safe_load((REFERENCE / name).read_text(encoding="utf-8"))))
        for uri, name in ((ASYNCAPI, "asyncapi.yaml"), (OPENAPI, "openapi.yaml"))
    )
    validators = {}

    def validate(document: str, pointer: str, instance) -> None:
        key = (document, pointer)
        if key not in validators:
            validators[key] = Draft202012Validator({"$ref": f"{document}#{pointer}"}, registry=registry)
        validators[key].validate(instance)

    return validate
