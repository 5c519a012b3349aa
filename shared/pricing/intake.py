"""Prices posted to us (vendor quotes, manual entries): stored as quotes.

A quote is shown beside the market price and can fire alerts, but never becomes the
market price a ranking uses: one posted price must not move everyone's answer. It belongs
to the API key that posted it (None: an operator quote from the CLI); who sees it and
whose alerts it fires: shared/pricing/quotes.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session

from shared.catalog.specs import load_catalog
from shared.kit.errors import InputError
from shared.kit.money import CENT
from shared.kit.settings import Settings
from shared.models import PriceObservation
from shared.pricing.ingest import PriceRecord, ingest_prices
from shared.pricing.limits import MAX_USD
from shared.pricing.measures import QUOTE
from shared.pricing.quarantine import QuarantineRules, Reference

CONDITIONS = ("new", "used", "refurbished")
# Above any GPU's price; larger is a typo (an extra zero), not a market price.


class PriceRejected(InputError):
    """A price that cannot be stored."""


@dataclass(frozen=True, slots=True)
class PriceInput:
    gpu_id: str
    usd: Decimal
    condition: str
    source: str
    title: str | None = None
    url: str | None = None
    quantity: int = 1


def validate(price: PriceInput) -> None:
    catalog = load_catalog()
    if price.gpu_id not in catalog.by_id:
        raise PriceRejected("gpu_id", f"unknown GPU {price.gpu_id!r}; GET /gpus lists the ids")
    if price.condition not in CONDITIONS:
        raise PriceRejected("condition", f"invalid {price.condition!r}", list(CONDITIONS))
    # Checked at the cents that will be stored: 0.004 must not become a $0.00 price.
    if not CENT <= price.usd.quantize(CENT) <= MAX_USD:
        raise PriceRejected("usd", f"must be at least 0.01 and at most {MAX_USD}")
    if not price.source.strip():
        raise PriceRejected("source", "must name where the price came from")
    if price.quantity < 1:
        raise PriceRejected("quantity", "must be at least 1")


@dataclass(frozen=True, slots=True)
class RecordedPrice:
    """A stored quote, the reference it was checked against (None: nothing to check it
    against) and why it is quarantined (None: it is not)."""

    observation: PriceObservation
    reference: Reference | None
    quarantine_reason: str | None


def record_price(
    session: Session,
    price: PriceInput,
    settings: Settings,
    kind: str = "manual",
    owner_key_id: int | None = None,
) -> RecordedPrice:
    """Store one validated quote of `owner_key_id` (None: an operator quote); alerts
    follow after the caller commits.

    Stored as scraped prices are (shared/pricing/ingest.py): a price far from the market
    (the same quarantine rule, settings and reference; for a card with no market price its
    launch price or its peers') is stored quarantined: kept and visible, never fires an
    alert.
    """
    validate(price)
    record = PriceRecord(
        gpu_id=price.gpu_id,
        condition=price.condition,
        usd=price.usd.quantize(CENT),
        measure=QUOTE,
        kind=kind,
        source=price.source.strip(),
        observed_at=datetime.now(UTC),
        title=price.title,
        url=price.url,
        quantity=price.quantity,
        owner_key_id=owner_key_id,
    )
    rules = QuarantineRules.from_settings(settings)
    ingested = ingest_prices(session, [record], rules, now=record.observed_at)
    [observation], [reason] = ingested.rows, ingested.reasons
    return RecordedPrice(observation, ingested.references.get(record.reference_key), reason)
