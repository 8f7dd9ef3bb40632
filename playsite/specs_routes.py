"""The machine-readable API descriptions, served: /openapi.yaml, /asyncapi.yaml, /specs/...

The documents are repository files (`specs/openapi.yaml`, `specs/asyncapi.yaml`,
`specs/wire/*.schema.json`), read once when the routes are built, so a running server
serves the descriptions of the code it runs. Their references to the wire schemas are
relative (`wire/time-control.schema.json`), so they resolve over HTTP against
`/specs/openapi.yaml` and `/specs/asyncapi.yaml`; `/openapi.yaml` and `/asyncapi.yaml` are
the same bytes at the conventional addresses, and the schemas are served beside them too
(`/wire/...`), so a tool given either address resolves every reference.

Every answer is public and cacheable for five minutes, with a strong ETag (304 on a match)
and `Access-Control-Allow-Origin: *` so documentation tools running elsewhere may fetch it.
A checkout without the files (an installed wheel ships only the package) answers 404.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs
from quart import Response, request

from playsite.http.errors import Refusal, RouteFamily

SPECS_DIR = Path(__file__).parent / "specs"  # a link to the repository's specs/, packaged as data
YAML = "application/yaml"
SCHEMA_JSON = "application/schema+json"
CACHE_CONTROL = "public, max-age=300"
DOCUMENTS = ("openapi.yaml", "asyncapi.yaml")
SCHEMA_SUFFIX = ".schema.json"


@attrs.frozen
class Document:
    body: bytes
    content_type: str
    etag: str
    """Strong validator: the first 32 hex digits of the body's SHA-256."""


def load_documents(directory: Path = SPECS_DIR) -> dict[str, Document]:
    """Each servable file under `directory`, keyed by its path relative to it."""
    found: dict[str, Document] = {}
    for name in DOCUMENTS:
        path = directory / name
        if path.is_file():
            found[name] = _document(path.read_bytes(), YAML)
    wire = directory / "wire"
    if wire.is_dir():
        for path in sorted(wire.glob(f"*{SCHEMA_SUFFIX}")):
            found[f"wire/{path.name}"] = _document(path.read_bytes(), SCHEMA_JSON)
    return found


def _document(body: bytes, content_type: str) -> Document:
    return Document(body, content_type, hashlib.sha256(body).hexdigest()[:32])


def specs_routes(directory: Path | None = None) -> RouteFamily:
    """The blueprint serving the documents under `directory` (default: the packaged specs/)."""
    documents = load_documents(directory or SPECS_DIR)
    routes = RouteFamily("specs", __name__)

    def serve(key: str) -> Response:
        document = documents.get(key)
        if document is None:
            raise Refusal(404, "not_found", "no such document on this server")
        headers = {
            "Cache-Control": CACHE_CONTROL,
            "ETag": f'"{document.etag}"',
            "Access-Control-Allow-Origin": "*",
        }
        if request.if_none_match.contains_weak(document.etag):
            return Response(b"", status=304, content_type=document.content_type, headers=headers)
        return Response(document.body, status=200, content_type=document.content_type, headers=headers)

    @routes.get("/openapi.yaml")
    @routes.get("/specs/openapi.yaml")
    async def openapi() -> Response:
        return serve("openapi.yaml")

    @routes.get("/asyncapi.yaml")
    @routes.get("/specs/asyncapi.yaml")
    async def asyncapi() -> Response:
        return serve("asyncapi.yaml")

    @routes.get(f"/specs/wire/<name>{SCHEMA_SUFFIX}")
    @routes.get(f"/wire/<name>{SCHEMA_SUFFIX}")
    async def wire_schema(name: str) -> Response:
        return serve(f"wire/{name}{SCHEMA_SUFFIX}")

    return routes
