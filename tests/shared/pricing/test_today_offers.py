"""The recompute reads only cloud offers young enough to be current, with the same result."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, select

from shared.models import CloudOffer
from shared.pricing.cloud import PRICINGS, Currency, cheapest_of
from shared.pricing.today import _current_offers
from shared.seed import seed_catalog

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
GPU = "h100-sxm5"


def offer(at: datetime, usd: str, provider: str = "testcloud", region: str = "r1") -> CloudOffer:
    return CloudOffer(
        provider=provider,
        instance_type=f"8x-{GPU}",
        gpu_id=GPU,
        gpu_count=8,
        region=region,
        on_demand_usd_per_hour=Decimal(usd),
        spot_usd_per_hour=Decimal(usd) / 2,
        kind="scraped",
        source="testcloud price list",
        observed_at=at,
        measure="list",
    )


def test_offers_older_than_the_stale_age_are_not_read_and_prices_stay(session: Session) -> None:
    seed_catalog(session)
    currency = Currency(NOW, window_days=7, stale_days=90)
    boundary = NOW - timedelta(days=90)
    session.add_all(
        [
            offer(NOW - timedelta(days=1), "30"),
            offer(NOW - timedelta(days=5), "20"),
            # A provider whose newest list is exactly at the stale age: still current.
            offer(boundary, "10", provider="edge"),
            offer(boundary - timedelta(microseconds=1), "5", provider="old"),
            offer(NOW - timedelta(days=400), "1", provider="old", region="r2"),
        ]
    )
    session.flush()
    read = _current_offers(session, [GPU], currency)[GPU]
    assert sorted(o.provider for o in read) == ["edge", "testcloud", "testcloud"]
    every = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == GPU)).all()
    for pricing in PRICINGS:
        assert cheapest_of(read, pricing, currency) == cheapest_of(every, pricing, currency)
    assert cheapest_of(read, "on-demand", currency).provider == "edge"  # type: ignore[union-attr]
