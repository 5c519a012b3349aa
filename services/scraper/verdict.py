"""What a scrape run would make of one parsed listing or cloud offer, and why.

For looking at a single page (`gpu-advisor parse-page`): the pipeline's own stages and
the cloud matcher give the verdict, so it cannot drift from what a run stores. The
quarantine against recent medians and the dedupe across pages need a database and a
whole run; they are not part of a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.scraper.cloud_match import SkippedCloudListing, cloud_gpu_id
from services.scraper.exchange import Exchange
from services.scraper.listing import CloudListing, RawListing
from services.scraper.pipeline import (
    MATCHED,
    PriceBounds,
    TitleMatch,
    TitleMatcher,
    normalize,
    validate,
    validate_cloud,
)


@dataclass(frozen=True)
class ListingVerdict:
    gpu_id: str | None
    # GPUs in the listing (a lot of 2 is 2); None when the title matched no GPU.
    quantity: int | None
    # Why the listing has no usable price or GPU: its price issue, else the matcher's
    # rejection, else the pipeline's (for parts, no exchange rate, out of bounds...).
    # None: kept.
    reason: str | None


def listing_verdict(
    listing: RawListing,
    matcher: TitleMatcher,
    bounds: PriceBounds,
    exchange: Exchange | None = None,
) -> ListingVerdict:
    """The run's verdict; give it the run's `exchange` (without one, a price shown in
    another currency is refused, as in a run given no rates)."""
    match = matcher(listing.title)
    matched = match.reason == MATCHED and match.gpu_id is not None
    gpu_id = match.gpu_id if matched else None
    quantity = (1 if match.quantity is None else match.quantity) if matched else None
    if listing.price_issue is not None:
        return ListingVerdict(gpu_id, quantity, listing.price_issue)
    if not matched:
        reason = match.reason if match.reason != MATCHED else "matcher_gave_no_gpu"
        return ListingVerdict(None, None, reason)
    return ListingVerdict(gpu_id, quantity, _pipeline_reason(listing, match, bounds, exchange))


def _pipeline_reason(
    listing: RawListing, match: TitleMatch, bounds: PriceBounds, exchange: Exchange | None
) -> str | None:
    normalized = normalize([listing], lambda _title: match, exchange)
    if normalized.dropped:
        return normalized.dropped[0].reason
    validated = validate(normalized.kept, bounds)
    return validated.dropped[0].reason if validated.dropped else None


@dataclass(frozen=True)
class CloudVerdict:
    # The offer, with the prices of its other rows merged in (Azure lists on-demand and
    # spot as separate rows).
    listing: CloudListing
    gpu_id: str | None
    # Why the offer is not stored (skipped by the adapter, no price, unmapped GPU).
    reason: str | None


OfferKey = tuple[str, str, str, str | None]


def cloud_verdicts(listings: Iterable[CloudListing]) -> list[CloudVerdict]:
    """One verdict per offer (provider, instance type, region, offer id), in page order."""
    rows = list(listings)
    skipped = [row for row in rows if isinstance(row, SkippedCloudListing)]
    validated = validate_cloud(row for row in rows if not isinstance(row, SkippedCloudListing))
    kept = {_key(row): row for row in validated.kept}
    problems: dict[OfferKey, str] = {}
    for drop in validated.dropped:
        if isinstance(drop.listing, CloudListing):
            problems.setdefault(_key(drop.listing), drop.reason)
    for skip in skipped:
        problems.setdefault(_key(skip), skip.skip_reason)
    verdicts: dict[OfferKey, CloudVerdict] = {}
    for row in rows:
        key = _key(row)
        if key in verdicts:
            continue
        offer = kept.get(key)
        if offer is None:
            verdicts[key] = CloudVerdict(row, None, problems.get(key, "missing_price"))
            continue
        gpu_id, reason = cloud_gpu_id(offer)
        verdicts[key] = CloudVerdict(offer, gpu_id, None if gpu_id else reason)
    return list(verdicts.values())


def _key(listing: CloudListing) -> OfferKey:
    return (listing.provider, listing.instance_type, listing.region, listing.offer_id)
