"""Request bodies are JSON as RFC 8259 exchanges it: UTF-8 without a byte order mark, each
object key once. Python's parser also takes UTF-16/UTF-32 and a BOM, and keeps the last of
duplicate keys (another reader may keep the first), so each of those is refused with 400
before any route sees it. Real `playsite serve`."""

from __future__ import annotations

import httpx
import pytest

BODY = '{"timeControl": {"Unlimited": {}}}'


@pytest.mark.parametrize(
    "raw",
    [
        b"\xef\xbb\xbf" + BODY.encode(),
        BODY.encode("utf-16"),
        BODY.encode("utf-16-le"),
        BODY.encode("utf-32"),
        b'{"timeControl": {"Unlimited": {}}, "timeControl": {"Unlimited": {}}}',
        b'{"timeControl": {"Unlimited": {}, "Unlimited": {}}}',
    ],
    ids=["utf8-bom", "utf16-bom", "utf16-le", "utf32", "duplicate-key", "nested-duplicate-key"],
)
def test_a_body_that_is_not_strict_json_is_refused_with_400(serve, raw):
    server = serve()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        refused = http.post("/games", content=raw, headers={"Content-Type": "application/json"})
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == "invalid_request"
        created = http.post("/games", content=BODY.encode(), headers={"Content-Type": "application/json"})
        assert created.status_code == 201, created.text
    assert "Traceback" not in server.output()
