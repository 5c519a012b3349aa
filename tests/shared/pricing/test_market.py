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
