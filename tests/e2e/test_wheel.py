"""The built wheel, installed apart from the checkout, is the whole service: it applies every
migration and serves every API description (the checkout's symlinks are packaged as data)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import psycopg
import pytest

from playsite.specs_routes import load_documents
from playsite.store.migrations import load_migrations
from tests.support.server import ServerProcess

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel built from this checkout, installed (without dependencies) into its own directory."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    [wheel] = (work / "dist").glob("playsite-*.whl")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(work / "site"), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )
    return work / "site"


def from_the_wheel(site: Path) -> dict[str, str]:
    """Environment whose `import playsite` finds the installed wheel, never the checkout."""
    return {**os.environ, "PYTHONPATH": str(site)}


def test_the_installed_wheel_is_not_the_checkout(installed):
    where = subprocess.run(
        [sys.executable, "-c", "import playsite; print(playsite.__file__)"],
        env=from_the_wheel(installed), cwd=installed, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed)


def test_the_installed_wheel_migrates_and_serves_every_spec_document(installed, database_url):
    migrate = subprocess.run(
        [sys.executable, "-m", "playsite", "migrate"], env={**from_the_wheel(installed), "DATABASE_URL": database_url},
        cwd=installed, capture_output=True, text=True, timeout=120,
    )
    assert migrate.returncode == 0, migrate.stderr
    with psycopg.connect(database_url) as conn:
        applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations").fetchall()}
    assert applied == {m.version for m in load_migrations()}
    server = ServerProcess({"PYTHONPATH": str(installed), "DATABASE_URL": database_url}, cwd=installed).start()
    try:
        documents = load_documents()
        assert {"openapi.yaml", "asyncapi.yaml"} <= documents.keys()
        with httpx.Client(base_url=server.base_url, timeout=10) as http:
            for key, document in documents.items():
                response = http.get(f"/specs/{key}")
                assert response.status_code == 200 and response.content == document.body, key
    finally:
        server.close()
