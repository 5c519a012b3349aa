"""The prices a /recommend answer used, by id: what a decision keeps beside the answer.

"Used" means, for each ranked result (never an unranked card, which has no price today):
- a purchase price: the card's market observations that the price was computed from,
  i.e. the rows of its series window. Those are the card's observations in the price's
  condition group (used includes refurbished), of the price's kind and its source(s),
  neither quarantined nor posted quotes, of the price's measure for a bundled series,
  observed within `market_window_days` up to the newest observation the price rests on
  (`price.observed_at`). The median may have left some of them out (a listing's earlier
  records, outliers beyond 1.5 IQR): they are listed too, marked `newest` where they are
  the observation the price's date is; no row that could not have counted is listed. An
  estimate (`price.estimated`) is that market price moved to today by the market index
  named in `price.basis`; the index's own observations (other cards) are not listed.
- a rental: the card's current cloud offers at the price's pricing (each provider's
  newest list within `price_stale_days`, `shared/pricing/cloud.py:current_offers`), the
  cheapest and the median of which make the price and its band; `rests_on` marks the
  offer the price is. A rental estimated from an aged-out offer lists that offer alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from shared.kit.settings import Settings
from shared.models import CloudOffer, PriceObservation
from shared.pricing.cloud import Currency, current_offers
from shared.pricing.market import CONDITION_GROUPS, SCRAPED

# Score.price_source keeps this many characters of the sources' names.
SOURCE_CHARS = 256


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def prices_used(
    session: Session, answer: dict[str, Any], settings: Settings, now: datetime
) -> list[dict[str, Any]]:
    """Per ranked result of `answer` (a /recommend body), the rows its price rests on."""
    used = []
    for result in answer.get("results", []):
        price = result["price"]
        entry: dict[str, Any] = {
            "rank": result["rank"],
            "gpu_id": result["gpu"]["id"],
            "condition": price["condition"],
            "unit": price["unit"],
            "usd": price["usd"],
            "estimated": price["estimated"],
            "observed_at": price["observed_at"],
            "price_observations": [],
            "cloud_offers": [],
        }
        if price["unit"] == "usd_per_gpu_hour":
            entry["pricing"] = price["pricing"]
            entry["cloud_offers"] = _offers(session, result["gpu"]["id"], price, settings, now)
        else:
            entry["price_observations"] = _observations(
                session, result["gpu"]["id"], price, settings
            )
        used.append(entry)
    return used


def _sources(text: str) -> tuple[set[str], str | None]:
    """The sources a price names, and a cut-off last one (a prefix) if it was cut."""
    names = text.split("; ")
    if len(text) >= SOURCE_CHARS:
        return set(names[:-1]), names[-1]
    return set(names), None


def _observations(
    session: Session, gpu_id: str, price: dict[str, Any], settings: Settings
) -> list[dict[str, Any]]:
    newest = _when(price["observed_at"])
    since = newest - timedelta(days=settings.market_window_days)
    query = select(PriceObservation).where(
        PriceObservation.gpu_id == gpu_id,
        col(PriceObservation.condition).in_(CONDITION_GROUPS.get(price["condition"], ())),
        PriceObservation.kind == price["kind"],
        col(PriceObservation.quarantined).is_(False),
        col(PriceObservation.owner_key_id).is_(None),
        col(PriceObservation.observed_at) >= since,
        col(PriceObservation.observed_at) <= newest,
    )
    if price["kind"] != SCRAPED:  # a bundled series is one source and measure
        query = query.where(PriceObservation.measure == price["measure"])
    names, cut = _sources(price["source"])
    rows = [
        row
        for row in session.exec(query.order_by(col(PriceObservation.id)))
        if row.source in names or (cut is not None and row.source.startswith(cut))
    ]
    return [_observation(row, newest) for row in rows]


def _observation(row: PriceObservation, newest: datetime) -> dict[str, Any]:
    return {
        "id": row.id,
        "condition": row.condition,
        "price_usd": str(row.price_usd),
        "kind": row.kind,
        "measure": row.measure,
        "source": row.source,
        "listing_id": row.listing_id,
        "observed_at": row.observed_at.isoformat(),
        "newest": row.observed_at == newest,
    }


def offer_label(offer: CloudOffer) -> str:
    """How a rental's source names its offer (shared/pricing/today.py)."""
    return f"{offer.provider} {offer.instance_type} ({offer.region}): {offer.source}"


def _offers(
    session: Session, gpu_id: str, price: dict[str, Any], settings: Settings, now: datetime
) -> list[dict[str, Any]]:
    pricing = price["pricing"]
    hourly = (
        CloudOffer.on_demand_usd_per_hour
        if pricing == "on-demand"
        else CloudOffer.spot_usd_per_hour
    )
    observed_at = _when(price["observed_at"])
    query = select(CloudOffer).where(CloudOffer.gpu_id == gpu_id, col(hourly).is_not(None))
    rows: Iterable[CloudOffer]
    if price["estimated"]:
        rows = session.exec(query.where(CloudOffer.observed_at == observed_at))
    else:
        rows = current_offers(session.exec(query), Currency.from_settings(settings, now))
    label = price["source"][:SOURCE_CHARS]
    return [
        _offer(row, row.observed_at == observed_at and offer_label(row)[:SOURCE_CHARS] == label)
        for row in sorted(rows, key=lambda o: o.id or 0)
    ]


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def _offer(row: CloudOffer, rests_on: bool) -> dict[str, Any]:
    return {
        "id": row.id,
        "provider": row.provider,
        "instance_type": row.instance_type,
        "region": row.region,
        "gpu_count": row.gpu_count,
        "on_demand_usd_per_hour": _money(row.on_demand_usd_per_hour),
        "spot_usd_per_hour": _money(row.spot_usd_per_hour),
        "kind": row.kind,
        "measure": row.measure,
        "source": row.source,
        "observed_at": row.observed_at.isoformat(),
        "rests_on": rests_on,
    }
