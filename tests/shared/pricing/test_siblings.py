"""An estimate checked against its siblings' fresh prices, its new price and its memory
variants: where they disagree beyond its band, the card needs a current price."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session

from shared.pricing.market import PricePolicy
from shared.pricing.siblings import NEEDS_PRICE, family, variants
from shared.pricing.today import TodayPrice, Unpriced, bought_today
from shared.seed import seed_catalog
from tests.factories import make_observation, monthly_sales, plain_settings

NOW = datetime.now(UTC)
LAST_SEEN = NOW - timedelta(days=30.44 * 13)


def _policy() -> PricePolicy:
    return PricePolicy.from_settings(plain_settings(), NOW)


def _asks(session: Session, gpu_id: str, usd: float, at: datetime, condition: str = "used") -> None:
    for k in range(3):
        session.add(
            make_observation(
                gpu_id=gpu_id,
                usd=f"{usd * (1 + 0.01 * k):.2f}",
                observed_at=at,
                condition=condition,
            )
        )


def _market(session: Session, rtx_3090_now: float) -> None:
    """Flat consumer prices (RTX 4080, RTX 3080) to now; the RTX 3090 and 3090 Ti sold
    side by side until 13 months ago, the Ti at 1.2x; the RTX 3090 is asked
    `rtx_3090_now` today."""
    monthly_sales(session, "rtx-4080", 900, 0.0, 24, NOW)
    monthly_sales(session, "rtx-3080-10gb", 400, 0.0, 24, NOW)
    for m in range(24, 12, -1):
        at = NOW - timedelta(days=30.44 * m)
        _asks(session, "rtx-3090", 700, at)
        _asks(session, "rtx-3090-ti", 840, at)
    _asks(session, "rtx-3090", rtx_3090_now, NOW - timedelta(days=3))
    session.flush()


def test_siblings_share_segment_and_memory_tier_the_same_architecture_first() -> None:
    close, wider = family()["rtx-3090-ti"]
    assert "rtx-3090" in close and "rtx-4090" in wider and "rtx-3080-ti" not in close + wider
    assert dict(variants()["rtx-3080-12gb"]) == {"rtx-3080-10gb": 10.0}


def test_an_estimate_its_fresh_sibling_contradicts_needs_a_current_price(session: Session) -> None:
    seed_catalog(session)
    _market(session, rtx_3090_now=1400)  # the 3090 doubled; the index (flat peers) did not
    found = bought_today(session, ["rtx-3090-ti", "rtx-3090"], _policy())
    ti = found["rtx-3090-ti"]["used"].price
    assert isinstance(ti, Unpriced) and ti.reason.startswith(NEEDS_PRICE)
    rtx_3090 = found["rtx-3090"]["used"].price
    assert isinstance(rtx_3090, TodayPrice) and not rtx_3090.estimated
    # Both figures: the estimate with its band, and the sibling-implied price: the 3090's
    # fresh median times the 1.2 the Ti cost over it when both were last seen.
    implied = (rtx_3090.usd * Decimal("1.2")).quantize(Decimal("1"))
    assert "estimated $8" in ti.reason and f"${implied:,.0f} implied" in ti.reason, ti.reason


def test_an_estimate_its_siblings_agree_with_stays_priced(session: Session) -> None:
    seed_catalog(session)
    _market(session, rtx_3090_now=720)
    ti = bought_today(session, ["rtx-3090-ti"], _policy())["rtx-3090-ti"]["used"].price
    assert isinstance(ti, TodayPrice) and ti.estimated
    assert ti.band_low <= Decimal(720 * 1.2) <= ti.band_high


def test_a_used_estimate_above_the_fresh_new_price_needs_a_current_price(
    session: Session,
) -> None:
    seed_catalog(session)
    _market(session, rtx_3090_now=720)
    _asks(session, "rtx-3090-ti", 600, NOW - timedelta(days=2), condition="new")
    session.flush()
    found = bought_today(session, ["rtx-3090-ti"], _policy())["rtx-3090-ti"]
    used = found["used"].price
    assert isinstance(used, Unpriced) and "above its new price $6" in used.reason
    assert found["any"].price == found["new"].price


def test_a_larger_variant_estimated_below_the_smaller_ones_fresh_price_is_not_priced(
    session: Session,
) -> None:
    seed_catalog(session)
    monthly_sales(session, "rtx-4080", 900, -0.03, 24, NOW)
    monthly_sales(session, "rtx-3060-12gb", 250, -0.03, 24, NOW)
    for m in range(24, 12, -1):
        _asks(session, "rtx-3080-12gb", 520, NOW - timedelta(days=30.44 * m))
    _asks(session, "rtx-3080-10gb", 520, NOW - timedelta(days=3))
    session.flush()
    found = bought_today(session, ["rtx-3080-12gb"], _policy())
    price = found["rtx-3080-12gb"]["used"].price
    assert isinstance(price, Unpriced), price
    assert "below its smaller variant rtx-3080-10gb" in price.reason


def test_one_retail_ask_is_not_a_market_price(session: Session) -> None:
    seed_catalog(session)
    session.add(make_observation(gpu_id="h100-sxm5", usd="15636", condition="new"))
    session.flush()
    policy = PricePolicy.from_settings(plain_settings(), datetime(2026, 11, 2, tzinfo=UTC))
    price = bought_today(session, ["h100-sxm5"], policy)["h100-sxm5"]["new"].price
    assert isinstance(price, Unpriced)
    assert price.reason == "only 1 asking price at a retailer (a market price needs 3)"
