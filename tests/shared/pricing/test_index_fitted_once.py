"""The market index is fitted once per change of the market: concurrent callers share
one fit, a new process reads the stored fit, and only rows the index reads move it."""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, select

from shared.kit.db import make_engine, migrate, session_scope
from shared.pricing import index as index_module
from shared.pricing import index_store
from shared.pricing.index import INDEXES, MarketIndex, MonthlyPoint, load_points, market_index
from shared.pricing.models import IndexFit
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, new_database
from tests.factories import make_observation, monthly_sales

NOW = datetime.now(UTC)


def _market(session: Session) -> None:
    seed_catalog(session)
    monthly_sales(session, "rtx-4090", 1500, 0.02, 12, NOW)
    monthly_sales(session, "rtx-3080-10gb", 400, 0.02, 12, NOW)


@pytest.fixture
def market_db(backend: str, tmp_path: Path) -> Iterator[Engine]:
    """A database of its own with a committed market (the stored fit is committed data,
    shared by every connection, so these tests cannot run in a rolled-back session)."""
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        _market(session)
    INDEXES.clear()
    yield engine
    INDEXES.clear()
    engine.dispose()
    if pg_name:
        _drop_postgres_database(pg_name)


class FitCounter:
    """Counts calls of the real `build_index`; `hold_s` keeps the first fit open so
    callers arriving meanwhile would fit too unless they wait for it."""

    def __init__(self, hold_s: float = 0.0) -> None:
        self.fits = 0
        self._real = index_module.build_index
        self._lock = threading.Lock()
        self._second = threading.Event()
        self._hold_s = hold_s

    def __call__(self, *args: Any, **kwargs: Any) -> MarketIndex:
        with self._lock:
            self.fits += 1
            first = self.fits == 1
        if first:
            self._second.wait(self._hold_s)
        else:
            self._second.set()
        return self._real(*args, **kwargs)


def _count_fits(monkeypatch: pytest.MonkeyPatch, hold_s: float = 0.0) -> FitCounter:
    counter = FitCounter(hold_s)
    monkeypatch.setattr(index_module, "build_index", counter)
    return counter


def _add_sale(engine: Engine, usd: str, **overrides: Any) -> None:
    """A committed sale: a row the index reads (one ask alone is not a market point)."""
    with session_scope(engine) as session:
        session.add(
            make_observation(
                gpu_id="rtx-4090", usd=usd, observed_at=NOW, measure="sale", **overrides
            )
        )


def _stored(engine: Engine) -> dict[str, str]:
    index_store.wait_saved()
    with Session(engine) as session:
        return {row.name: row.revision for row in session.exec(select(IndexFit))}


def _in_threads(engine: Engine, n: int, call: Callable[[Session], MarketIndex]) -> list[Any]:
    start = threading.Barrier(n)
    results: list[Any] = [None] * n

    def run(i: int) -> None:
        with Session(engine) as session:
            start.wait()
            try:
                results[i] = call(session)
            except Exception as exc:  # reported by the assertion below
                results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_concurrent_callers_after_a_new_price_share_one_fit(
    market_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(market_db) as session:
        before = market_index(session)
    _add_sale(market_db, "1900")
    counter = _count_fits(monkeypatch, hold_s=0.5)
    results = _in_threads(market_db, 6, market_index)
    assert counter.fits == 1
    assert all(result is results[0] for result in results), results
    assert isinstance(results[0], MarketIndex) and results[0] is not before


def test_a_new_process_reads_the_stored_fit_until_the_market_moves(
    market_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(market_db) as session:
        first = market_index(session)
    stored = _stored(market_db)
    assert set(stored) == {"market:3"}
    INDEXES.clear()  # what a new process starts with
    counter = _count_fits(monkeypatch)
    with Session(market_db) as session:
        loaded = market_index(session)
    assert counter.fits == 0
    assert loaded == first and loaded is not first
    _add_sale(market_db, "1900")
    with Session(market_db) as session:
        moved = market_index(session)
    assert counter.fits == 1 and moved is not loaded
    assert _stored(market_db)["market:3"] != stored["market:3"]


def test_a_fit_of_other_fitting_code_is_never_read(
    market_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(market_db) as session:
        market_index(session)
    revision = _stored(market_db)["market:3"]
    INDEXES.clear()
    monkeypatch.setattr(index_store, "FIT_VERSION", index_store.FIT_VERSION + 1)
    index_store.code_digest.cache_clear()
    try:
        counter = _count_fits(monkeypatch)
        with Session(market_db) as session:
            market_index(session)
        assert counter.fits == 1
        assert _stored(market_db)["market:3"] != revision
    finally:
        index_store.code_digest.cache_clear()


def test_a_stored_fit_the_classes_cannot_read_is_refitted_and_replaced(
    market_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(market_db) as session:
        first = market_index(session)
    # As if written by code whose MarketIndex had another field (under the same revision).
    unreadable = {"__dataclass__": "MarketIndex", "fields": {"no_such_field": 1}}
    body = zlib.compress(json.dumps(unreadable).encode())
    index_store.wait_saved()
    with market_db.begin() as connection:
        connection.execute(text("UPDATE index_fit SET body = :body"), {"body": body})
    INDEXES.clear()
    counter = _count_fits(monkeypatch)
    with Session(market_db) as session:
        refitted = market_index(session)
    assert counter.fits == 1 and refitted == first
    index_store.wait_saved()
    INDEXES.clear()
    with Session(market_db) as session:
        assert market_index(session) == first
    assert counter.fits == 1


def test_a_fit_of_uncommitted_prices_is_used_but_not_stored(
    market_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(market_db) as session:
        committed = market_index(session)
    stored = _stored(market_db)
    counter = _count_fits(monkeypatch)
    with Session(market_db) as session:
        session.add(make_observation(gpu_id="rtx-4090", usd="1900", observed_at=NOW))
        session.flush()
        assert market_index(session) is not committed
        session.rollback()
    assert counter.fits == 1
    assert _stored(market_db) == stored
    with Session(market_db) as session:
        assert market_index(session) is committed


def _watermark_and_points(
    session: Session,
) -> tuple[tuple[object, ...], list[MonthlyPoint]]:
    points = sorted(load_points(session), key=repr)
    return index_module._market_watermark(session), points


@pytest.mark.parametrize(
    "row",
    [
        {"kind": "manual", "measure": "quote", "source": "vendor quote"},
        {"kind": "manual", "measure": "sale", "source": "vendor quote"},
        {"measure": "bid"},
        {"measure": "list_price", "kind": "msrp"},
        {"quarantined": True},
    ],
    ids=["quote", "manual-sale", "bid", "list-price", "quarantined"],
)
def test_a_row_the_index_does_not_read_leaves_it_in_use(
    session: Session, row: dict[str, Any]
) -> None:
    _market(session)
    session.flush()
    INDEXES.clear()
    fitted = market_index(session)
    before = _watermark_and_points(session)
    session.add(make_observation(gpu_id="rtx-4090", usd="1234", observed_at=NOW, **row))
    session.flush()
    assert _watermark_and_points(session) == before
    assert market_index(session) is fitted


def test_a_market_price_or_a_quarantine_flag_moves_the_index(session: Session) -> None:
    _market(session)
    session.flush()
    INDEXES.clear()
    fitted = market_index(session)
    watermark, points = _watermark_and_points(session)
    sale = make_observation(gpu_id="rtx-4090", usd="1900", observed_at=NOW, measure="sale")
    session.add(sale)
    session.flush()
    moved_watermark, moved_points = _watermark_and_points(session)
    assert moved_watermark != watermark and moved_points != points
    moved = market_index(session)
    assert moved is not fitted
    sale.quarantined = True
    session.add(sale)
    session.flush()
    assert _watermark_and_points(session) == (watermark, points)
    assert market_index(session) is not moved
