"""One way in for card prices: validated price records -> stored `PriceObservation` rows.

The scraper (services/scraper/runner.py, a run's accepted listings) and posted quotes
(POST /prices and `gpu-advisor prices add`, through shared/pricing/intake.py) both call
`ingest_prices`, so a price is judged, deduplicated, stored and announced the same way
whichever door it came in by:

1. quarantine: a price beyond `factor` times either way of its reference
   (shared/pricing/quarantine.py) is stored flagged, and never used; a live auction's
   current bid is not judged (it is never a market price, and stands far below one);
2. dedupe: a row whose (source, listing id, observed at) is stored already, or comes
   earlier in the batch, is left out (a sold listing is re-read by every run). A record
   without a listing id gets its own ("<kind>:<uuid>"): a posted quote is one listing;
3. store: rows are added and flushed, never updated (append-only), text cut to the
   columns' sizes; the caller commits;
4. recompute: the GPUs with a new usable price (not quarantined, not a bid) are sent to
   `compute.recompute_scores` after the commit (`enqueue_after_commit`); alerts follow.

Validation stays with each door: the scraper's pipeline (services/scraper/pipeline.py)
and intake.py's checks of a posted price, whose errors each answers in its own way.
Cloud offers (hourly rentals) are not price records: only the scraper stores them
(services/scraper/store.py), and nothing posts them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlmodel import Session, col, select

from shared.kit.events import enqueue_after_commit, recompute_call
from shared.models import PriceObservation
from shared.pricing.measures import BID
from shared.pricing.quarantine import (
    MARKET_GROUPS,
    MedianKey,
    QuarantineRules,
    Reference,
    quarantine_reason,
    reference_details,
)

# A live auction's current bid: judged by no reference, moves no score (and so fires no
# recompute); stored so that the auction's history is kept.
NOT_JUDGED = frozenset({BID})
# Keeps IN (...) lists well below every driver's parameter limit.
CHUNK = 500
# price_observation's column sizes (shared/models.py): longer text is cut, not refused.
SOURCE_CHARS = 128
LISTING_ID_CHARS = 128
URL_CHARS = 1024
TITLE_CHARS = 512

ObservationKey = tuple[str, str | None, datetime]


@dataclass(frozen=True, slots=True)
class PriceRecord:
    """One validated price of one card, in US dollars, before it is stored."""

    gpu_id: str
    # "new", "used" or "refurbished".
    condition: str
    # Per card, in cents (shipping included where the scraper saw it).
    usd: Decimal
    # What the price measures (shared/pricing/measures.py): sale, ask, bid, quote...
    measure: str
    # "scraped", or a quote kind ("manual").
    kind: str
    source: str
    observed_at: datetime
    # None: a new listing of its own ("<kind>:<uuid>").
    listing_id: str | None = None
    title: str | None = None
    url: str | None = None
    quantity: int = 1
    # The API key a posted quote belongs to (None: a market price or an operator quote).
    owner_key_id: int | None = None

    @property
    def reference_key(self) -> MedianKey:
        """(GPU, market group): what the quarantine compares the price with."""
        return (self.gpu_id, MARKET_GROUPS[self.condition])

    @property
    def judged(self) -> bool:
        return self.measure not in NOT_JUDGED


@dataclass(frozen=True)
class Ingested:
    """What `ingest_prices` made of a batch."""

    # One row per record, in order, each flagged quarantined or not.
    rows: list[PriceObservation]
    # Why each row is quarantined (None: it is not), in the same order.
    reasons: list[str | None]
    # The reference each judged (GPU, market group) was compared with; absent: none known.
    references: dict[MedianKey, Reference]
    # The rows that were new, so stored (all of `rows` less `already_stored`).
    stored: list[PriceObservation]
    already_stored: int
    # The GPUs whose usable prices changed: their recompute is enqueued.
    gpu_ids: list[str]


def ingest_prices(
    session: Session,
    records: Sequence[PriceRecord],
    rules: QuarantineRules,
    *,
    now: datetime,
    dry_run: bool = False,
) -> Ingested:
    """Judge, dedupe and store `records` (see the module docstring); references are read
    as of `now`. A dry run reads the database the same way and writes and sends nothing."""
    keys = {record.reference_key for record in records if record.judged}
    references = reference_details(session, keys, now, rules) if keys else {}
    usd = {key: reference.usd for key, reference in references.items()}
    reasons = quarantine_reasons(records, usd, rules.factor)
    rows = [
        observation(record, quarantined=reason is not None)
        for record, reason in zip(records, reasons, strict=True)
    ]
    # A generated listing id is new by construction: nothing to look up.
    known = [
        row for row, record in zip(rows, records, strict=True) if record.listing_id is not None
    ]
    stored_keys = _stored_keys(session, known)
    stored: list[PriceObservation] = []
    for row in rows:
        key = _key(row)
        if key not in stored_keys:
            stored_keys.add(key)
            stored.append(row)
    gpu_ids = sorted({row.gpu_id for row in stored if moves_scores(row)})
    if not dry_run:
        session.add_all(stored)
        session.flush()
        if gpu_ids:
            enqueue_after_commit(session, recompute_call(gpu_ids))
    return Ingested(rows, reasons, references, stored, len(rows) - len(stored), gpu_ids)


def quarantine_reasons(
    records: Sequence[PriceRecord], references: Mapping[MedianKey, Decimal], factor: Decimal
) -> list[str | None]:
    """Why each record is held back against its reference (None: it is not, or it is a
    bid, which is never judged); pure, for the pipeline's and the quote's records alike."""
    return [
        quarantine_reason(record.usd, references.get(record.reference_key), factor)
        if record.judged
        else None
        for record in records
    ]


def moves_scores(row: PriceObservation) -> bool:
    """A stored price the recompute (and the alerts after it) should see."""
    return not row.quarantined and row.measure not in NOT_JUDGED


def observation(record: PriceRecord, *, quarantined: bool = False) -> PriceObservation:
    """The row of one record (not added to any session)."""
    listing_id = record.listing_id
    if listing_id is None:
        listing_id = f"{record.kind}:{uuid.uuid4().hex}"
    return PriceObservation(
        gpu_id=record.gpu_id,
        condition=record.condition,
        price=record.usd,
        currency="USD",
        price_usd=record.usd,
        kind=record.kind,
        source=record.source[:SOURCE_CHARS],
        url=_cut(record.url, URL_CHARS),
        listing_id=listing_id[:LISTING_ID_CHARS],
        title=_cut(record.title, TITLE_CHARS),
        quantity=record.quantity,
        observed_at=record.observed_at,
        quarantined=quarantined,
        measure=record.measure,
        owner_key_id=record.owner_key_id,
    )


def _cut(text: str | None, chars: int) -> str | None:
    return None if text is None else text[:chars]


def _key(row: PriceObservation) -> ObservationKey:
    return (row.source, row.listing_id, row.observed_at)


def _stored_keys(session: Session, rows: Sequence[PriceObservation]) -> set[ObservationKey]:
    """The (source, listing id, observed at) of `rows` that are stored already."""
    sources = sorted({row.source for row in rows})
    ids = sorted({row.listing_id for row in rows if row.listing_id is not None})
    found: set[ObservationKey] = set()
    for start in range(0, len(ids), CHUNK):
        query = select(
            PriceObservation.source, PriceObservation.listing_id, PriceObservation.observed_at
        ).where(
            col(PriceObservation.source).in_(sources),
            col(PriceObservation.listing_id).in_(ids[start : start + CHUNK]),
        )
        found.update(session.exec(query))
    return found
