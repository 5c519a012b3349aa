"""Seeding the providers' cheapest offers (gpu-price-feed) with the other bundled cloud data:
once, on every start, and consumer cards become rentable at the feed's price."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import func
from sqlmodel import Session, select

from shared.kit.db import make_engine
from shared.models import CloudOffer, Score
from shared.pricing.cloud import Currency, cheapest_offer
from shared.seed import seed_catalog, seed_cloud_offers

FEED_RECORDS = 6310
# The day after the feed's last run.
AFTER_FEED = datetime(2026, 10, 5, tzinfo=UTC)


def _feed_rows(session: Session) -> int:
    query = select(func.count()).where(CloudOffer.measure == "provider_cheapest")
    return int(session.exec(query).one())


def test_feed_is_seeded_once(session: Session):
    seed_catalog(session)
    first = seed_cloud_offers(session)
    assert _feed_rows(session) == FEED_RECORDS and first > FEED_RECORDS
    # Every start seeds again: nothing is added twice (the two runs of 2026-07-23 included).
    assert seed_cloud_offers(session) == 0
    assert _feed_rows(session) == FEED_RECORDS


def test_an_install_seeded_before_the_feed_gets_it_on_next_start(session: Session):
    seed_catalog(session)
    seed_cloud_offers(session)
    feed = select(CloudOffer).where(CloudOffer.measure == "provider_cheapest")
    for offer in session.exec(feed).all():
        session.delete(offer)
    session.flush()
    assert seed_cloud_offers(session) == FEED_RECORDS


def test_rtx_4090_is_rented_at_the_feeds_price(seeded_url: str):
    """First start on the bundle: RunPod's $0.34 of 2026-10-04 is the cheapest current
    RTX 4090 offer (Vast.ai asked $0.3481 that day), and the cloud ranking stores it."""
    engine = make_engine(seeded_url)
    with Session(engine) as session:
        offer = cheapest_offer(session, "rtx-4090", "on-demand", Currency(AFTER_FEED), Decimal("2"))
        assert offer is not None
        assert (offer.provider, offer.usd_per_gpu_hour) == ("runpod", Decimal("0.34000"))
        assert offer.measure == "provider_cheapest" and offer.gpu_count == 1
        assert offer.observed_at == datetime(2026, 10, 4, 12, 20, 45, tzinfo=UTC)
        assert "gpu-price-feed" in offer.source
        rented = session.exec(
            select(Score).where(Score.condition == "cloud:on-demand", Score.task == "cv")
        ).all()
        by_gpu = {score.gpu_id: score for score in rented}
        assert {"rtx-3090", "rtx-4090", "rtx-5090"} <= set(by_gpu)
        assert by_gpu["rtx-4090"].price_usd == Decimal("0.34")
        assert by_gpu["rtx-4090"].price_measure == "provider_cheapest"
    engine.dispose()
