from datetime import UTC, datetime, timedelta
from decimal import Decimal

from shared.pricing.market import PricePolicy, cheapest, market_price
from tests.factories import make_observation

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def at(now: datetime = T0, **overrides) -> PricePolicy:
    return PricePolicy(now=now, window_days=7, **overrides)


def test_median_of_the_newest_window_ignores_older_and_quarantined_prices():
    observations = [
        make_observation(usd="900", observed_at=T0 - timedelta(days=30)),
        make_observation(usd="800", observed_at=T0 - timedelta(days=2)),
        make_observation(usd="700", observed_at=T0 - timedelta(days=1)),
        make_observation(usd="760", observed_at=T0),
        make_observation(usd="10", observed_at=T0, quarantined=True),
    ]
    price = market_price(observations, "used", at())
    assert price is not None
    assert price.usd == Decimal("760.00")
    assert price.n == 3
    assert (price.low_usd, price.high_usd) == (Decimal("700"), Decimal("800"))
    assert price.observed_at == T0
    assert "median of 3" in price.method


def test_newer_market_price_outranks_an_old_msrp():
    observations = [
        make_observation(
            usd="1499",
            condition="new",
            kind="msrp",
            measure="list_price",
            observed_at=T0 - timedelta(days=900),
        ),
        make_observation(usd="1650", condition="new", kind="snapshot", observed_at=T0),
    ]
    price = market_price(observations, "new", at())
    assert price is not None and price.kind == "snapshot" and price.usd == Decimal("1650.00")


def test_used_includes_refurbished_and_new_excludes_used():
    observations = [
        make_observation(usd="600", condition="refurbished"),
        make_observation(usd="1500", condition="new"),
    ]
    used = market_price(observations, "used", at())
    new = market_price(observations, "new", at())
    assert used is not None and used.usd == Decimal("600.00")
    assert new is not None and new.usd == Decimal("1500.00")
    assert cheapest([new, used]) is used
    assert market_price([make_observation(condition="new")], "used", at()) is None


def test_each_listing_counts_once_with_its_latest_price():
    observations = [
        make_observation(listing_id="a", usd="900", observed_at=T0 - timedelta(hours=6)),
        make_observation(listing_id="a", usd="850", observed_at=T0),
        make_observation(listing_id="b", usd="700", observed_at=T0),
    ]
    price = market_price(observations, "used", at())
    assert price is not None and price.n == 2 and price.usd == Decimal("775.00")


def test_outliers_beyond_tukey_fences_are_removed():
    prices = ["700", "720", "740", "760", "780", "5000"]
    observations = [make_observation(usd=usd) for usd in prices]
    price = market_price(observations, "used", at())
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
    price = market_price(observations, "used", at())
    assert price is not None and price.basis == "sold"
    assert (price.sold_n, price.probable_sales, price.n) == (1, 1, 2)
    assert price.usd == Decimal("730.00")
    asking = market_price(observations[:2], "used", at())
    assert asking is not None and asking.basis == "asking" and asking.usd == Decimal("880.00")


def test_a_retailer_dropping_a_listing_is_not_a_sale():
    observations = [
        make_observation(source="newegg", listing_id="x", usd="900", observed_at=T0),
        make_observation(source="newegg", listing_id="y", usd="700", observed_at=T0 - timedelta(1)),
    ]
    price = market_price(observations, "used", at())
    assert price is not None and price.basis == "asking" and price.probable_sales == 0


def test_stale_sources_are_left_out_when_fresh_ones_have_prices_else_marked():
    observations = [
        make_observation(source="ebay", usd="800"),
        make_observation(source="newegg", condition="new", usd="1500"),
        make_observation(source="bhphoto", condition="new", usd="1600"),
    ]
    new = market_price(observations, "new", at(stale_sources=frozenset({"bhphoto"})))
    assert new is not None and not new.stale and new.usd == Decimal("1500.00")
    assert [s.source for s in new.by_source] == ["newegg"]
    used = market_price(observations, "used", at(stale_sources=frozenset({"ebay"})))
    assert used is not None and used.stale and used.usd == Decimal("800.00")


def test_a_posted_quote_never_becomes_the_market_price():
    observations = [
        make_observation(usd="1200", kind="snapshot", measure="cheapest_asks_mean"),
        make_observation(usd="99", kind="manual", measure="quote", observed_at=T0),
    ]
    price = market_price(observations, "used", at())
    assert price is not None and price.usd == Decimal("1200.00")
    assert market_price(observations[1:], "used", at()) is None


def test_recent_sales_beat_recent_asks_which_beat_older_data():
    old_sale = make_observation(
        usd="700", kind="snapshot", measure="sold_average", observed_at=T0 - timedelta(400)
    )
    recent_ask = make_observation(
        usd="1200", kind="snapshot", measure="cheapest_asks_mean", observed_at=T0 - timedelta(5)
    )
    recent_sale = make_observation(
        usd="1000", kind="snapshot", measure="sold_average", observed_at=T0 - timedelta(30)
    )
    price = market_price([old_sale, recent_ask], "used", at())
    assert price is not None and price.measure == "cheapest_asks_mean" and not price.stale
    price = market_price([old_sale, recent_ask, recent_sale], "used", at())
    assert price is not None and price.measure == "sold_average"
    assert price.usd == Decimal("1000.00")
    only_old = market_price([old_sale], "used", at())
    assert only_old is not None and only_old.stale
    assert only_old.stale_reason == "older than 90 days" and "stale" in only_old.method


def test_each_dataset_and_measure_is_its_own_series():
    # Same week, two measures of the same card: never one median across them.
    cheapest_asks = make_observation(
        usd="1200", kind="snapshot", source="poet", measure="cheapest_asks_mean", observed_at=T0
    )
    buy_box = make_observation(
        usd="1800", kind="snapshot", source="amazon", measure="ask", observed_at=T0 - timedelta(1)
    )
    price = market_price([cheapest_asks, buy_box], "used", at())
    assert price is not None and price.n == 1 and price.usd == Decimal("1200.00")


def test_the_launch_price_of_a_card_launched_long_ago_is_no_new_price():
    launch = T0 - timedelta(days=800)
    msrp = make_observation(
        usd="1499", condition="new", kind="msrp", measure="list_price", observed_at=launch
    )
    assert market_price([msrp], "new", at()) is None
    recent = at(list_price_max_age_days=1000)
    price = market_price([msrp], "new", recent)
    assert price is not None and price.measure == "list_price" and price.stale


def test_any_takes_the_fresher_market_then_the_cheaper():
    stale_used = make_observation(
        usd="500", kind="snapshot", measure="sold_average", observed_at=T0 - timedelta(700)
    )
    fresh_new = make_observation(usd="1500", condition="new", kind="snapshot", observed_at=T0)
    fresh_used = make_observation(usd="1300", kind="snapshot", observed_at=T0 - timedelta(10))
    used = market_price([stale_used], "used", at())
    new = market_price([fresh_new], "new", at())
    assert cheapest([used, new]) is new  # $500 from two years ago is no price today
    used = market_price([stale_used, fresh_used], "used", at())
    assert cheapest([used, new]) is used and used is not None and used.usd == Decimal("1300.00")
