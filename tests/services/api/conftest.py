"""API clients over real databases: a small controlled market, and the full bundle."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.kit.db import make_engine, migrate, session_scope
from shared.seed import seed_catalog
from tests.clock import TEST_TODAY
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation, plain_settings, recompute

# A month before the suite's today (tests/clock.py): fresh on the clock the tests run on.
# Not datetime.now(): this conftest may be imported before the clock is pinned (when
# pytest is given a path below this directory).
NOW = TEST_TODAY.replace(hour=0) - timedelta(days=30)
MARKET_DAY = NOW.date().isoformat()
# This market's prices are one ask each: it stands for a market in which one ask is a
# price, as a deployment with GPU_ADVISOR_MARKET_MIN_ASKS=1 takes it (the default, 3, is
# tested where thin prices are: tests/shared/pricing/test_siblings.py, test_today.py).
MARKET_SETTINGS = {"market_min_asks": 1}
# gpu id, condition, usd, kind
MARKET = [
    ("rtx-3090", "used", "800", "scraped"),
    ("rtx-3090", "new", "1499", "msrp"),
    ("rtx-4090", "new", "1800", "scraped"),
    ("rtx-3060-12gb", "used", "250", "scraped"),
    ("rtx-3080-10gb", "used", "400", "scraped"),
    ("rtx-a6000", "new", "4500", "scraped"),
    ("a100-80gb-pcie", "new", "15000", "scraped"),
    ("h100-pcie", "new", "25000", "scraped"),
    ("gtx-1080-ti", "used", "200", "scraped"),
    ("tesla-p40", "used", "200", "scraped"),
]


def _load_market(url: str) -> None:
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
        for gpu_id, condition, usd, kind in MARKET:
            session.add(
                make_observation(
                    gpu_id=gpu_id, condition=condition, usd=usd, kind=kind, observed_at=NOW
                )
            )
        session.flush()
        recompute(session, settings=plain_settings(**MARKET_SETTINGS))
    engine.dispose()


@pytest.fixture(scope="module")
def market_client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    directory: Path = tmp_path_factory.mktemp("market")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    _load_market(url)
    settings = make_settings(url, directory, load_bundled_data=False, **MARKET_SETTINGS)
    with TestClient(create_app(settings)) as client:
        yield client
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def bundled_client(
    seeded_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    settings = make_settings(seeded_url, tmp_path_factory.mktemp("bundled"))
    with TestClient(create_app(settings)) as client:
        yield client
