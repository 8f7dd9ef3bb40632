"""The hypercorn patches are a contract with one minor version: pyproject pins it, and each
patch refuses to install on any other version, before patching anything."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.trio.tcp_server import TCPServer

from playsite.http import asgi, cycles, pinned, wsbatch, wsfail

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
        (lambda: asgi.finish_sends(None), lambda: None),
    ],
    ids=["wsfail", "wsbatch", "cycles", "asgi"],
)
def test_a_patch_refuses_another_hypercorn_version_before_patching(monkeypatch, install, patched):
    before = patched()
    monkeypatch.setattr(pinned, "installed_hypercorn", lambda: "0.19.1")
    with pytest.raises(pinned.UnpinnedHypercorn, match=r"hypercorn 0\.18\.x internals, but hypercorn 0\.19\.1"):
        install()
    assert patched() is before
