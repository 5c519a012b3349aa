"""Clients of the app with the pages and charts, over the controlled market and the bundle."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from tests.conftest import make_settings

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def web_client(market_client: TestClient) -> TestClient:
    """The small controlled market of tests/services/api/conftest.py."""
    return market_client


@pytest.fixture(scope="module")
def web_bundled(seeded_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = make_settings(seeded_url, tmp_path_factory.mktemp("web-bundled"))
    with TestClient(create_app(settings)) as client:
        yield client
