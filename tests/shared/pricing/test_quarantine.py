"""The quarantine reference reads only the columns it needs, with the same medians."""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, col, select

from shared.models import PriceObservation
from shared.pricing.quarantine import (
    MARKET_GROUPS,
    MedianKey,
    QuarantineRules,
    recent_medians,
    references,
)
from shared.seed import seed_catalog
from tests.factories import make_observation

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
GPUS = ("rtx-3090", "rtx-4090")
KEYS = {(gpu, group) for gpu in GPUS for group in ("new", "used")}


def medians_from_whole_rows(
    session: Session, keys: set[MedianKey], rules: QuarantineRules
) -> dict[MedianKey, Decimal]:
    """The rule as it read before: whole ORM rows, filtered the same way."""
    since = NOW - timedelta(days=rules.window_days)
    rows = session.exec(
        select(PriceObservation).where(
            col(PriceObservation.gpu_id).in_(sorted({g for g, _ in keys})),
            col(PriceObservation.quarantined).is_(False),
            col(PriceObservation.kind) != "manual",
            col(PriceObservation.observed_at) >= since,
        )
    ).all()
    latest: dict[tuple[MedianKey, str, str], tuple[datetime, Decimal]] = {}
    for row, o in enumerate(rows):
        key = (o.gpu_id, MARKET_GROUPS.get(o.condition, o.condition))
        if key not in keys or o.measure == "list_price":
            continue
        listing = (key, o.source, o.listing_id or f"row:{row}")
        if listing not in latest or o.observed_at > latest[listing][0]:
            latest[listing] = (o.observed_at, o.price_usd)
    prices: dict[MedianKey, list[Decimal]] = defaultdict(list)
    for (key, _s, _l), (_at, usd) in latest.items():
        prices[key].append(usd)
    return {k: Decimal(statistics.median(v)) for k, v in prices.items() if len(v) >= rules.min_n}


def test_recent_medians_match_the_whole_row_rule(session: Session) -> None:
    seed_catalog(session)
    rules = QuarantineRules(window_days=30, min_n=3)
    since = NOW - timedelta(days=30)
    rng = random.Random(3)
    for i in range(300):
        # At the window's first instant, just before it, long before, or within it.
        at = rng.choice([since, since - timedelta(microseconds=1), NOW - timedelta(days=40)])
        listing: str | None = f"edge-{i}"
        if rng.random() < 0.7:
            at = NOW - timedelta(days=rng.uniform(0, 29), microseconds=i)
            listing = rng.choice([None, f"l{rng.randint(0, 60)}"])
        session.add(
            make_observation(
                gpu_id=rng.choice(GPUS),
                condition=rng.choice(["new", "used", "refurbished"]),
                usd=Decimal(rng.randint(200, 2000)),
                kind=rng.choice(["scraped", "scraped", "snapshot", "manual"]),
                source=rng.choice(["ebay", "newegg"]),
                listing_id=listing,
                observed_at=at,
                quarantined=rng.random() < 0.05,
                measure=rng.choice(["ask", "ask", "sale", "list_price"]),
            )
        )
    session.flush()
    found = recent_medians(session, KEYS, NOW, rules)
    assert found == medians_from_whole_rows(session, KEYS, rules)
    assert len(found) == len(KEYS)
    assert references(session, KEYS, NOW, rules) == found
