"""A live auction's current bid never makes a price alert true (issue 24 item 5).

On a real RTX 3080 search page a $232.50 current bid with 2 days left fired a price_below
alert. The bid here is the scraper's reading of real markup: the real auction card ("27
bids") of tests/services/scraper/samples/ebay/real_us_auction_edited.html, whose title
and price that fixture edits into that RTX 3080 at $232.50 (its first comment says how).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.engine import Engine

from services.scraper import pipeline, store
from services.scraper.listing import ListingType
from services.scraper.sources import ebay
from shared.alerts.evaluate import evaluate_alerts
from shared.alerts.triggers import _buyable_offers
from shared.kit.db import session_scope
from shared.matching.titles import match_title
from shared.models import PriceObservation
from shared.pricing.ingest import observation
from shared.pricing.measures import ASK, BID
from tests.factories import make_observation, plain_settings
from tests.services.scraper.fixture_server import SAMPLES_DIR
from tests.shared.alerts.conftest import T0, make_alert

URL = "http://127.0.0.1:9/hook"
GPU = "rtx-3080-10gb"
PAGE = SAMPLES_DIR / "ebay" / "real_us_auction_edited.html"
BID_ID = "257117837237"


def _scraped_bid(
    at: datetime = T0, listing_id: str = BID_ID, as_ask: bool = False
) -> PriceObservation:
    """The stored row of the real auction card, as a scrape run at `at` makes it."""
    [card] = [
        c
        for c in ebay.parse(PAGE.read_bytes(), "https://www.ebay.com/sch/i.html?_nkw=rtx+3080")
        if c.listing_id == BID_ID
    ]
    assert card.listing_type is ListingType.AUCTION
    if as_ask:  # the control: the same card read as an asking price
        card = replace(card, listing_type=ListingType.ACTIVE)
    [item] = pipeline.normalize([replace(card, listing_id=listing_id)], match_title).kept
    return observation(store.to_record(item, "ebay", at))


def add(engine: Engine, *rows: PriceObservation) -> None:
    with session_scope(engine) as session:
        session.add_all(rows)


def step(engine: Engine, now: datetime = T0) -> list[dict[str, Any]]:
    with session_scope(engine) as session:
        return [
            json.loads(e.payload) for e in evaluate_alerts(session, plain_settings(), None, now)
        ]


def test_the_real_bid_is_stored_as_a_bid() -> None:
    bid = _scraped_bid()
    # $232.50 and the real card's "+$7.90 delivery"; open box, stored as used.
    assert (bid.gpu_id, bid.measure, bid.price_usd) == (GPU, BID, Decimal("240.40"))
    assert (bid.condition, bid.source, bid.quarantined) == ("used", "ebay", False)
    assert _scraped_bid(as_ask=True).measure == ASK


def test_a_bid_never_fires_price_below(db: Engine) -> None:
    trigger = {"type": "price_below", "gpu_id": GPU, "condition": "any", "max_price_usd": "300"}
    make_alert(db, URL, trigger)
    add(db, _scraped_bid())
    assert step(db) == []
    with session_scope(db) as session:
        assert _buyable_offers(session, GPU, "any", T0 - timedelta(days=7)) == []
    # The same card as an asking price would have fired: the measure alone keeps it out.
    add(db, _scraped_bid(listing_id="257117837237-ask", as_ask=True))
    [event] = step(db, now=T0 + timedelta(minutes=1))
    assert event["data"]["observation"]["measure"] == ASK


def _asks_of_the_month_before() -> list[PriceObservation]:
    return [
        make_observation(
            gpu_id=GPU,
            condition="used",
            source="ebay",
            usd=str(700 + spread),
            listing_id=f"ask-{days}-{spread}",
            observed_at=T0 - timedelta(days=days),
        )
        for days in range(8, 40, 2)
        for spread in (-20, 0, 20)
    ]


def test_bids_make_no_price_drop(db: Engine) -> None:
    trigger = {"type": "price_drop_pct", "gpu_id": GPU, "condition": "used", "pct": 20}
    make_alert(db, URL, trigger)
    add(db, *_asks_of_the_month_before())
    # Five live auctions at $240.40 this week, a third of the month's asking prices.
    add(db, *(_scraped_bid(T0 - timedelta(hours=n), f"bid-{n}") for n in range(5)))
    assert step(db) == []
    # Were they asking prices, the market would have fallen by two thirds.
    add(db, *(_scraped_bid(T0 - timedelta(hours=n), f"ask-{n}", as_ask=True) for n in range(5)))
    [event] = step(db, now=T0 + timedelta(minutes=1))
    assert event["type"] == "price_drop_pct" and event["data"]["drop_pct"] >= 60
