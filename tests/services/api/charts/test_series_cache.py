"""SeriesCache: after new prices only their periods are redone, and the answer always
equals the series computed from every row (both backends)."""

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
from tests.services.api.charts.test_series import assert_equal

START = datetime(2026, 1, 5, tzinfo=UTC)
GPU = "rtx-3090"


def _add(session: Session, rng: random.Random, when: datetime, gpu_id: str = GPU) -> None:
    session.add(
        make_observation(
            gpu_id=gpu_id,
            condition=rng.choice(("new", "used", "refurbished")),
            kind=rng.choice(("scraped", "quote")),
            source=rng.choice(("ebay", "newegg")),
            usd=f"{rng.uniform(500, 1500):.2f}",
            quarantined=rng.random() < 0.05,
            observed_at=when,
        )
    )


@pytest.fixture
def history(session: Session) -> Session:
    seed_catalog(session)
    rng = random.Random(3)
    for _ in range(400):
        _add(session, rng, START + timedelta(seconds=rng.randrange(0, 200 * 86400)))
    session.flush()
    return session


class _Counting(SeriesCache):
    """Counts the full computations."""

    fulls = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[_Counting]:
    from services.api.charts import series_cache

    real = series_cache._full

    def full(*args, **kwargs):
        _Counting.fulls += 1
        return real(*args, **kwargs)

    _Counting.fulls = 0
    monkeypatch.setattr(series_cache, "_full", full)
    return _Counting


@pytest.mark.parametrize("condition", [None, "used"])
def test_new_prices_redo_only_their_periods_and_match_every_row(history, counted, condition):
    rng = random.Random(7)
    cache = counted()
    assert_equal(cache.get(history, GPU, condition), _every_row(history, condition))
    assert counted.fulls == 1
    end = START + timedelta(days=200)
    for _step in range(12):
        # Mostly prices of now; some back-dated inside the span; other GPUs' prices.
        for _ in range(rng.randrange(1, 6)):
            back = rng.random() < 0.3
            when = end - timedelta(days=rng.uniform(0, 150) if back else 0)
            _add(history, rng, when, GPU if rng.random() < 0.8 else "rtx-4090")
        end += timedelta(hours=6)
        history.flush()
        assert_equal(cache.get(history, GPU, condition), _every_row(history, condition))
    # Weekly periods throughout, every price inside the first period's start: no full redo.
    assert counted.fulls == 1


@pytest.mark.parametrize("condition", [None, "used"])
def test_updated_series_equal_a_full_computation_exactly(history, monkeypatch, condition):
    """A redone period is aggregated from its prices held in the cache as the database
    aggregates it (PostgreSQL's percentile_cont, or Python's median): an updated series
    equals a fresh cache's float for float, and no update aggregates in SQL."""
    from services.api.charts import service

    aggregated: list[object] = []

    def periods(*args, **kwargs):
        aggregated.append(args)
        return service.periods(*args, **kwargs)

    monkeypatch.setattr("services.api.charts.series_cache.periods", periods)
    rng = random.Random(17)
    cache = SeriesCache()
    cache.get(history, GPU, condition)
    end = START + timedelta(days=200)
    for _step in range(15):
        # Prices of now (the held last periods), and back-dated ones into older periods
        # (their prices are read again from there on).
        for _ in range(rng.randrange(1, 8)):
            back = rng.uniform(0, 150) if rng.random() < 0.2 else rng.uniform(0, 0.2)
            history.add(
                make_observation(
                    gpu_id=GPU,
                    condition=rng.choice(("new", "used", "refurbished")),
                    source=rng.choice(("ebay", "newegg")),
                    # Cents over a wide range: for one pair in seven, the two medians of
                    # an even count ((a + b) / 2 and a + (b - a) / 2) differ in a bit.
                    usd=f"{rng.uniform(1, 30000):.2f}",
                    observed_at=end - timedelta(days=back),
                )
            )
        end += timedelta(hours=6)
        history.flush()
        assert cache.get(history, GPU, condition) == SeriesCache().get(history, GPU, condition)
    assert len(aggregated) == 1 + 15  # the first computation, then each fresh cache's


def test_a_price_before_the_first_or_longer_periods_redo_everything(history, counted):
    rng = random.Random(11)
    cache = counted()
    cache.get(history, GPU)
    _add(history, rng, START - timedelta(days=3))
    history.flush()
    assert_equal(cache.get(history, GPU), _every_row(history, None))
    assert counted.fulls == 2
    # 200 days in weekly periods; past 160 weeks of span the periods become fortnights.
    _add(history, rng, START + timedelta(days=7 * 170))
    history.flush()
    assert data.bucket_days(observations(history, GPU)) == 14
    assert_equal(cache.get(history, GPU), _every_row(history, None))
    assert counted.fulls == 3


def test_an_old_entry_is_computed_again(history, counted):
    cache = counted(ttl_s=0.0)
    cache.get(history, GPU)
    _add(history, random.Random(1), START + timedelta(days=100))
    history.flush()
    assert_equal(cache.get(history, GPU), _every_row(history, None))
    assert counted.fulls == 2


def test_no_prices_no_series(history):
    assert SeriesCache().get(history, "h100-sxm5") == []


def _every_row(session: Session, condition: str | None) -> list[data.Series]:
    return data.price_series(observations(session, GPU, condition))
