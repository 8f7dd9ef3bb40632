"""The hypercorn patches are a contract with one minor version: pyproject pins it, and each
patch refuses to install on any other version, before patching anything."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.trio.tcp_server import TCPServer

from playsite.http import asgi, cycles, pinned, reads, wsbatch, wsfail

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_pyproject_pins_the_minor_version_the_patches_were_written_for():
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    (hypercorn,) = [d for d in dependencies if d.startswith("hypercorn")]
    major, minor = (int(part) for part in pinned.HYPERCORN_SERIES.split("."))
    assert hypercorn == f"hypercorn>={major}.{minor},<{major}.{minor + 1}"


def test_the_installed_hypercorn_is_the_pinned_one():
    pinned.require_hypercorn("the test")
    assert re.match(rf"{re.escape(pinned.HYPERCORN_SERIES)}\.", pinned.installed_hypercorn())


@pytest.mark.parametrize(
    "install, patched",
    [
        (lambda: wsfail.install(1024), lambda: WSStream._handle_events),
        (wsbatch.install, lambda: WSStream.app_send),
        (cycles.install, lambda: TCPServer.run),
        (reads.install, lambda: TCPServer._read_data),
        (lambda: asgi.finish_sends(None), lambda: None),
    ],
    ids=["wsfail", "wsbatch", "cycles", "reads", "asgi"],
)
def test_a_patch_refuses_another_hypercorn_version_before_patching(monkeypatch, install, patched):
    before = patched()
    monkeypatch.setattr(pinned, "installed_hypercorn", lambda: "0.19.1")
    with pytest.raises(pinned.UnpinnedVersion, match=r"hypercorn 0\.18\.x internals, but hypercorn 0\.19\.1"):
        install()
    assert patched() is before


def test_quart_trio_is_pinned_to_the_minor_version_wsreceive_was_written_for():
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    (quart_trio,) = [d for d in dependencies if d.startswith("quart-trio")]
    major, minor = (int(part) for part in pinned.QUART_TRIO_SERIES.split("."))
    assert quart_trio == f"quart-trio>={major}.{minor},<{major}.{minor + 1}"
    pinned.require_quart_trio("the test")
    assert re.match(rf"{re.escape(pinned.QUART_TRIO_SERIES)}\.", pinned.installed_quart_trio())


def test_the_direct_receive_refuses_another_quart_trio_version_before_changing_the_app(monkeypatch):
    from quart_trio import QuartTrio

    from playsite.http import wsreceive

    app = QuartTrio("pinned")
    before = app.asgi_websocket_class
    monkeypatch.setattr(pinned, "installed_quart_trio", lambda: "0.13.0")
    with pytest.raises(pinned.UnpinnedVersion, match=r"quart-trio 0\.12\.x internals, but quart-trio 0\.13\.0"):
        wsreceive.use_direct_receive(app)
    assert app.asgi_websocket_class is before
