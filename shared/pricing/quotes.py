"""Quotes: prices posted to us (POST /prices, `gpu-advisor prices add`).

They are shown beside the market price and fire alerts, but never set it; the best
quote is the cheapest recent one that passed quarantine.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from shared.models import PriceObservation
from shared.pricing.measures import QUOTE_KINDS
from shared.pricing.quarantine import MARKET_GROUPS

QuoteKey = tuple[str, str]  # (gpu id, market group: "new" or "used")


def recent_quotes(
    session: Session, gpu_ids: Collection[str], now: datetime, max_age_days: int
) -> list[PriceObservation]:
    """Quotes of these GPUs from the last `max_age_days`, newest first."""
    if not gpu_ids:
        return []
    query = (
        select(PriceObservation)
        .where(
            col(PriceObservation.gpu_id).in_(sorted(set(gpu_ids))),
            col(PriceObservation.kind).in_(sorted(QUOTE_KINDS)),
            PriceObservation.observed_at >= now - timedelta(days=max_age_days),
        )
        .order_by(col(PriceObservation.observed_at).desc(), col(PriceObservation.id).desc())
    )
    return list(session.exec(query))


def best_quotes(quotes: Collection[PriceObservation]) -> dict[QuoteKey, PriceObservation]:
    """The cheapest quote per GPU and market group, quarantined ones left out."""
    best: dict[QuoteKey, PriceObservation] = {}
    for quote in quotes:
        if quote.quarantined:
            continue
        key = (quote.gpu_id, MARKET_GROUPS.get(quote.condition, quote.condition))
        held = best.get(key)
        if held is None or quote.price_usd < held.price_usd:
            best[key] = quote
    return best


def best_for(
    best: dict[QuoteKey, PriceObservation], gpu_id: str, condition: str
) -> PriceObservation | None:
    """The best quote for a ranking condition ("new", "used" or "any")."""
    groups = ("new", "used") if condition == "any" else (condition,)
    found = [q for g in groups if (q := best.get((gpu_id, g))) is not None]
    return min(found, key=lambda q: q.price_usd) if found else None
