"""A run's pipeline output as what is stored: price records and cloud offers.

Listings become `PriceRecord`s (shared/pricing/ingest.py), which the runner hands to the
one ingest path of scraped and posted prices: it judges, dedupes and stores them. Cloud
offers are stored here, append-only like prices (nothing posts them, so they have no
other path); functions here only flush, and the runner commits once per source run.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, time
from decimal import Decimal

from services.scraper.cloud_match import cloud_gpu_id
from services.scraper.listing import CloudListing, ListingType
from services.scraper.pipeline import (
    Drop,
    PricedListing,
    validate_cloud,
)
from shared.models import CloudOffer
from shared.pricing.ingest import PriceRecord
from shared.pricing.market import SOLD_SUFFIX
from shared.pricing.measures import ASK, BID, CLOUD_LIST, MARKETPLACE_OFFER, SALE

SCRAPED = "scraped"


def observed_at(item: PricedListing, run_at: datetime) -> datetime:
    """A sale is dated by its sale day (midnight UTC, never after the run); asking prices
    by the run that saw them."""
    sold_at = item.listing.sold_at
    if item.listing.listing_type is not ListingType.SOLD or sold_at is None:
        return run_at
    return min(datetime.combine(sold_at, time(0), UTC), run_at)


MEASURES = {ListingType.ACTIVE: ASK, ListingType.SOLD: SALE, ListingType.AUCTION: BID}


def to_record(item: PricedListing, source: str, run_at: datetime) -> PriceRecord:
    """A sale is stored under "<source>:sold"; an asking price and a live auction's current
    bid under the source, told apart by their measure."""
    listing = item.listing
    sold = listing.listing_type is ListingType.SOLD
    return PriceRecord(
        gpu_id=item.gpu_id,
        condition=item.condition,
        usd=item.unit_price_usd,
        measure=MEASURES[listing.listing_type],
        kind=SCRAPED,
        source=source + SOLD_SUFFIX if sold else source,
        observed_at=observed_at(item, run_at),
        listing_id=listing.listing_id,
        title=listing.title,
        url=listing.url,
        quantity=item.quantity,
    )


def to_cloud_offers(
    listings: Iterable[CloudListing], source: str
) -> tuple[list[CloudOffer], list[Drop]]:
    """Validated, mapped offers; one per (provider, instance type, region): the cheapest,
    because marketplace hosts (vast) offer the same configuration many times."""
    validated = validate_cloud(listings)
    drops = list(validated.dropped)
    best: dict[tuple[str, str, str], tuple[CloudListing, str]] = {}
    for listing in validated.kept:
        gpu_id, reason = cloud_gpu_id(listing)
        if gpu_id is None:
            drops.append(Drop("match", reason, listing, listing.gpu_name))
            continue
        key = (listing.provider, listing.instance_type, listing.region)
        held = best.get(key)
        if held is None or _hourly(listing) < _hourly(held[0]):
            if held is not None:
                drops.append(Drop("dedupe", "cheaper_offer_kept", held[0]))
            best[key] = (listing, gpu_id)
        else:
            drops.append(Drop("dedupe", "cheaper_offer_kept", listing))
    offers = [_offer(listing, gpu_id, source) for listing, gpu_id in best.values()]
    return offers, drops


def _hourly(listing: CloudListing) -> Decimal:
    price = listing.on_demand_usd_per_hour
    return price if price is not None else (listing.spot_usd_per_hour or Decimal(0))


def _offer(listing: CloudListing, gpu_id: str, source: str) -> CloudOffer:
    return CloudOffer(
        provider=listing.provider[:32],
        instance_type=listing.instance_type[:128],
        gpu_id=gpu_id,
        gpu_count=float(listing.gpu_count),
        region=listing.region[:64],
        on_demand_usd_per_hour=listing.on_demand_usd_per_hour,
        spot_usd_per_hour=listing.spot_usd_per_hour,
        kind=SCRAPED,
        source=source,
        observed_at=listing.observed_at,
        # A marketplace's row is one host's offer; a provider's is its price list.
        measure=MARKETPLACE_OFFER if listing.offer_id is not None else CLOUD_LIST,
    )
