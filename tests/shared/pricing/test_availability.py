"""Evidence of supply: listings in the window, their sources, cloud offers listed now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import event
from sqlmodel import Session

from shared.pricing.availability import UNKNOWN, Availability, availability_of, supply_key
from shared.pricing.cloud import Currency
from shared.seed import seed_catalog
from tests.factories import make_observation, make_offer

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
CURRENCY = Currency(NOW, window_days=7, stale_days=90)
DAY = timedelta(days=1)


def _seed_3090_window(session: Session) -> None:
    """Used RTX 3090 asks: 3 eBay listings (one re-seen by 3 scrapes, one seen through
    the Browse API under the same id), 2 from a shop, one row without a listing id; and
    what must not count: a sale, a quarantined ask, a posted quote, a bid, an ask older
    than the window, a new card's ask."""
    o = make_observation
    at = NOW - 2 * DAY
    rows = [
        o(source="ebay", listing_id="e1", observed_at=at),
        o(source="ebay", listing_id="e1", observed_at=at + DAY),
        o(source="ebay", listing_id="e1", observed_at=at + 2 * DAY),
        o(source="ebay_browse", listing_id="e1", observed_at=at + 3 * DAY / 2),
        o(source="ebay", listing_id="e2", observed_at=at),
        o(source="ebay", listing_id="e3", condition="refurbished", observed_at=at),
        o(source="shop", listing_id="s1", observed_at=at),
        o(source="shop", listing_id="s2", observed_at=at),
        o(source="shop", listing_id=None, observed_at=at),
        o(source="ebay:sold", listing_id="e9", measure="sale", observed_at=at),
        o(source="ebay", listing_id="q1", quarantined=True, observed_at=at),
        o(source="vendor", listing_id=None, kind="manual", measure="quote", observed_at=at),
        o(source="ebay", listing_id="b1", measure="bid", observed_at=at),
        o(source="ebay", listing_id="old", observed_at=NOW - 8 * DAY),
        o(source="ebay", listing_id="n1", condition="new", observed_at=at),
    ]
    session.add_all(rows)
    session.flush()


def test_listings_and_sources_are_counted_exactly_in_the_window(session: Session) -> None:
    seed_catalog(session)
    _seed_3090_window(session)
    keys = {("rtx-3090", "used"), ("rtx-3090", "new")}
    found = availability_of(session, keys, CURRENCY)
    used = found[("rtx-3090", "used")]
    assert isinstance(used, Availability)
    # e1, e2, e3 (refurbished counts as used), s1, s2, the row without an id.
    assert (used.listings, used.providers, used.window_days) == (6, 2, 7)
    assert used.offers_now is None and used.note is None and used.window_end == NOW
    new = found[("rtx-3090", "new")]
    assert isinstance(new, Availability) and (new.listings, new.providers) == (1, 1)


def test_a_card_with_no_listing_in_the_window_says_so(session: Session) -> None:
    seed_catalog(session)
    session.add(make_observation(gpu_id="rtx-4090", observed_at=NOW - 30 * DAY))
    session.flush()
    found = availability_of(session, {("rtx-4090", "used")}, CURRENCY)[("rtx-4090", "used")]
    assert isinstance(found, Availability)
    assert (found.listings, found.providers) == (0, 0)
    assert found.note == "no used listing in the 7 days to 2026-11-20"


def test_a_monthly_report_without_listing_counts_is_unknown(session: Session) -> None:
    seed_catalog(session)
    session.add(
        make_observation(
            gpu_id="rtx-4080",
            kind="snapshot",
            source="monthly market report",
            measure="cheapest_asks_mean",
            observed_at=NOW - DAY,
        )
    )
    session.flush()
    assert availability_of(session, {("rtx-4080", "used")}, CURRENCY) == {
        ("rtx-4080", "used"): UNKNOWN
    }


def test_rentals_count_current_offers_providers_and_those_listed_in_the_window(
    session: Session,
) -> None:
    seed_catalog(session)
    gpu = "a100-80gb-sxm4"
    session.add_all(
        [
            make_offer(gpu, "1.50", NOW - DAY, provider="a", instance_type="x1"),
            make_offer(gpu, "1.60", NOW - DAY, provider="a", instance_type="x2"),
            make_offer(gpu, "1.70", NOW - 20 * DAY, provider="b", instance_type="y1"),
            # Older than the stale age: history, not an offer.
            make_offer(gpu, "1.00", NOW - 100 * DAY, provider="c", instance_type="z1"),
            # An aggregate: no offer of its own.
            make_offer(gpu, "1.40", NOW - DAY, provider="d", measure="marketplace_median"),
            make_offer(
                gpu,
                "1.80",
                NOW - DAY,
                provider="a",
                instance_type="x3",
                spot_usd_per_hour=Decimal("0.9"),
            ),
        ]
    )
    session.flush()
    keys = {(gpu, "cloud:on-demand"), (gpu, "cloud:spot"), ("rtx-3090", "cloud:on-demand")}
    found = availability_of(session, keys, CURRENCY)
    on_demand = found[(gpu, "cloud:on-demand")]
    assert isinstance(on_demand, Availability)
    assert (on_demand.offers_now, on_demand.listings, on_demand.providers) == (4, 3, 2)
    spot = found[(gpu, "cloud:spot")]
    assert isinstance(spot, Availability) and (spot.offers_now, spot.listings) == (1, 1)
    never = found[("rtx-3090", "cloud:on-demand")]
    assert isinstance(never, Availability) and never.offers_now == 0 and never.note


def test_many_cards_take_one_query_per_table(session: Session) -> None:
    seed_catalog(session)
    _seed_3090_window(session)
    statements: list[str] = []

    def count(*args: object) -> None:
        statements.append(str(args[2]))

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        ids = ["rtx-3090", "rtx-4090", "rtx-3060-12gb", "a100-80gb-pcie", "h100-pcie"]
        keys = {supply_key(g, c) for g in ids for c in ("new", "refurbished", "cloud:spot")}
        found = availability_of(session, keys, CURRENCY)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(found) == 2 * len(ids) + len(ids)
    assert len(statements) == 2
