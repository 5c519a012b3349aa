"""A small, controlled price history for the prices and sources endpoints."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from services.api.app import create_app
from services.api.prices.router import router as prices_router
from services.api.sources.router import router as sources_router
from shared.kit.db import make_engine, migrate
from shared.kit.settings import Settings
from shared.seed import seed_catalog
from shared.sources.status import SourceStatus
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation

RUN1 = datetime(2026, 11, 1, 12, tzinfo=UTC)
RUN2 = RUN1 + timedelta(hours=6)
HOUR = 3600


def load(engine: Engine) -> None:
    with Session(engine) as session:
        seed_catalog(session)
        ebay = {"gpu_id": "rtx-3090", "source": "ebay", "condition": "used"}
        session.add_all(
            [
                # Listing A seen by both runs, B only by the first: B is a probable sale.
                make_observation(**ebay, listing_id="A", usd="820", observed_at=RUN1),
                make_observation(**ebay, listing_id="A", usd="800", observed_at=RUN2),
                make_observation(**ebay, listing_id="B", usd="760", observed_at=RUN1),
                make_observation(
                    gpu_id="rtx-3090",
                    source="ebay:sold",
                    listing_id="C",
                    usd="700",
                    observed_at=RUN1 - timedelta(days=1),
                ),
                make_observation(
                    **ebay, listing_id="Q", usd="5000", observed_at=RUN2, quarantined=True
                ),
                make_observation(
                    gpu_id="rtx-3090",
                    source="newegg",
                    condition="refurbished",
                    listing_id="R",
                    usd="900",
                    observed_at=RUN2,
                ),
                make_observation(
                    gpu_id="rtx-3090",
                    source="bhphoto",
                    condition="new",
                    listing_id="N",
                    usd="1500",
                    observed_at=RUN2,
                ),
            ]
        )
        session.add_all(
            [
                SourceStatus(
                    name="ebay",
                    interval_s=6 * HOUR,
                    last_run_at=RUN2,
                    last_success_at=RUN2,
                    last_summary='{"pages": 2, "stored": 3}',
                ),
                SourceStatus(
                    name="bhphoto",
                    interval_s=12 * HOUR,
                    last_run_at=RUN2 + timedelta(days=2),
                    last_success_at=RUN2,
                    last_error_at=RUN2 + timedelta(days=2),
                    last_parse_failure_at=RUN2 + timedelta(days=2),
                    last_error="LayoutChanged: bhphoto: no JSON-LD products",
                    consecutive_failures=4,
                    stale=True,
                ),
            ]
        )
        session.commit()


def app_with_routers(settings: Settings) -> FastAPI:
    """The real app plus the routers the lead registers in create_app."""
    app = create_app(settings)
    app.include_router(sources_router)
    app.include_router(prices_router)
    return app


@contextmanager
def loaded_client(backend: str, directory: Path) -> Iterator[TestClient]:
    """A client of the prices and sources routers over a new database holding `load`'s
    history (dropped afterwards on PostgreSQL)."""
    url, pg_name = new_database(backend, directory)
    migrate(url)
    engine = make_engine(url)
    load(engine)
    engine.dispose()
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(app_with_routers(settings)) as client:
        yield client
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def history_client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with loaded_client(backend, tmp_path_factory.mktemp("history")) as client:
        yield client
