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
    _require("hypercorn", installed_hypercorn(), HYPERCORN_SERIES, "HYPERCORN_SERIES", patch)


def installed_quart_trio() -> str:
    return version("quart-trio")


def require_quart_trio(patch: str) -> None:
    """Raise `UnpinnedVersion` unless the installed quart-trio is of QUART_TRIO_SERIES."""
    _require("quart-trio", installed_quart_trio(), QUART_TRIO_SERIES, "QUART_TRIO_SERIES", patch)


def _require(package: str, installed: str, series: str, series_name: str, patch: str) -> None:
    if installed.split(".")[:2] != series.split("."):
        raise UnpinnedVersion(
            f"{patch} relies on {package} {series}.x internals, but {package} {installed} is installed:"
            f" check the patch against it, then move {series_name} (playsite/http/pinned.py) and the pin"
            f" in pyproject.toml together"
        )
