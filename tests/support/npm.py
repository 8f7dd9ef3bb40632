"""The node packages the tests use (the OpenID Connect provider, axe-core): each pinned in its
own folder's package.json and package-lock.json and installed there with `npm ci` on first use
(node_modules is not committed). Several pytest workers may ask at once: the first installs
under a file lock, the others wait for it and then find the package there."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

INSTALL_TIMEOUT_S = 300


def npm_installed(folder: Path, marker: str, needed_by: str) -> Path:
    """`folder`/node_modules/`marker` after `npm ci` in `folder` if it is not there yet; a clear
    failure when npm is missing or the install fails."""
    path = folder / "node_modules" / marker
    if path.exists():
        return path
    with open(folder / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing: wait for it
        if path.exists():
            return path
        if shutil.which("npm") is None:
            raise RuntimeError(f"{needed_by} need npm (Debian: apt-get install nodejs npm)")
        print(f"{needed_by}: installing the pinned packages of {folder.name}/ with npm ci ...", file=sys.stderr, flush=True)
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
        )
        if done.returncode != 0 or not path.exists():
            raise RuntimeError(f"npm ci failed in {folder}:\n{done.stdout}\n{done.stderr}")
    return path
