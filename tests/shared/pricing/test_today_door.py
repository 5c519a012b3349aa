"""The one door on stored data: today's prices per card and condition, the fitted index
reused until the stored prices change, and the one rentable offer /tco, comparisons and
cloud alerts read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session

from shared.models import CloudOffer
from shared.pricing.cloud import Currency, cheapest_offer
from shared.pricing.index import INDEXES, market_index
from shared.pricing.market import PricePolicy
from shared.pricing.today import TodayPrice, Unpriced, bought_today
from shared.seed import seed_catalog
from tests.factories import (
    make_observation,
    make_offer,
    monthly_sales,
    plain_settings,
    stale_3090_with_risen_peers,
)

NOW = datetime.now(UTC)


def _policy() -> PricePolicy:
    return PricePolicy.from_settings(plain_settings(), NOW)


def test_the_index_is_fitted_once_per_state_of_the_stored_prices(session: Session) -> None:
    seed_catalog(session)
    INDEXES.clear()
    monthly_sales(session, "rtx-4090", 1500, 0.02, 12, NOW)
    monthly_sales(session, "rtx-3080-10gb", 400, 0.02, 12, NOW)
    session.flush()
    first = market_index(session)
    assert market_index(session) is first
    session.add(make_observation(gpu_id="rtx-4090", usd="1900", observed_at=NOW))
    session.flush()
    moved = market_index(session)
    assert moved is not first
    # A quarantine flag is a change of the data too.
    row = make_observation(gpu_id="rtx-4090", usd="2000", observed_at=NOW, listing_id="q")
    session.add(row)
    session.flush()
    with_row = market_index(session)
    row.quarantined = True
    session.add(row)
    session.flush()
    assert market_index(session) is not with_row


def test_bought_today_estimates_a_stale_card_and_leaves_an_unbridged_one_unpriced(
    session: Session,
) -> None:
    seed_catalog(session)
    stale_3090_with_risen_peers(session, NOW)
    long_ago = NOW - timedelta(days=1100)
    for usd in ("14900", "15000", "15100"):
        session.add(make_observation(gpu_id="a100-80gb-pcie", usd=usd, observed_at=long_ago))
    session.flush()
    found = bought_today(session, ["rtx-3090", "a100-80gb-pcie", "rtx-5090"], _policy())
    used = found["rtx-3090"]["used"].price
    assert isinstance(used, TodayPrice) and used.estimated and used.usd > Decimal("800")
    assert found["rtx-3090"]["any"].price == used
    stale = found["a100-80gb-pcie"]["used"].price
    assert isinstance(stale, Unpriced) and "no index" in stale.reason
    assert found["rtx-5090"] == {}


def _offer(provider: str, usd: str, gpu_id: str = "mi300x") -> CloudOffer:
    return make_offer(
        gpu_id,
        usd,
        NOW - timedelta(days=2),
        provider=provider,
        instance_type=f"1x-{gpu_id}",
        region="r1",
        kind="scraped",
        source="test",
    )


def test_the_rentable_offer_holds_back_a_stray_low_price(session: Session) -> None:
    seed_catalog(session)
    session.add_all([_offer("stray", "0.50"), _offer("a", "2.39"), _offer("b", "2.92")])
    session.add(_offer("c", "6.75"))
    session.flush()
    currency = Currency(NOW)
    offer = cheapest_offer(session, "mi300x", "on-demand", currency, Decimal("2"))
    assert offer is not None and offer.usd_per_gpu_hour == Decimal("2.39")
    # With no spot offer, no spot price.
    assert cheapest_offer(session, "mi300x", "spot", currency, Decimal("2")) is None
