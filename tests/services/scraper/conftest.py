from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.db import make_engine, migrate
from tests.conftest import _drop_postgres_database, new_database
from tests.conftest import make_settings as make_app_settings
from tests.services.scraper.fixture_server import FixtureServer
from tests.services.scraper.scrape_env import ScrapeEnv, route_all, scraper_settings
from tests.services.scraper.support import WALL_START, FakeClock, make_settings

__all__ = ["WALL_START", "FakeClock", "make_settings"]


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as srv:
        yield srv


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def scrape_env(
    backend: str, tmp_path: Path, server: FixtureServer, clock: FakeClock, monkeypatch
) -> Iterator[ScrapeEnv]:
    """A fresh migrated database, every source routed on the fixture server, and
    recomputes that run inline after each commit against this database."""
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    # The recompute job opens its own session on the default engine: point it here.
    monkeypatch.setattr("shared.db.get_engine", lambda: engine)
    route_all(server)
    settings = make_app_settings(url, tmp_path, inprocess_mode="eager", load_bundled_data=False)
    try:
        yield ScrapeEnv(server, engine, settings, clock, scraper_settings(server))
    finally:
        engine.dispose()
        if pg_name:
            _drop_postgres_database(pg_name)
