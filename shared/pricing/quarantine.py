"""A price far from the recent market is held back (stored, flagged, never the market
price) until the market confirms it: the rule for scraped and manual prices alike."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Set
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import select
from sqlmodel import Session, col

from shared.models import PriceObservation

MARKET_GROUPS = {"new": "new", "used": "used", "refurbished": "used"}
FACTOR = Decimal("3")
WINDOW_DAYS = 30
MIN_LISTINGS = 3

MedianKey = tuple[str, str]  # (gpu id, market group)


def recent_medians(
    session: Session,
    keys: Set[MedianKey],
    now: datetime,
    window_days: int = WINDOW_DAYS,
    min_listings: int = MIN_LISTINGS,
) -> dict[MedianKey, Decimal]:
    """Median unit price per (GPU, market group) over the window, each listing counted
    once at its latest price: an asking listing stored on every run must not become
    "the market" by repetition."""
    if not keys:
        return {}
    query = select(
        col(PriceObservation.gpu_id),
        col(PriceObservation.condition),
        col(PriceObservation.price_usd),
        col(PriceObservation.source),
        col(PriceObservation.listing_id),
        col(PriceObservation.observed_at),
    ).where(
        col(PriceObservation.gpu_id).in_(sorted({gpu_id for gpu_id, _ in keys})),
        col(PriceObservation.quarantined).is_(False),
        # A launch MSRP is years old by construction; it says nothing about today's market.
        col(PriceObservation.kind) != "msrp",
        col(PriceObservation.observed_at) >= now - timedelta(days=window_days),
    )
    latest: dict[tuple[MedianKey, str, str], tuple[datetime, Decimal]] = {}
    for row, (gpu_id, condition, usd, source, listing_id, at) in enumerate(session.execute(query)):
        key = (gpu_id, MARKET_GROUPS.get(condition, condition))
        if key not in keys:
            continue
        listing = (key, source, listing_id or f"row:{row}")  # no id: its own listing
        if listing not in latest or at > latest[listing][0]:
            latest[listing] = (at, usd)
    prices: dict[MedianKey, list[Decimal]] = defaultdict(list)
    for (key, _source, _listing), (_at, usd) in latest.items():
        prices[key].append(usd)
    return {
        key: Decimal(statistics.median(values))
        for key, values in prices.items()
        if len(values) >= min_listings
    }


def quarantine_reason(
    price: Decimal, median: Decimal | None, factor: Decimal = FACTOR
) -> str | None:
    """Why `price` is held back against the recent `median`, or None."""
    if median is None or median <= 0:
        return None
    if price > median * factor:
        return "above_median_factor"
    if price < median / factor:
        return "below_median_factor"
    return None
