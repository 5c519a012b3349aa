"""A recompute stores today's price: estimated where the observation is stale, unranked
where nothing bridges the gap, rentals whose offers aged out moved by the cloud index."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, select

from shared.models import CloudOffer, Score
from shared.seed import seed_catalog
from tests.factories import (
    make_observation,
    make_offer,
    recompute,
    stale_3090_with_risen_peers,
)

NOW = datetime.now(UTC)


def _score(session: Session, gpu_id: str, condition: str) -> Score:
    query = select(Score).where(
        Score.gpu_id == gpu_id,
        Score.task == "cv",
        Score.precision == "fp16",
        Score.condition == condition,
    )
    found = session.exec(query).first()
    assert found is not None, (gpu_id, condition)
    return found


def test_a_stale_price_is_moved_by_its_peers_and_a_fresh_one_is_kept(session):
    seed_catalog(session)
    stale_3090_with_risen_peers(session, NOW)
    session.flush()
    recompute(session)
    stale = _score(session, "rtx-3090", "used")
    assert stale.price_estimated and stale.unranked_reason is None
    assert stale.price_last_usd == Decimal("701")
    # Twelve months at +2 %: about +27 %.
    assert Decimal("820") < stale.price_usd < Decimal("960"), stale.price_usd
    assert stale.price_band_low is not None and stale.price_band_high is not None
    assert stale.price_band_low < stale.price_usd < stale.price_band_high
    assert stale.price_basis is not None and "consumer used index +" in stale.price_basis
    fresh = _score(session, "rtx-4090", "used")
    assert not fresh.price_estimated and fresh.price_band_low is not None
    assert fresh.price_band_high is not None
    assert (
        fresh.price_band_high / fresh.price_band_low < stale.price_band_high / stale.price_band_low
    )


def test_a_card_no_index_bridges_is_unranked_with_its_last_price(session):
    seed_catalog(session)
    old = NOW - timedelta(days=3 * 365)
    # Three asks: a market price (one would be a market of one, unpriced as thin).
    for usd in ("14900", "15000", "15100"):
        session.add(make_observation(gpu_id="a100-80gb-pcie", usd=usd, observed_at=old))
    session.flush()
    recompute(session)
    score = _score(session, "a100-80gb-pcie", "used")
    assert score.unranked_reason is not None and "no index" in score.unranked_reason
    assert score.price_last_usd == Decimal("15000") and score.perf_per_dollar == 0


def _offer(gpu_id: str, usd: str, at: datetime, provider: str = "cloud-a") -> CloudOffer:
    return make_offer(gpu_id, usd, at, provider=provider)


def test_a_rental_whose_offers_aged_out_is_estimated_not_dropped(session):
    seed_catalog(session)
    # The H100's last offer is 200 days old; its peers were listed every month since.
    session.add(_offer("h100-sxm5", "2.50", NOW - timedelta(days=200)))
    for m in range(9, 0, -1):
        at = NOW - timedelta(days=30.44 * m)
        session.add(_offer("a100-80gb-sxm4", f"{1.40 - 0.02 * (9 - m):.2f}", at))
        session.add(_offer("h200-sxm", f"{3.60 - 0.04 * (9 - m):.2f}", at))
    session.flush()
    recompute(session)
    rental = _score(session, "h100-sxm5", "cloud:on-demand")
    assert rental.price_estimated and rental.unranked_reason is None
    assert rental.price_usd < Decimal("2.50")  # its peers fell
    assert rental.price_basis is not None and "on-demand rental index" in rental.price_basis
    current = _score(session, "a100-80gb-sxm4", "cloud:on-demand")
    assert not current.price_estimated
