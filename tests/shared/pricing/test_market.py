from datetime import UTC, datetime, timedelta
from decimal import Decimal

from shared.pricing.market import cheapest, market_price
from tests.factories import make_observation

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_median_of_the_newest_window_ignores_older_and_quarantined_prices():
    observations = [
        make_observation(usd="900", observed_at=T0 - timedelta(days=30)),
        make_observation(usd="800", observed_at=T0 - timedelta(days=2)),
        make_observation(usd="700", observed_at=T0 - timedelta(days=1)),
        make_observation(usd="760", observed_at=T0),
        make_observation(usd="10", observed_at=T0, quarantined=True),
    ]
    price = market_price(observations, "used", window_days=7)
    assert price is not None
    assert price.usd == Decimal("760.00")
    assert price.n == 3
    assert (price.low_usd, price.high_usd) == (Decimal("700"), Decimal("800"))
    assert price.observed_at == T0
    assert "median of 3" in price.method


def test_newer_market_price_outranks_an_old_msrp():
    observations = [
        make_observation(
            usd="1499", condition="new", kind="msrp", observed_at=T0 - timedelta(days=900)
        ),
        make_observation(usd="1650", condition="new", kind="snapshot", observed_at=T0),
    ]
    price = market_price(observations, "new", window_days=7)
    assert price is not None and price.kind == "snapshot" and price.usd == Decimal("1650.00")


def test_used_includes_refurbished_and_new_excludes_used():
    observations = [
        make_observation(usd="600", condition="refurbished"),
        make_observation(usd="1500", condition="new"),
    ]
    used = market_price(observations, "used", window_days=7)
    new = market_price(observations, "new", window_days=7)
    assert used is not None and used.usd == Decimal("600.00")
    assert new is not None and new.usd == Decimal("1500.00")
    assert cheapest([new, used]) is used
    assert market_price([make_observation(condition="new")], "used", 7) is None


def test_each_listing_counts_once_with_its_latest_price():
    observations = [
        make_observation(listing_id="a", usd="900", observed_at=T0 - timedelta(hours=6)),
        make_observation(listing_id="a", usd="850", observed_at=T0),
        make_observation(listing_id="b", usd="700", observed_at=T0),
    ]
    price = market_price(observations, "used", 7)
    assert price is not None and price.n == 2 and price.usd == Decimal("775.00")


def test_outliers_beyond_tukey_fences_are_removed():
    prices = ["700", "720", "740", "760", "780", "5000"]
    observations = [make_observation(usd=usd) for usd in prices]
    price = market_price(observations, "used", 7)
    assert price is not None
    assert (price.n, price.outliers_removed, price.high_usd) == (5, 1, Decimal("780"))
    assert price.usd == Decimal("740.00") and price.iqr_usd == Decimal("40.00")
    assert "1 outlier removed" in price.method


def test_used_prefers_sold_and_probable_sales_over_asking_prices():
    run1, run2 = T0 - timedelta(hours=6), T0
    observations = [
        make_observation(source="ebay", listing_id="x", usd="900", observed_at=run1),
        make_observation(source="ebay", listing_id="x", usd="880", observed_at=run2),
        make_observation(source="ebay", listing_id="gone", usd="760", observed_at=run1),
        make_observation(source="ebay:sold", listing_id="s", usd="700", observed_at=run1),
        # The same item seen active and then sold: counted once, as a sale.
        make_observation(source="ebay", listing_id="s", usd="750", observed_at=run1),
    ]
    price = market_price(observations, "used", 7)
    assert price is not None and price.basis == "sold"
    assert (price.sold_n, price.probable_sales, price.n) == (1, 1, 2)
    assert price.usd == Decimal("730.00")
    asking = market_price(observations[:2], "used", 7)
    assert asking is not None and asking.basis == "asking" and asking.usd == Decimal("880.00")


def test_a_retailer_dropping_a_listing_is_not_a_sale():
    observations = [
        make_observation(source="newegg", listing_id="x", usd="900", observed_at=T0),
        make_observation(source="newegg", listing_id="y", usd="700", observed_at=T0 - timedelta(1)),
    ]
    price = market_price(observations, "used", 7)
    assert price is not None and price.basis == "asking" and price.probable_sales == 0


def test_stale_sources_are_left_out_when_fresh_ones_have_prices_else_marked():
    observations = [
        make_observation(source="ebay", usd="800"),
        make_observation(source="newegg", condition="new", usd="1500"),
        make_observation(source="bhphoto", condition="new", usd="1600"),
    ]
    new = market_price(observations, "new", 7, stale_sources={"bhphoto"})
    assert new is not None and not new.stale and new.usd == Decimal("1500.00")
    assert [s.source for s in new.by_source] == ["newegg"]
    used = market_price(observations, "used", 7, stale_sources={"ebay"})
    assert used is not None and used.stale and used.usd == Decimal("800.00")
