"""Per-zone cloud offers and their reduction to one record per instance type and region."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from shared.bundled._data import Skip
from shared.bundled.records import SNAPSHOT, CloudRecord
from shared.pricing.measures import CLOUD_LIST


@dataclass(frozen=True, slots=True)
class Offer:
    """One catalog row (AWS and GCP rows are per availability zone) with its GPU mapped."""

    instance_type: str
    gpu_id: str
    gpu_count: float
    region: str
    on_demand: Decimal | None
    spot: Decimal | None


@dataclass(frozen=True, slots=True)
class Provenance:
    provider: str
    source: str
    observed_at: datetime
    measure: str = CLOUD_LIST


_Key = tuple[str, str, str, float]


def _key(offer: Offer) -> _Key:
    return (offer.instance_type, offer.region, offer.gpu_id, offer.gpu_count)


def _cheapest(prices: Iterable[Decimal | None]) -> Decimal | None:
    known = [price for price in prices if price is not None]
    return min(known) if known else None


def _record(offers: list[Offer], origin: Provenance) -> CloudRecord | Skip:
    first = offers[0]
    # On-demand prices are the same in every zone of a region (checked on these snapshots);
    # spot prices differ by zone, and a user picks the zone, so the region gets the cheapest.
    on_demand = _cheapest(offer.on_demand for offer in offers)
    spot = _cheapest(offer.spot for offer in offers)
    if on_demand is None and spot is None:
        return Skip("no price")
    return CloudRecord(
        provider=origin.provider,
        instance_type=first.instance_type,
        gpu_id=first.gpu_id,
        gpu_count=first.gpu_count,
        region=first.region,
        on_demand_usd_per_hour=on_demand,
        spot_usd_per_hour=spot,
        kind=SNAPSHOT,
        source=origin.source,
        observed_at=origin.observed_at,
        measure=origin.measure,
    )


def to_records(
    outcomes: Iterable[Offer | Skip], origin: Provenance
) -> Iterator[CloudRecord | Skip]:
    """Skips pass through; offers are merged per (instance type, region), in first-seen order."""
    groups: dict[_Key, list[Offer]] = {}
    for outcome in outcomes:
        if isinstance(outcome, Skip):
            yield outcome
        else:
            groups.setdefault(_key(outcome), []).append(outcome)
    for offers in groups.values():
        yield _record(offers, origin)
