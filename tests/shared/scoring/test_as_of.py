"""Answers as of a date (shared/scoring/as_of.py) and the one row computation behind them
(shared/scoring/compute.py:score_rows): a day's rows are the recompute's rows over the
prices seen by then; a price observed after the day is never read, in SQL or in Python."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from shared.kit.errors import InputError
from shared.models import PriceObservation, Score
from shared.perfmodel.registry import get_model
from shared.pricing.market import market_price
from shared.pricing.window import market_observations
from shared.scoring.as_of import AsOf, parse_as_of
from shared.scoring.compute import RowKeys, scores_as_of
from shared.seed import seed_catalog
from tests.factories import make_observation, plain_settings, recompute

NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
DAY = (NOW - timedelta(days=20)).date()


@pytest.fixture
def market(session: Session) -> Session:
    """An RTX 3090 used at about $800 a month ago and $500 five days ago (three asks each)."""
    seed_catalog(session)
    for spread in (-10, 0, 10):
        for usd, days in ((800, 30), (500, 5)):
            at = NOW - timedelta(days=days)
            session.add(make_observation(usd=usd + spread, observed_at=at))
        session.add(
            make_observation(
                gpu_id="rtx-4090",
                condition="new",
                usd=1800 + spread,
                observed_at=NOW - timedelta(days=40),
            )
        )
    session.flush()
    return session


def test_the_day_is_checked_against_the_stored_prices(market: Session) -> None:
    assert parse_as_of(market, None, NOW) is None
    as_of = parse_as_of(market, DAY.isoformat(), NOW)
    assert as_of is not None and as_of.day == DAY
    assert as_of.before == datetime(DAY.year, DAY.month, DAY.day, tzinfo=UTC) + timedelta(days=1)
    assert as_of.now == as_of.before  # a past day is aged at its end
    today = parse_as_of(market, NOW.date().isoformat(), NOW)
    assert today is not None and today.now == NOW  # today is aged now, not at midnight
    first = (NOW - timedelta(days=40)).date()
    valid = [f"{first.isoformat()}..{NOW.date().isoformat()}"]
    for text in ("2026-02-30", "20260101", "", (NOW + timedelta(days=1)).date().isoformat()):
        with pytest.raises(InputError) as raised:
            parse_as_of(market, text, NOW)
        assert raised.value.field == "as_of" and raised.value.valid == valid
    with pytest.raises(InputError, match="before the first stored price"):
        parse_as_of(market, (first - timedelta(days=1)).isoformat(), NOW)


def test_nothing_stored_has_no_date(session: Session) -> None:
    with pytest.raises(InputError, match="no prices are stored"):
        parse_as_of(session, NOW.date().isoformat(), NOW)


def test_a_later_price_is_read_neither_in_sql_nor_by_the_market_price(market: Session) -> None:
    as_of = AsOf.of(DAY, NOW)
    policy = as_of.policy(plain_settings())
    rows = market_observations(market, ["rtx-3090"], policy)["rtx-3090"]
    assert rows and all(r.observed_at < as_of.before for r in rows)
    # Handed every stored row, the market price still leaves out the later ones.
    every = list(market.exec(select(PriceObservation)))
    price = market_price([o for o in every if o.gpu_id == "rtx-3090"], "used", policy)
    assert price is not None and price.usd == Decimal("800.00")


def test_rows_as_of_today_are_the_recomputed_rows(market: Session) -> None:
    settings = plain_settings()
    model = get_model()
    recompute(market, settings=settings)
    stored = {
        (s.gpu_id, s.task, s.precision, s.condition): s for s in market.exec(select(Score)).all()
    }
    keys = RowKeys(tasks={"cv", "llm-inference"}, precisions={"fp16"})
    today = scores_as_of(
        market, AsOf.of(NOW.date(), datetime.now(UTC)), model, settings, None, keys
    )
    assert today
    assert {(s.task, s.precision) for s in today} == {("cv", "fp16"), ("llm-inference", "fp16")}
    for row in today:
        kept = stored[(row.gpu_id, row.task, row.precision, row.condition)]
        assert (row.price_usd, row.price_band_low, row.price_band_high) == (
            kept.price_usd,
            kept.price_band_low,
            kept.price_band_high,
        )
        assert row.perf_per_dollar == pytest.approx(kept.perf_per_dollar)
        assert row.id is None and row not in market  # in memory, never added
    past = scores_as_of(market, AsOf.of(DAY, NOW), model, settings, ["rtx-3090"], keys)
    used = [s for s in past if s.condition == "used" and s.task == "cv"]
    assert [s.price_usd for s in used] == [Decimal("800.00000")]
    assert market.exec(select(Score).where(Score.price_usd == Decimal("800"))).first() is None
