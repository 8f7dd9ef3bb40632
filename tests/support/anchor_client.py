"""The Bot API client of the ecosystem's CC0 random_bot example (the anchor's polling flow)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


class AnchorFlowClient:
    """Plain urllib, exactly the requests that example sends: JSON bodies with an explicit
    Content-Type, bodiless POSTs, and a refusal's JSON body read as the answer (a 409 is the
    move verdict). `statuses` records (method, path, status) of every request."""

    def __init__(self, base_url: str, timeout_s: float = 30):
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.statuses: list[tuple[str, str, int]] = []

    def __call__(self, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
        request = urllib.request.Request(self.base_url + path, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        data = None
        if body is not None:
            request.add_header("Content-Type", "application/json")
            data = json.dumps(body).encode()
        try:
            with urllib.request.urlopen(request, data=data, timeout=self.timeout_s) as response:
                self.statuses.append((method, path, response.status))
                return json.loads(response.read() or "{}")
        except urllib.error.HTTPError as refused:
            self.statuses.append((method, path, refused.code))
            return json.loads(refused.read() or "{}")

    def call(self, method: str, path: str, token: str | None = None, body: dict | None = None, query: str = "") -> dict:
        return self(method, path + query, token, body)
