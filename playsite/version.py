"""What `GET /version` reports: package version and, when known, the git revision."""

from __future__ import annotations

import os
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent


def package_version() -> str:
    try:
        return version("playsite")
    except PackageNotFoundError:
        return "0+unknown"


def git_revision() -> str | None:
    """`PLAYSITE_REVISION` (set by image builds), else the checkout's HEAD, else unknown."""
    if revision := os.environ.get("PLAYSITE_REVISION", "").strip():
        return revision
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=PACKAGE_ROOT,
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = result.stdout.strip()
    return revision if result.returncode == 0 and revision else None
