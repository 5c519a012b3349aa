"""Today's price: fresh prices with a band, stale ones moved by the index or left unranked."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from shared.models import CloudOffer
from shared.pricing.cloud import Currency, rentals_of
from shared.pricing.index import MonthlyPoint, build_index, month_of
from shared.pricing.market import MarketPrice
from shared.pricing.today import TodayPrice, Unpriced, card_prices, rental_today, today_price
from tests.factories import make_offer

NOW = datetime(2026, 12, 2, tzinfo=UTC)
PEERS = {"rtx-3090": ("consumer",), "rtx-4090": ("consumer",), "rtx-3080-10gb": ("consumer",)}


def _market(
    gpu_id: str = "rtx-3090",
    usd: str = "1000",
    at: datetime = NOW - timedelta(days=10),
    n: int = 5,
    condition: str = "used",
    iqr: str = "100",
) -> MarketPrice:
    return MarketPrice(
        gpu_id=gpu_id,
        condition=condition,
        usd=Decimal(usd),
        kind="scraped",
        source="ebay:sold",
        observed_at=at,
        n=n,
        low_usd=Decimal(usd) * Decimal("0.8"),
        high_usd=Decimal(usd) * Decimal("1.2"),
        method="test",
        measure="sale",
        iqr_usd=Decimal(iqr),
    )


def _rising_index(since: datetime, monthly: float = 0.01):
    """Two peers of the 3090 whose used prices rose `monthly` (log) a month until now."""
    points = []
    for gpu_id, level in (("rtx-4090", 7.5), ("rtx-3080-10gb", 6.0)):
        for m in range(month_of(since) - 2, month_of(NOW) + 1):
            usd = math.exp(level + monthly * (m - month_of(since)))
            points.append(MonthlyPoint(gpu_id, "used", "sold", m, usd, 4))
    return build_index(points, PEERS)


def test_a_fresh_price_is_todays_with_a_band_from_its_spread_and_n():
    index = _rising_index(NOW - timedelta(days=400))
    price = today_price(_market(), index, NOW, stale_days=90)
    assert isinstance(price, TodayPrice) and not price.estimated
    assert price.usd == Decimal("1000")
    assert price.band_low < price.usd < price.band_high
    assert "median of 5" in price.basis
    # Fewer prices of the same spread: a wider band.
    thin = today_price(_market(n=2, iqr="0"), index, NOW, stale_days=90)
    assert isinstance(thin, TodayPrice) and thin.band_high > price.band_high


def test_a_stale_price_is_moved_by_the_index_and_its_band_widens_with_age():
    seen = NOW - timedelta(days=365)
    index = _rising_index(seen, monthly=0.01)
    stale = today_price(_market(at=seen), index, NOW, stale_days=90)
    fresh = today_price(_market(), index, NOW, stale_days=90)
    assert isinstance(stale, TodayPrice) and isinstance(fresh, TodayPrice)
    assert stale.estimated and stale.last_usd == Decimal("1000")
    # About twelve months of +1 %.
    assert Decimal("1090") < stale.usd < Decimal("1150")
    assert stale.band_low < stale.usd < stale.band_high
    assert stale.band_high / stale.band_low > fresh.band_high / fresh.band_low
    assert "last seen $1,000" in stale.basis and "consumer used index +" in stale.basis


def test_no_index_across_the_gap_leaves_the_card_unranked_with_its_reason():
    seen = NOW - timedelta(days=365 * 3)
    index = _rising_index(NOW - timedelta(days=120))  # the index starts long after
    stale = today_price(_market(at=seen), index, NOW, stale_days=90)
    assert isinstance(stale, Unpriced)
    assert stale.last_usd == Decimal("1000") and stale.last_observed_at == seen
    assert "index has no data from" in stale.reason
    lonely = today_price(_market(gpu_id="rtx-3090", at=seen), build_index([], PEERS), NOW, 90)
    assert isinstance(lonely, Unpriced) and "no index of comparable cards" in lonely.reason


def test_thin_asks_are_not_a_price_and_used_above_new_is_said():
    index = _rising_index(NOW - timedelta(days=400))
    new = _market(condition="new", usd="1500")
    used = _market(usd="1800")
    prices = card_prices({"new": new, "used": used}, index, NOW, 90)
    assert "used priced above new" in prices.notes["used"]
    assert prices.by_condition["any"] == prices.by_condition["new"]
    thin = replace(used, thin_reason="only 2 asking prices")
    alone = card_prices({"used": thin}, index, NOW, 90)
    assert isinstance(alone.by_condition["used"], Unpriced)
    assert isinstance(alone.by_condition["any"], Unpriced)


def _offer(provider: str, usd: str, pricing: str = "on-demand") -> CloudOffer:
    """An MI300X offer of `provider`, on-demand or spot only, three days old."""
    spot = {"on_demand_usd_per_hour": None, "spot_usd_per_hour": Decimal(usd)}
    return make_offer(
        "mi300x",
        usd,
        NOW - timedelta(days=3),
        provider=provider,
        instance_type=f"{provider}-1x",
        source="test",
        **(spot if pricing == "spot" else {}),
    )


def test_a_rental_far_below_the_others_is_held_back_and_spot_is_never_dearer():
    # The MI300X case: a $0.50/h marketplace median against $2.39-$6.75 elsewhere.
    offers = [_offer("cheap", "0.50"), _offer("a", "2.39"), _offer("b", "2.92")]
    offers += [_offer("c", "6.75"), _offer("spot", "2.95", "spot")]
    rentals = rentals_of(offers, Currency(NOW), Decimal("2"))
    on_demand, spot = rentals["on-demand"], rentals["spot"]
    assert on_demand is not None and spot is not None
    assert on_demand.cheapest.usd_per_gpu_hour == Decimal("2.39") and on_demand.held_back == 1
    assert spot.cheapest.usd_per_gpu_hour == Decimal("2.39")
    assert spot.note is not None and "no spot offer below on-demand" in spot.note
    today = rental_today(on_demand)
    # Priced at the cheapest sane offer, banded by the three offers' spread: below the
    # cheapest, and at least up to the median.
    assert today.usd == Decimal("2.39") and today.band_low < today.usd
    assert today.band_high >= on_demand.median_usd
    assert "held back" in today.basis and not today.estimated
