"""The price chart's series as a fresh SeriesCache computes them: on PostgreSQL in the
database, on SQLite from the rows; both must equal data.price_series over every row (run
on both backends)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from services.api.charts import data
from services.api.charts.series_cache import SeriesCache
from services.api.charts.service import observations
from shared.seed import seed_catalog
from tests.factories import make_observation

START = datetime(2025, 6, 1, tzinfo=UTC)
GPU = "rtx-3090"


@pytest.fixture
def history(session: Session) -> Session:
    """Random prices over a year (weekly periods), with refurbished, quarantined rows,
    two kinds, three sources and another GPU."""
    seed_catalog(session)
    rng = random.Random(12)
    for _ in range(900):
        session.add(
            make_observation(
                gpu_id=rng.choice((GPU, GPU, GPU, "rtx-4090")),
                condition=rng.choice(("new", "used", "refurbished")),
                kind=rng.choice(("scraped", "scraped", "quote")),
                source=rng.choice(("ebay", "newegg", "test-market")),
                usd=f"{rng.uniform(500, 1500):.2f}",
                quarantined=rng.random() < 0.05,
                observed_at=START + timedelta(seconds=rng.randrange(0, 365 * 86400)),
            )
        )
    session.flush()
    return session


def assert_equal(found: list[data.Series], expected: list[data.Series]) -> None:
    assert [(s.condition, s.source, s.kind) for s in found] == [
        (s.condition, s.source, s.kind) for s in expected
    ]
    for a, b in zip(found, expected, strict=True):
        assert [(x.start, x.n) for x in a.buckets] == [(x.start, x.n) for x in b.buckets]
        for x, y in zip(a.buckets, b.buckets, strict=True):
            assert (x.median, x.low, x.high) == pytest.approx((y.median, y.low, y.high))


@pytest.mark.parametrize(
    ("condition", "since"),
    [
        (None, None),
        ("used", None),
        ("new", START + timedelta(days=200)),
        (None, START + timedelta(days=330)),
    ],
)
def test_the_series_equal_the_ones_computed_from_every_row(history, condition, since):
    expected = data.price_series(observations(history, GPU, condition, since))
    assert expected and sum(s.n for s in expected) > 50
    # A year: weekly periods; a month: daily ones.
    assert data.bucket_days(observations(history, GPU, condition, since)) == (
        1 if since == START + timedelta(days=330) else 7
    )
    found = SeriesCache().get(history, GPU, condition, since)
    assert_equal(found, expected)
    # Refurbished prices are drawn as used; quarantined ones not at all.
    assert {s.condition for s in found} <= {"new", "used"}
