"""How much market stands behind a price: listings in the window, who lists them, and
the cloud offers listed now.

A card bought new or used (a market group: refurbished counts as used, as in market.py):
- `listings`: distinct asks of the card in the group observed in the `window_days` up to
  now (the market window, PricePolicy.window_days), counted as market.py counts a
  listing: once per listing however many scrapes saw it (eBay Browse and eBay share
  listing ids), a row without a listing id on its own. Only what a buyer can take today:
  single asking prices, never sales (sold records, sales), quarantined rows, posted
  quotes, auction bids or launch list prices;
- `providers`: distinct sources of those asks. No seller is stored with a price (the
  price_observation table has no seller column), so a marketplace counts once however
  many sellers list there;
- `offers_now`: None (a purchase has no cloud offers).

A rental ("cloud:on-demand", "cloud:spot"), by the rule shared/pricing/cloud.py ranks on
(each provider's newest price list, if within the stale age; whole GPUs):
- `offers_now`: the current offers at that pricing;
- `listings`: those of them observed within `window_days` of now;
- `providers`: distinct providers of the current offers.

"unknown" where no data can say: the window holds only aggregates without listing counts
(a monthly report's mean of the cheapest asks, a period's median ask or average sale; a
marketplace median per GPU-hour). Zero listings with a `note`: nothing in the window.
Pure counting (`count_asks`, `count_offers`) plus one query per table for many cards
(`availability_of`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import case, func, select
from sqlmodel import Session, col

from shared.models import CloudOffer, PriceObservation
from shared.pricing.cloud import PRICINGS, Currency, current_prices
from shared.pricing.market import CONDITION_GROUPS, SAME_LISTINGS_AS, SOLD_SUFFIX
from shared.pricing.measures import (
    ASK,
    CHEAPEST_ASKS_MEAN,
    MARKETPLACE_MEDIAN,
    MEDIAN_ASK,
    QUOTE_KINDS,
    SEGMENT_MEDIAN,
    SOLD_AVERAGE,
)
from shared.pricing.quarantine import MARKET_GROUPS

UNKNOWN: Literal["unknown"] = "unknown"
# Prices that sum up many listings without saying how many.
AGGREGATE_MEASURES = frozenset({SOLD_AVERAGE, CHEAPEST_ASKS_MEAN, MEDIAN_ASK})
AGGREGATE_OFFERS = frozenset({MARKETPLACE_MEDIAN, SEGMENT_MEDIAN})
RENTAL_PREFIX = "cloud:"

# (gpu id, condition): a market group ("new", "used") or a rental ("cloud:on-demand").
SupplyKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Availability:
    listings: int
    providers: int
    window_days: int
    offers_now: int | None
    window_end: datetime
    note: str | None = None


Supply = Availability | Literal["unknown"]


@dataclass(frozen=True, slots=True)
class AskRow:
    """What counting reads of a stored price."""

    gpu_id: str
    condition: str
    source: str
    listing_id: str | None
    measure: str


def supply_key(gpu_id: str, condition: str) -> SupplyKey:
    """The key a price's availability is counted under: its market group, or a rental."""
    if condition.startswith(RENTAL_PREFIX):
        return gpu_id, condition
    return gpu_id, MARKET_GROUPS.get(condition, condition)


def _site(source: str) -> str:
    name = source.removesuffix(SOLD_SUFFIX)
    return SAME_LISTINGS_AS.get(name, name)


def count_asks(rows: Iterable[AskRow], group: str, window_days: int, now: datetime) -> Supply:
    """Availability of one card in a market group from its rows of the window."""
    listings: set[tuple[str, str] | int] = set()
    sources: set[str] = set()
    aggregates = 0
    for number, row in enumerate(rows):
        if MARKET_GROUPS.get(row.condition, row.condition) != group:
            continue
        if row.measure in AGGREGATE_MEASURES:
            aggregates += 1
        elif row.measure == ASK and not row.source.endswith(SOLD_SUFFIX):
            site = _site(row.source)
            listings.add((site, row.listing_id) if row.listing_id else number)
            sources.add(site)
    if not listings and aggregates:
        return UNKNOWN
    note = None if listings else f"no {group} listing in the {window_days} days to {now.date()}"
    return Availability(len(listings), len(sources), window_days, None, now, note)


def count_offers(offers: Iterable[CloudOffer], pricing: str, currency: Currency) -> Supply:
    """Availability of one card's rental at `pricing` from its stored offers."""
    current = current_prices(offers, pricing, currency)
    single = [p for p in current if p.measure not in AGGREGATE_OFFERS]
    if current and not single:
        return UNKNOWN
    since = currency.now - timedelta(days=currency.window_days)
    recent = [p for p in single if p.observed_at >= since]
    note = None
    if not single:
        note = f"no current {pricing} offer (none listed in the last {currency.stale_days} days)"
    elif not recent:
        note = (
            f"no {pricing} offer listed in the {currency.window_days} days to "
            f"{currency.now.date()}; {len(single)} from older price lists still current"
        )
    return Availability(
        len(recent),
        len({p.provider for p in single}),
        currency.window_days,
        len(single),
        currency.now,
        note,
    )


def availability_of(
    session: Session, keys: Set[SupplyKey], currency: Currency
) -> dict[SupplyKey, Supply]:
    """Availability of each (gpu, condition) key: one query for the purchases' window and
    one for the cards' cloud offers, however many cards."""
    bought = {k for k in keys if not k[1].startswith(RENTAL_PREFIX)}
    rented = keys - bought
    found: dict[SupplyKey, Supply] = {}
    if bought:
        rows = _window_rows(session, {g for g, _ in bought}, currency)
        for gpu_id, group in bought:
            found[(gpu_id, group)] = count_asks(
                rows.get(gpu_id, []), group, currency.window_days, currency.now
            )
    if rented:
        offers = _offers(session, {g for g, _ in rented}, currency)
        for gpu_id, condition in rented:
            pricing = condition.removeprefix(RENTAL_PREFIX)
            if pricing not in PRICINGS:
                continue
            found[(gpu_id, condition)] = count_offers(offers.get(gpu_id, []), pricing, currency)
    return found


def _window_rows(
    session: Session, gpu_ids: Set[str], currency: Currency
) -> Mapping[str, list[AskRow]]:
    """Each card's market rows of the window, one per listing (site, listing id, measure,
    condition and source): a listing re-seen by every scrape is read once."""
    o = PriceObservation
    since = currency.now - timedelta(days=currency.window_days)
    conditions = sorted({c for members in CONDITION_GROUPS.values() for c in members})
    site = case(
        *((col(o.source) == alias, same) for alias, same in SAME_LISTINGS_AS.items()),
        else_=col(o.source),
    )
    listing: Any = col(o.listing_id)
    query = (
        select(col(o.gpu_id), col(o.condition), site, listing, col(o.measure), func.count())
        .where(
            col(o.gpu_id).in_(sorted(gpu_ids)),
            col(o.observed_at) >= since,
            col(o.observed_at) <= currency.now,
            col(o.condition).in_(conditions),
            col(o.quarantined).is_(False),
            col(o.kind).not_in(sorted(QUOTE_KINDS)),
            col(o.measure).in_(sorted({ASK, *AGGREGATE_MEASURES})),
        )
        .group_by(col(o.gpu_id), col(o.condition), site, listing, col(o.measure))
    )
    grouped: dict[str, list[AskRow]] = defaultdict(list)
    for gpu_id, condition, source, listing_id, measure, n in session.execute(query):
        # Rows without a listing id are each their own listing.
        copies = n if listing_id is None or listing_id == "" else 1
        grouped[gpu_id].extend(
            AskRow(gpu_id, condition, source, listing_id, measure) for _ in range(copies)
        )
    return grouped


def _offers(
    session: Session, gpu_ids: Set[str], currency: Currency
) -> Mapping[str, list[CloudOffer]]:
    """The cards' offers that may be current (older than the stale age never are)."""
    since = currency.now - timedelta(days=currency.stale_days)
    query = select(CloudOffer).where(
        col(CloudOffer.gpu_id).in_(sorted(gpu_ids)),
        col(CloudOffer.observed_at) >= since,
        col(CloudOffer.observed_at) <= currency.now,
    )
    grouped: dict[str, list[CloudOffer]] = defaultdict(list)
    for offer in session.execute(query).scalars():
        grouped[offer.gpu_id].append(offer)
    return grouped
