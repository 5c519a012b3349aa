"""Real eBay Browse API search snapshots (GPU Poet's captures, 2023-12 .. 2025-11) as dated
asking prices: one record per listing a live scrape would have stored.

The CSV is made by `services/scraper/snapshot_bundle.py` from the raw responses with the
live adapter, title matcher and pipeline; here it is only read. Attribute "GPU Poet
(gpupoet.com)" wherever shown (CC BY-SA 4.0): every record's source does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal

from shared.bundled._data import read_csv, utc_midnight
from shared.bundled.records import SNAPSHOT, PriceRecord
from shared.pricing.measures import ASK

SNAPSHOT_FILE = ("retail_prices", "ebay-browse-snapshots", "listings.csv")
SOURCE = "eBay Browse API search snapshot via GPU Poet (gpupoet.com, CC BY-SA 4.0), captured {day}"


def iter_ebay_snapshot_prices() -> Iterator[PriceRecord]:
    """Active listings as captured: asking prices per card (shipping included where shown)."""
    for row in read_csv(*SNAPSHOT_FILE):
        captured = date.fromisoformat(row["captured"])
        yield PriceRecord(
            gpu_id=row["gpu_id"],
            condition=row["condition"],
            price_usd=Decimal(row["unit_usd"]),
            kind=SNAPSHOT,
            source=SOURCE.format(day=captured.isoformat()),
            url=f"https://www.ebay.com/itm/{row['item_id']}",
            listing_id=f"ebay:{row['item_id']}",
            title=row["title"][:512],
            observed_at=utc_midnight(captured),
            measure=ASK,
            quantity=int(row["quantity"]),
        )
