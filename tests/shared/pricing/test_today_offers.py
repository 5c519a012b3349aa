"""The recompute reads only cloud offers young enough to be current, with the same result."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, select

from shared.models import CloudOffer
from shared.pricing.cloud import PRICINGS, Currency, cheapest_of, newest_offer
from shared.pricing.today import TodayPrice, Unpriced, _current_offers, rented_today
from shared.seed import seed_catalog
from tests.factories import make_offer

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


def _rental(provider: str, usd: str, pricing: str, at: datetime) -> CloudOffer:
    """One MI300X offer of `provider` at `pricing` only."""
    if pricing == "on-demand":
        return make_offer("mi300x", usd, at, provider=provider, instance_type=f"{provider}-1x")
    return make_offer(
        "mi300x",
        usd,
        at,
        provider=provider,
        instance_type=f"{provider}-1x",
        on_demand_usd_per_hour=None,
        spot_usd_per_hour=Decimal(usd),
    )


def test_a_rental_whose_offers_aged_out_keeps_the_rules_of_a_current_one(
    session: Session,
) -> None:
    """Aged out, the MI300X was priced at the $0.50/h marketplace median its current rental
    holds back, with spot ($2.95) dearer than that: the last-seen price is the rental as its
    offers stood that day, rules included."""
    seed_catalog(session)
    seen = NOW - timedelta(days=3)
    session.add_all(
        [
            _rental("cheap", "0.50", "on-demand", seen),
            _rental("a", "2.39", "on-demand", seen),
            _rental("b", "2.92", "on-demand", seen),
            _rental("c", "6.75", "on-demand", seen),
            _rental("spot", "2.95", "spot", seen),
        ]
    )
    session.commit()
    factor = Decimal("2")
    for days, aged in ((0, False), (200, True)):
        currency = Currency(NOW + timedelta(days=days), window_days=7, stale_days=90)
        rented = rented_today(session, ["mi300x"], currency, factor)["mi300x"]
        on_demand, spot = rented["on-demand"], rented["spot"]
        assert on_demand is not None and spot is not None
        last = newest_offer(session, "mi300x", "on-demand", currency, factor)
        assert last is not None and last.usd_per_gpu_hour == Decimal("2.39")
        spot_last = newest_offer(session, "mi300x", "spot", currency, factor)
        assert spot_last is not None and spot_last.usd_per_gpu_hour == Decimal("2.39")
        # Current: today's rental; aged out (no index to move it here): unpriced, with
        # the price it was last seen at.
        assert isinstance(on_demand.price, Unpriced if aged else TodayPrice)
        assert on_demand.price.last_usd == spot.price.last_usd == Decimal("2.39")


def test_a_spot_estimate_above_todays_on_demand_rental_gives_way_to_it(session) -> None:
    from datetime import UTC, datetime, timedelta
    from decimal import Decimal

    from shared.pricing.cloud import Currency
    from shared.seed import seed_catalog
    from tests.factories import make_offer

    now = datetime.now(UTC)
    seed_catalog(session)
    # The A40's spot offers aged out at $3/h while its peers' spot prices held; today it
    # is rented on demand at $1/h: an old spot figure above that is no spot price.
    session.add(
        make_offer("a40", "4.00", now - timedelta(days=200), spot_usd_per_hour=Decimal("3"))
    )
    for m in range(8, 0, -1):
        at = now - timedelta(days=30.44 * m)
        for gpu_id in ("a100-80gb-pcie", "l40s"):
            session.add(make_offer(gpu_id, "2.00", at, spot_usd_per_hour=Decimal("1.50")))
    session.add(make_offer("a40", "1.00", now - timedelta(days=1), provider="cloud-b"))
    session.flush()
    found = rented_today(session, ["a40"], Currency(now), Decimal("2"))["a40"]
    spot, on_demand = found["spot"], found["on-demand"]
    assert spot is not None and on_demand is not None
    assert spot.price == on_demand.price and spot.note is not None
    assert "above today's on-demand $1.00" in spot.note
