"""The two API descriptions (specs/openapi.yaml, specs/asyncapi.yaml) loaded with their wire
schemas, and JSON Schema validators for what they say an answer or a message looks like."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry as SchemaRegistry
from referencing import Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
OPENAPI_PATH = SPECS / "openapi.yaml"
ASYNCAPI_PATH = SPECS / "asyncapi.yaml"


def escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def pointer(*parts: str) -> str:
    return "".join("/" + escape(str(part)) for part in parts)


def wire_documents() -> dict[str, dict]:
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted((SPECS / "wire").glob("*.json"))}


class Documented:
    """The two documents, with JSON Schema validators for what they say a message looks like."""

    def __init__(self) -> None:
        self.openapi = yaml.safe_load(OPENAPI_PATH.read_text(encoding="utf-8"))
        self.asyncapi = yaml.safe_load(ASYNCAPI_PATH.read_text(encoding="utf-8"))
        resources = [
            (OPENAPI_PATH.as_uri(), DRAFT202012.create_resource(self.openapi)),
            (ASYNCAPI_PATH.as_uri(), DRAFT202012.create_resource(self.asyncapi)),
        ]
        for name, schema in wire_documents().items():
            resource = Resource.from_contents(schema)
            # Reached as a relative file from the documents, and by $id from sibling schemas.
            resources.append(((SPECS / "wire" / name).as_uri(), resource))
            resources.append((schema["$id"], resource))
        self.registry = SchemaRegistry().with_resources(resources)
        self._validators: dict[str, Draft202012Validator] = {}

    def validator(self, uri: str) -> Draft202012Validator:
        if uri not in self._validators:
            self._validators[uri] = Draft202012Validator(
                {"$ref": uri}, registry=self.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
            )
        return self._validators[uri]

    def validator_for(self, schema: dict) -> Draft202012Validator:
        """A validator for a schema written inline (its $refs relative to asyncapi.yaml)."""
        return Draft202012Validator(
            {"$id": ASYNCAPI_PATH.as_uri(), **schema}, registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )

    # --- openapi ---

    def operation(self, method: str, path: str) -> dict:
        item = self.openapi["paths"].get(path)
        assert item is not None and method in item, f"openapi.yaml has no {method.upper()} {path}"
        return item[method]

    def response(self, method: str, path: str, status: int) -> tuple[str, dict]:
        """(JSON pointer, object) of the documented response, a $ref followed."""
        responses = self.operation(method, path)["responses"]
        assert str(status) in responses, (
            f"{method.upper()} {path} answered {status}; openapi.yaml documents only {sorted(responses)}"
        )
        where = pointer("paths", path, method, "responses", str(status))
        found = responses[str(status)]
        if "$ref" in found:
            where = found["$ref"].removeprefix("#")
            found = self.resolve_local(self.openapi, found["$ref"])
        return where, found

    def check(self, method: str, path: str, status: int, content_type: str | None, body: bytes):
        """Assert an answer is documented: its status, its media type and (JSON) its body's schema."""
        where, documented = self.response(method, path, status)
        content = documented.get("content")
        what = f"{method.upper()} {path} -> {status}"
        if not content:
            assert body == b"", f"{what}: documented without a body, got {body[:200]!r}"
            return None
        media = (content_type or "").split(";")[0].strip()
        assert media in content, f"{what}: answered as {media!r}, documented as {sorted(content)}"
        if media != "application/json":
            return None
        parsed = json.loads(body)
        errors = sorted(
            self.validator(f"{OPENAPI_PATH.as_uri()}#{where}{pointer('content', media, 'schema')}").iter_errors(parsed),
            key=str,
        )
        assert not errors, f"{what}: body does not match openapi.yaml:\n{errors[0]}\nbody: {parsed}"
        return parsed

    def check_http(self, method: str, path: str, response: httpx.Response):
        return self.check(method, path, response.status_code, response.headers.get("content-type"), response.content)

    # --- asyncapi ---

    def check_message(self, name: str, instance) -> None:
        uri = f"{ASYNCAPI_PATH.as_uri()}#{pointer('components', 'messages', name, 'payload')}"
        errors = sorted(self.validator(uri).iter_errors(instance), key=str)
        assert not errors, f"{name}: does not match asyncapi.yaml:\n{errors[0]}\ninstance: {instance}"

    def check_line(self, line: str) -> str:
        """Validate one ndjson line or socket frame against the message it names; returns the name."""
        if line == "":
            self.check_message("KeepAlive", line)
            return "KeepAlive"
        parsed = json.loads(line)
        (name,) = parsed
        self.check_message(name, parsed)
        return name

    @staticmethod
    def resolve_local(document: dict, ref: str):
        node = document
        for part in ref.removeprefix("#/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node
