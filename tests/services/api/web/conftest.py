"""Clients of the app with the pages and charts, over the controlled market and the bundle."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.db import migrate
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.services.api.conftest import _load_market

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def web_client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    directory: Path = tmp_path_factory.mktemp("web-market")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    _load_market(url)
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(create_app(settings)) as client:
        yield client
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def web_bundled(seeded_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = make_settings(seeded_url, tmp_path_factory.mktemp("web-bundled"))
    with TestClient(create_app(settings)) as client:
        yield client
