"""Current cloud prices per GPU-hour from the stored offers (scraped or bundled snapshots).

"Current" means each provider's newest price list: for a provider, only offers observed
within `window_days` of its newest offer of that GPU count. Older lists of the same
provider are history, not a price one can rent at today.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, select

from shared.models import CloudOffer

PRICINGS = ("on-demand", "spot")
PER_GPU_HOUR = Decimal("0.00001")


@dataclass(frozen=True, slots=True)
class CloudPrice:
    gpu_id: str
    provider: str
    instance_type: str
    region: str
    gpu_count: float
    usd_per_gpu_hour: Decimal
    pricing: str
    kind: str
    source: str
    observed_at: datetime


def _hourly(offer: CloudOffer, pricing: str) -> Decimal | None:
    return offer.on_demand_usd_per_hour if pricing == "on-demand" else offer.spot_usd_per_hour


def _current(offers: Iterable[CloudOffer], window_days: int) -> list[CloudOffer]:
    by_provider: dict[str, list[CloudOffer]] = defaultdict(list)
    for offer in offers:
        by_provider[offer.provider].append(offer)
    current: list[CloudOffer] = []
    for group in by_provider.values():
        since = max(o.observed_at for o in group) - timedelta(days=window_days)
        current.extend(o for o in group if o.observed_at >= since)
    return current


def to_price(offer: CloudOffer, pricing: str) -> CloudPrice | None:
    hourly = _hourly(offer, pricing)
    if hourly is None or hourly <= 0 or offer.gpu_count <= 0:
        return None
    per_gpu = (hourly / Decimal(str(offer.gpu_count))).quantize(PER_GPU_HOUR)
    return CloudPrice(
        offer.gpu_id,
        offer.provider,
        offer.instance_type,
        offer.region,
        offer.gpu_count,
        per_gpu,
        pricing,
        offer.kind,
        offer.source,
        offer.observed_at,
    )


def cheapest_offer(
    session: Session, gpu_id: str, pricing: str, window_days: int
) -> CloudPrice | None:
    """The cheapest current offer per GPU-hour; whole GPUs only (no fractional slices)."""
    offers = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == gpu_id)).all()
    whole = [o for o in offers if o.gpu_count >= 1 and _hourly(o, pricing) is not None]
    prices = [p for o in _current(whole, window_days) if (p := to_price(o, pricing))]
    if not prices:
        return None
    return min(prices, key=lambda p: (p.usd_per_gpu_hour, p.provider, p.instance_type))


def gpus_with_offers(session: Session, pricing: str) -> set[str]:
    column = (
        CloudOffer.on_demand_usd_per_hour
        if pricing == "on-demand"
        else CloudOffer.spot_usd_per_hour
    )
    query = select(CloudOffer.gpu_id).where(column.is_not(None)).distinct()  # type: ignore[union-attr]
    return set(session.exec(query))
