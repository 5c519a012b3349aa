"""The default resale estimate: tiers, comparable cards and the geometric fit."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from shared.catalog.specs import load_catalog
from shared.tco.resale import (
    MAX_ANNUAL_RETENTION,
    comparable_cards,
    fit_annual_retention,
    retention_points,
    tier,
)
from tests.factories import make_observation


def test_tier_is_the_class_within_the_generation() -> None:
    catalog = load_catalog()
    assert tier(catalog.by_id["rtx-4090"]) == "90"
    assert tier(catalog.by_id["rtx-3080-ti"]) == "80"
    assert tier(catalog.by_id["rtx-a6000"]) is None


def test_comparable_cards_are_older_and_of_the_same_tier() -> None:
    catalog = load_catalog()
    cards, how = comparable_cards(catalog.by_id["rtx-4090"], catalog)
    assert {c.id for c in cards} == {"rtx-3090", "rtx-3090-ti"}
    assert "xx90" in how
    pooled, how = comparable_cards(catalog.by_id["rtx-a6000"], catalog)
    assert "pooled" in how and all(
        c.release_date < catalog.by_id["rtx-a6000"].release_date for c in pooled
    )


def test_geometric_fit_recovers_the_yearly_retention() -> None:
    points = [(age, 0.8**age) for age in (1.0, 2.0, 3.0)]
    retention = fit_annual_retention(points)
    assert retention is not None and math.isclose(retention, 0.8)
    assert fit_annual_retention([(1.0, 1.5)]) == MAX_ANNUAL_RETENTION
    assert fit_annual_retention([]) is None


def test_points_skip_the_mining_boom_and_use_monthly_medians() -> None:
    card = load_catalog().by_id["rtx-3090"]  # $1,499 at launch, 2020-09-01
    observations = [
        make_observation(usd="2900", observed_at=datetime(2021, 11, 30, tzinfo=UTC)),
        make_observation(usd="700", observed_at=datetime(2023, 9, 1, tzinfo=UTC)),
        make_observation(usd="800", observed_at=datetime(2023, 9, 20, tzinfo=UTC)),
    ]
    points = retention_points([card], observations)
    assert len(points) == 1
    age, retention = points[0]
    assert math.isclose(retention, 750 / 1499)
    assert 2.9 < age < 3.1
