from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.kit.db import migrate
from shared.wiring.runtime import close_context, open_context
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
    route_all(server)
    settings = make_app_settings(url, tmp_path, inprocess_mode="eager", load_bundled_data=False)
    # Recomputes the scrape enqueues run inline, on this context's database.
    ctx = open_context(settings)
    try:
        yield ScrapeEnv(server, ctx, clock, scraper_settings(server))
    finally:
        close_context(ctx)
        if pg_name:
            _drop_postgres_database(pg_name)
