"""Perf per dollar with its uncertainty, from a Score row's price band: one computation for
the ranking (`/recommend`) and the price check's alternatives."""

from __future__ import annotations

from decimal import Decimal

from shared.builds.build import perf_per_dollar
from shared.models import Score


def price_band(score: Score) -> tuple[Decimal, Decimal]:
    """A Score row's 80 % price band; a row without one (written before bands) is its
    price at both ends."""
    low = score.price_band_low if score.price_band_low is not None else score.price_usd
    high = score.price_band_high if score.price_band_high is not None else score.price_usd
    return low, high


def per_dollar_interval(
    performance: tuple[float, float], band: tuple[Decimal, Decimal], count: int, system: Decimal
) -> tuple[float, float]:
    """Perf per dollar at (low performance, high price) and (high performance, low price)
    of `count` GPUs priced in `band` plus the `system` around them."""
    low_perf, high_perf = performance
    band_low, band_high = band
    return (
        perf_per_dollar(low_perf, band_high * count + system),
        perf_per_dollar(high_perf, band_low * count + system),
    )
