"""A year of scraped prices, made up but shaped like the real thing, for the scale bench.

Deterministic for a seed and an end time. Listings, not single rows, are generated: a
listing is re-seen by every scrape of its source while it is up (one row per run, as
`services/scraper/store.py` stores them), and some eBay listings end in a sold record.
Popular consumer cards get most rows (Zipf over a popularity order), prices drift over
the year, and a few prices are typos far from the market, stored quarantined as the
scraper's quarantine rule would have done.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import insert, text
from sqlalchemy.engine import Engine

from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.money import CENT
from shared.models import CloudOffer, PriceObservation
from shared.pricing.market import SOLD_SUFFIX
from shared.pricing.measures import ASK, CLOUD_LIST, MARKETPLACE_OFFER, SALE
from shared.pricing.quarantine import MARKET_GROUPS, list_price_reference, quarantine_reason

DAYS = 365
ZIPF_S = 1.1
# Scraper sources (services/scraper/registry.py) with their scrape interval and share.
SOURCES: dict[str, tuple[int, float]] = {
    "ebay": (6, 0.45),
    "ebay_browse": (6, 0.20),
    "newegg": (12, 0.20),
    "bhphoto": (12, 0.15),
}
CONDITION_MIX = {
    "marketplace": (("used", 0.70), ("new", 0.20), ("refurbished", 0.10)),
    "retailer": (("new", 0.85), ("refurbished", 0.15)),
}
# The share of a listing's price a condition fetches, against a new card.
CONDITION_FACTOR = {"new": 1.0, "used": 0.62, "refurbished": 0.72}
SOLD_SHARE = 0.35  # eBay listings that end in a sale record
OUTLIER_SHARE = 0.002  # typos: an extra zero, a missing digit
# Cloud offers per price row: hourly lists are a small part of the data.
CLOUD_SHARE = 0.02
CLOUD_PROVIDERS = (
    ("aws", CLOUD_LIST, 24),
    ("azure", CLOUD_LIST, 24),
    ("vast", MARKETPLACE_OFFER, 6),
)
REGIONS = ("us-east-1", "us-west-2", "eu-west-1")
# The cards most listed on the used and new market, most listed first.
POPULAR = (
    "rtx-3090",
    "rtx-4090",
    "rtx-3060-12gb",
    "rtx-3080-10gb",
    "rtx-4070",
    "rtx-4060",
    "rtx-5090",
    "rtx-3070",
    "rtx-4080-super",
    "rtx-5070",
)
SEGMENT_PRICE = {"consumer": 600, "workstation": 4000, "datacenter": 15000}

PRICE_COLUMNS = (
    "gpu_id",
    "condition",
    "price",
    "currency",
    "price_usd",
    "kind",
    "source",
    "url",
    "listing_id",
    "title",
    "quantity",
    "observed_at",
    "quarantined",
    "measure",
)
OFFER_COLUMNS = (
    "provider",
    "instance_type",
    "gpu_id",
    "gpu_count",
    "region",
    "on_demand_usd_per_hour",
    "spot_usd_per_hour",
    "kind",
    "source",
    "observed_at",
    "measure",
)
PriceRow = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class ScaleSpec:
    rows: int
    seed: int = 15
    end: datetime = datetime(2026, 12, 1, tzinfo=UTC)

    @property
    def start(self) -> datetime:
        return self.end - timedelta(days=DAYS)


def popularity(catalog: Sequence[GpuSpec]) -> list[tuple[str, float]]:
    """(GPU id, weight): the popular cards, then consumer, workstation and datacenter
    cards newest first; weights 1/rank^s."""
    segment_rank = {"consumer": 0, "workstation": 1, "datacenter": 2}

    def order(g: GpuSpec) -> tuple[int, int, int, str]:
        head = POPULAR.index(g.id) if g.id in POPULAR else len(POPULAR)
        return head, segment_rank.get(g.segment, 3), -g.release_date.toordinal(), g.id

    ordered = sorted(catalog, key=order)
    return [(g.id, 1 / (rank + 1) ** ZIPF_S) for rank, g in enumerate(ordered)]


def base_price(gpu: GpuSpec) -> float:
    return float(gpu.launch_price_usd or SEGMENT_PRICE.get(gpu.segment, 1000))


def _drift(gpu: GpuSpec, day: float) -> float:
    """Prices fall ~15 % over the year with a seasonal wobble, per card its own phase."""
    phase = (sum(map(ord, gpu.id)) % 12) / 12 * 2 * math.pi
    return (1 - 0.15 * day / DAYS) * (1 + 0.04 * math.sin(2 * math.pi * day / 120 + phase))


def _pick(rng: random.Random, weighted: Sequence[tuple[str, float]]) -> str:
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def price_rows(spec: ScaleSpec) -> Iterator[PriceRow]:
    """Exactly `spec.rows` rows in PRICE_COLUMNS order."""
    rng = random.Random(spec.seed)
    catalog = load_catalog()
    gpus = popularity(list(catalog.by_id.values()))
    ids, weights = [g for g, _ in gpus], [w for _, w in gpus]
    sources = [(name, share) for name, (_, share) in SOURCES.items()]
    made = 0
    listing = 0
    while made < spec.rows:
        listing += 1
        gpu = catalog.by_id[rng.choices(ids, weights)[0]]
        source = _pick(rng, sources)
        marketplace = source.startswith("ebay")
        condition = _pick(rng, CONDITION_MIX["marketplace" if marketplace else "retailer"])
        for row in _listing_rows(rng, spec, gpu, source, condition, f"L{listing:08d}"):
            yield row
            made += 1
            if made == spec.rows:
                return


def _listing_rows(
    rng: random.Random, spec: ScaleSpec, gpu: GpuSpec, source: str, condition: str, listing_id: str
) -> Iterator[PriceRow]:
    interval_h = SOURCES[source][0]
    # More listings lately: the scraper covered more searches as the year went on.
    first_day = DAYS * math.sqrt(rng.random())
    runs = min(1 + int(rng.expovariate(1 / 4)), 40)
    list_price = base_price(gpu) * CONDITION_FACTOR[condition] * rng.lognormvariate(0, 0.08)
    first = spec.start + timedelta(days=first_day)
    title = f"{gpu.name} {condition}"
    url = f"https://{source}.example/item/{listing_id}"
    seen = first
    for run in range(runs):
        seen = first + timedelta(hours=interval_h * run)
        if seen > spec.end:
            return
        day = (seen - spec.start).total_seconds() / 86400
        yield _row(
            rng,
            gpu,
            condition,
            list_price * _drift(gpu, day),
            source,
            listing_id,
            url,
            title,
            seen,
            ASK,
        )
    if source == "ebay" and rng.random() < SOLD_SHARE:
        sold = datetime.combine(seen.date(), datetime.min.time(), UTC)
        day = (sold - spec.start).total_seconds() / 86400
        usd = list_price * 0.95 * _drift(gpu, day)
        yield _row(
            rng, gpu, condition, usd, source + SOLD_SUFFIX, listing_id, url, title, sold, SALE
        )


def _row(
    rng: random.Random,
    gpu: GpuSpec,
    condition: str,
    usd: float,
    source: str,
    listing_id: str,
    url: str,
    title: str,
    at: datetime,
    measure: str,
) -> PriceRow:
    price = Decimal(str(max(usd, 1.0))).quantize(CENT)
    quarantined = False
    if rng.random() < OUTLIER_SHARE:
        price = (price * Decimal(10) if rng.random() < 0.5 else price / Decimal(10)).quantize(CENT)
        reference = list_price_reference(Decimal(str(base_price(gpu))), MARKET_GROUPS[condition])
        quarantined = quarantine_reason(price, reference) is not None
    return (
        gpu.id,
        condition,
        price,
        "USD",
        price,
        "scraped",
        source,
        url,
        listing_id,
        title,
        1,
        at,
        quarantined,
        measure,
    )


def offer_rows(spec: ScaleSpec) -> Iterator[PriceRow]:
    """Hourly price lists of datacenter cards, one row per provider list and day."""
    rng = random.Random(spec.seed + 1)
    catalog = load_catalog()
    cards = sorted(g.id for g in catalog.by_id.values() if g.segment == "datacenter")
    wanted = int(spec.rows * CLOUD_SHARE)
    made = 0
    step = 0
    while made < wanted:
        gpu = catalog.by_id[cards[step % len(cards)]]
        provider, measure, interval_h = CLOUD_PROVIDERS[(step // len(cards)) % len(CLOUD_PROVIDERS)]
        region = REGIONS[(step // (len(cards) * len(CLOUD_PROVIDERS))) % len(REGIONS)]
        count = 8 if provider != "vast" else 1
        hourly = base_price(gpu) / 9000 * count * rng.lognormvariate(0, 0.1)
        # Spread over many (card, provider, region) lists even for small sizes.
        runs = min(wanted - made, DAYS * 24 // interval_h, max(1, wanted // (2 * len(cards))))
        for run in range(runs):
            at = spec.end - timedelta(hours=interval_h * run)
            on_demand = Decimal(str(hourly * (1 + 0.1 * run / runs))).quantize(Decimal("0.00001"))
            yield (
                provider,
                f"{gpu.id}-x{count}",
                gpu.id,
                float(count),
                region,
                on_demand,
                (on_demand * Decimal("0.4")).quantize(Decimal("0.00001")),
                "scraped",
                provider,
                at,
                measure,
            )
        made += runs
        step += 1


def insert_all(engine: Engine, spec: ScaleSpec) -> tuple[int, int]:
    """Insert the rows (COPY on PostgreSQL); returns (price rows, offer rows)."""
    if engine.dialect.name == "postgresql":
        prices = _copy(engine, "price_observation", PRICE_COLUMNS, price_rows(spec))
        offers = _copy(engine, "cloud_offer", OFFER_COLUMNS, offer_rows(spec))
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            # A year-old table has been vacuumed; index-only scans need the visibility map.
            conn.execute(text("VACUUM ANALYZE price_observation"))
            conn.execute(text("VACUUM ANALYZE cloud_offer"))
        return prices, offers
    prices = _batches(engine, PriceObservation, PRICE_COLUMNS, price_rows(spec))
    return prices, _batches(engine, CloudOffer, OFFER_COLUMNS, offer_rows(spec))


def _copy(engine: Engine, table: str, columns: Sequence[str], rows: Iterator[PriceRow]) -> int:
    raw = engine.raw_connection()
    n = 0
    try:
        cursor = raw.cursor()
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
        raw.commit()
    finally:
        raw.close()
    return n


def _batches(engine: Engine, model: type, columns: Sequence[str], rows: Iterator[PriceRow]) -> int:
    n = 0
    batch: list[dict[str, object]] = []
    with engine.begin() as conn:
        for row in rows:
            batch.append(dict(zip(columns, row, strict=True)))
            if len(batch) == 5000:
                conn.execute(insert(model), batch)
                n, batch = n + len(batch), []
        if batch:
            conn.execute(insert(model), batch)
            n += len(batch)
    return n
