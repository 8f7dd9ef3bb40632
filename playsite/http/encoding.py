"""Static bodies (the web client's pages and assets), compressed once at startup.

Every page and asset is text that never changes while the process runs, so each is gzipped
once, when it is read, and sent so to a browser that accepts it (`Accept-Encoding`), with
`Vary: Accept-Encoding` on both forms so a cache keeps them apart. The play page's first load
is about a third of its plain size that way. A body too small to gain is sent as it is.
"""

from __future__ import annotations

import gzip

import attrs
from quart import Response, request

GZIP_MIN_BYTES = 512
"""Below this a body is sent plain: its gzip would save less than a packet."""


@attrs.frozen
class StaticBody:
    plain: bytes
    gzipped: bytes | None
    """None where compressing saves nothing worth having."""

    @classmethod
    def of(cls, body: bytes) -> StaticBody:
        if len(body) < GZIP_MIN_BYTES:
            return cls(body, None)
        packed = gzip.compress(body, compresslevel=9, mtime=0)  # mtime 0: the same bytes every start
        return cls(body, packed if len(packed) < len(body) else None)


def accepts_gzip(header: str) -> bool:
    """Whether an `Accept-Encoding` header admits gzip (`gzip`, `x-gzip` or `*`, not at q=0)."""
    admitted = None
    for part in header.split(","):
        coding, *parameters = (piece.strip() for piece in part.split(";"))
        coding = coding.lower()
        if coding not in ("gzip", "x-gzip", "*"):
            continue
        weight = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if coding == "*":
            admitted = weight > 0 if admitted is None else admitted
        else:
            return weight > 0  # gzip named itself: that weight decides, whatever `*` says
    return bool(admitted)


def static_response(body: StaticBody, *, content_type: str, headers: dict[str, str], status: int = 200) -> Response:
    """`body` gzipped when the request accepts it, else plain; the same headers either way."""
    sent = dict(headers)
    sent["Vary"] = ", ".join(filter(None, (sent.get("Vary"), "Accept-Encoding")))
    data = body.plain
    if body.gzipped is not None and accepts_gzip(request.headers.get("Accept-Encoding", "")):
        sent["Content-Encoding"] = "gzip"
        data = body.gzipped
    return Response(data, status=status, content_type=content_type, headers=sent)
