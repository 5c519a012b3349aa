"""The TCO arithmetic: the seed's worked example to the dollar and day, and its variations."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from shared.tco.model import TcoInputs, break_even_days, compute_tco

SEED = TcoInputs(
    count=1,
    purchase_usd=Decimal("2200"),
    gpu_watts=350,
    system_watts=100,
    utilization=0.15,
    electricity_usd_per_kwh=Decimal("0.12"),
    pue=1.0,
    years=3,
    resale_pct=0.0,
    cloud_usd_per_hour=Decimal("2.14"),
    spot_interruption_overhead=0.0,
    carbon_kg_per_kwh=0.373,
)


def test_seed_worked_example_to_the_dollar_and_day() -> None:
    result = compute_tco(SEED)
    assert round(result.own_kwh_per_year) == 591
    assert round(result.own_energy_usd_per_year) == 71
    assert result.break_even_days is not None and round(result.break_even_days) == 293
    # Cloud at 15 %: $2.14 x 0.15 x 24 = $7.70 a day.
    assert result.cloud_usd_per_year / 365 == Decimal("7.704")


def test_seed_spot_price_breaks_even_after_about_722_days() -> None:
    days = break_even_days(replace(SEED, cloud_usd_per_hour=Decimal("0.9")))
    assert days is not None and round(days) == 722


def test_resale_lowers_the_capital_and_the_break_even() -> None:
    with_resale = compute_tco(replace(SEED, resale_pct=0.5))
    assert with_resale.own_net_purchase_usd == Decimal("1100.00")
    assert with_resale.break_even_days is not None
    assert round(with_resale.break_even_days) == round(293 / 2)


def test_a_cloud_gpu_twice_as_fast_bills_half_the_hours() -> None:
    base = compute_tco(SEED)
    fast = compute_tco(replace(SEED, cloud_speed=2.0))
    assert fast.cloud_gpu_hours_per_year * 2 == base.cloud_gpu_hours_per_year
    assert fast.cloud_usd_per_work_hour == Decimal("1.07")
    assert base.cloud_usd_per_work_hour == Decimal("2.14")


def test_spot_interruptions_add_hours() -> None:
    spot = compute_tco(
        replace(SEED, cloud_usd_per_hour=Decimal("0.9"), spot_interruption_overhead=0.2)
    )
    assert spot.cloud_gpu_hours_per_year == round(0.15 * 24 * 365 * 1.2, 1)
    assert spot.break_even_days is not None and round(spot.break_even_days) < 722


def test_no_break_even_when_renting_costs_less_than_the_electricity() -> None:
    result = compute_tco(replace(SEED, cloud_usd_per_hour=Decimal("0.01")))
    assert result.break_even_days is None
    assert result.break_even_within_horizon is False
    assert result.cheaper == "rent"


def test_monthly_series_and_energy_and_carbon() -> None:
    result = compute_tco(SEED)
    assert len(result.monthly) == 37
    assert result.monthly[0].own_usd == Decimal("2200.00")
    assert result.monthly[0].cloud_usd == Decimal("0.00")
    assert result.monthly[12].cloud_usd == Decimal("2811.96")
    assert result.own_co2_kg_per_year == round(591.3 * 0.373, 1)
    # Owned: the horizon's cost over the busy hours; 3 years of 15 % is 3,942 hours.
    assert result.own_usd_per_work_hour == Decimal("0.61")
