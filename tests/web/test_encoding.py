"""Pages and assets go gzipped to a browser that accepts it, plain to anyone else, and caches
are told the two apart."""

from __future__ import annotations

import gzip

import pytest

from playsite.http.encoding import GZIP_MIN_BYTES, StaticBody, accepts_gzip
from playsite.web.routes import Assets
from tests.support.app import booted, test_client


@pytest.mark.parametrize(("header", "admitted"), [
    ("gzip, deflate, br", True), ("br;q=1.0, gzip;q=0.8, *;q=0.1", True), ("GZIP", True), ("x-gzip", True),
    ("*", True), ("", False), ("identity", False), ("br", False), ("gzip;q=0", False), ("gzip;q=0.0, *", False),
    ("*;q=0", False), ("*, gzip;q=0", False), ("gzip;q=bad", False), ("deflate, *;q=0.5", True),
])
def test_accept_encoding_is_read_with_its_weights(header, admitted):
    assert accepts_gzip(header) is admitted


def test_a_body_is_gzipped_once_and_the_same_every_start_unless_too_small_to_gain():
    text = ("dice chess " * 200).encode()
    first, again = StaticBody.of(text), StaticBody.of(text)
    assert first.gzipped is not None and first.gzipped == again.gzipped  # no timestamp inside
    assert gzip.decompress(first.gzipped) == text and len(first.gzipped) < len(text) / 4
    assert StaticBody.of(b"x" * (GZIP_MIN_BYTES - 1)).gzipped is None


async def test_pages_and_assets_are_gzipped_for_a_browser_and_plain_for_others():
    async with booted() as services:
        client = test_client(services)
        play_js = f"/assets/{Assets().names['play.js']}"
        for path in ("/", "/ranking", play_js, "/no-such-page"):
            plain = await client.get(path)
            packed = await client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
            assert plain.status_code == packed.status_code and plain.status_code in (200, 404), path
            assert "Content-Encoding" not in plain.headers, path
            assert packed.headers["Content-Encoding"] == "gzip", path
            assert "Accept-Encoding" in plain.headers["Vary"] and "Accept-Encoding" in packed.headers["Vary"], path
            body = await packed.get_data()
            assert gzip.decompress(body) == await plain.get_data(), path
            assert len(body) < len(await plain.get_data()) / (3 if path == play_js else 1), path
            assert packed.headers["Cache-Control"] == plain.headers["Cache-Control"], path
