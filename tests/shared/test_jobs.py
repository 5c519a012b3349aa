"""The after-commit chain run in-process: price -> scores -> alerts and standard quotes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlmodel import select

from shared.db import get_engine, make_engine, migrate, session_scope
from shared.events import _dispatcher_for, enqueue_after_commit, recompute_call
from shared.models import Score
from shared.pricing.intake import PriceInput, record_price
from shared.quotes.models import Quote
from shared.seed import seed_catalog
from shared.settings import Settings, get_settings
from tests.conftest import _drop_postgres_database, new_database
from tests.factories import make_observation


@pytest.fixture
def eager_db(backend, tmp_path, monkeypatch) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", url)
    monkeypatch.setenv("GPU_ADVISOR_INPROCESS_MODE", "eager")
    for cache in (get_settings, get_engine, _dispatcher_for):
        cache.cache_clear()
    yield url
    for cache in (get_settings, get_engine, _dispatcher_for):
        cache.cache_clear()
    if pg_name:
        _drop_postgres_database(pg_name)


def test_a_committed_price_updates_scores_and_the_standard_quotes_using_it(eager_db):
    engine = make_engine(eager_db)
    with session_scope(engine) as session:
        # A posted quote runs the chain too (its alerts), but never prices a ranking.
        record_price(session, PriceInput("rtx-3090", Decimal("500"), "used", "vendor"), Settings())
    with session_scope(engine) as session:
        assert session.exec(select(Score).where(Score.gpu_id == "rtx-3090")).all() == []
        session.add(make_observation(usd="777", observed_at=datetime.now(UTC)))
        session.flush()
        enqueue_after_commit(session, recompute_call(["rtx-3090"]))
    with session_scope(engine) as session:
        scores = session.exec(select(Score).where(Score.gpu_id == "rtx-3090")).all()
        quote = session.exec(
            select(Quote).where(Quote.standard_key == "4x-rtx-3090-used-workstation")
        ).one()
    engine.dispose()
    assert scores and all(s.price_usd == Decimal("777.00") for s in scores)
    gpu_line = json.loads(quote.result_json)["line_items"][0]
    assert gpu_line["category"] == "gpu" and Decimal(gpu_line["unit_usd"]) == Decimal("777.00")


def test_a_rolled_back_price_enqueues_nothing(eager_db):
    engine = make_engine(eager_db)
    with pytest.raises(RuntimeError), session_scope(engine) as session:
        record_price(session, PriceInput("rtx-3090", Decimal("555"), "used", "vendor"), Settings())
        raise RuntimeError("the request failed after the price was added")
    with session_scope(engine) as session:
        assert session.exec(select(Score)).all() == []
        assert session.exec(select(Quote)).all() == []
    engine.dispose()
