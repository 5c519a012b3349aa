"""The market price of a GPU in a condition, from stored observations.

The newest observation sets the date; all non-quarantined observations of the same
kind within `window_days` before it form the price (their median), so one odd listing
does not set the price and an old MSRP never outranks a newer market price.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from shared.models import PriceObservation

# "used" covers refurbished cards too: both are second-hand market prices.
CONDITION_GROUPS: dict[str, tuple[str, ...]] = {
    "new": ("new",),
    "used": ("used", "refurbished"),
}


@dataclass(frozen=True, slots=True)
class MarketPrice:
    gpu_id: str
    condition: str
    usd: Decimal
    kind: str
    source: str
    observed_at: datetime
    n: int
    low_usd: Decimal
    high_usd: Decimal
    method: str


def market_price(
    observations: Sequence[PriceObservation], condition: str, window_days: int
) -> MarketPrice | None:
    """Median of the newest window of observations; None when there are none."""
    usable = [
        o for o in observations if o.condition in CONDITION_GROUPS[condition] and not o.quarantined
    ]
    if not usable:
        return None
    newest = max(usable, key=lambda o: o.observed_at)
    since = newest.observed_at - timedelta(days=window_days)
    window = [o for o in usable if o.kind == newest.kind and o.observed_at >= since]
    prices = sorted(o.price_usd for o in window)
    median = Decimal(statistics.median(prices)).quantize(Decimal("0.01"))
    return MarketPrice(
        gpu_id=newest.gpu_id,
        condition=condition,
        usd=median,
        kind=newest.kind,
        source=_describe_sources(o.source for o in window),
        observed_at=newest.observed_at,
        n=len(window),
        low_usd=prices[0],
        high_usd=prices[-1],
        method=_describe_method(len(window), window_days),
    )


def _describe_sources(sources: Iterable[str]) -> str:
    unique = sorted(set(sources))
    return unique[0] if len(unique) == 1 else "; ".join(unique)


def _describe_method(n: int, window_days: int) -> str:
    if n == 1:
        return "single observation"
    return f"median of {n} observations within {window_days} days of the newest"


def cheapest(prices: Iterable[MarketPrice | None]) -> MarketPrice | None:
    found = [p for p in prices if p is not None]
    return min(found, key=lambda p: p.usd) if found else None
