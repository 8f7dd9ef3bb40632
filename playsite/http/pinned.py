"""The hypercorn and quart-trio versions the edge's patches were written for, checked where each is installed.

`wsfail`, `wsbatch` and `cycles` replace private methods of hypercorn's classes, and `asgi`
works around how hypercorn ends an HTTP exchange: each is a contract with one minor version of
hypercorn's internals. pyproject.toml pins that version (`hypercorn>=0.18,<0.19`); installing a
patch on any other version stops the server with a message saying which patch to re-check,
instead of silently patching methods that may have changed or gone. `wsreceive` likewise
subclasses quart-trio's WebSocket connection and reaches into its private parts: quart-trio's
minor version is pinned the same way (`quart-trio>=0.12,<0.13`).
"""

from __future__ import annotations

from importlib.metadata import version

HYPERCORN_SERIES = "0.18"
"""The minor version whose internals the patches were written for (major.minor)."""
QUART_TRIO_SERIES = "0.12"
"""The minor version of quart-trio whose internals `wsreceive` was written for."""


class UnpinnedVersion(RuntimeError):
    """The installed hypercorn or quart-trio is not the version a patch was written for."""


def installed_hypercorn() -> str:
    return version("hypercorn")


def require_hypercorn(patch: str) -> None:
    """Raise `UnpinnedVersion` unless the installed hypercorn is of HYPERCORN_SERIES."""
    installed = installed_hypercorn()
    if installed.split(".")[:2] != HYPERCORN_SERIES.split("."):
        raise UnpinnedVersion(
            f"{patch} patches hypercorn {HYPERCORN_SERIES}.x internals, but hypercorn {installed} is"
            f" installed: check the patch against it, then move HYPERCORN_SERIES (playsite/http/pinned.py)"
            f" and the pin in pyproject.toml together"
        )


def installed_quart_trio() -> str:
    return version("quart-trio")


def require_quart_trio(patch: str) -> None:
    """Raise `UnpinnedVersion` unless the installed quart-trio is of QUART_TRIO_SERIES."""
    installed = installed_quart_trio()
    if installed.split(".")[:2] != QUART_TRIO_SERIES.split("."):
        raise UnpinnedVersion(
            f"{patch} relies on quart-trio {QUART_TRIO_SERIES}.x internals, but quart-trio {installed} is"
            f" installed: check it against them, then move QUART_TRIO_SERIES (playsite/http/pinned.py)"
            f" and the pin in pyproject.toml together"
        )
