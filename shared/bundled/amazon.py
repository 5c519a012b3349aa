"""Amazon.com New Buy Box price history (Keepa), one record per price change event."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from importlib.resources.abc import Traversable

from shared.bundled._data import Skip, count_skips, data_file, records_only
from shared.bundled.mapping import AMAZON_FILES, NOT_IN_CATALOG
from shared.bundled.records import NEW, SNAPSHOT, PriceRecord
from shared.pricing.measures import ASK

AMAZON_DIR = ("retail_prices", "amazon-buybox-new-2025-08")
TRACKER = "United-Compute/gpu-price-tracker"
TRACKER_COMMIT = "70a1a5f2"
# The RTX 5090 file was copied from an earlier tracker commit (2025-08-04).
FILE_COMMITS = {"NVIDIA_GeForce_RTX_5090": "0161311b"}


def amazon_source(stem: str) -> str:
    commit = FILE_COMMITS.get(stem, TRACKER_COMMIT)
    return f"Amazon.com New Buy Box via Keepa ({TRACKER}@{commit})"


def _tracker_files() -> list[Traversable]:
    folder = data_file(*AMAZON_DIR)
    return sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


def _observed_at(timestamp: str) -> datetime:
    # Keepa times are UTC; the tracker wrote them without an offset. Some early points were
    # written in CEST (UTC+2) and cannot be told apart, so they may be up to 2 h late.
    return datetime.fromisoformat(timestamp).replace(tzinfo=UTC)


def _event(stem: str, gpu_id: str, timestamp: str, price: Decimal) -> PriceRecord | Skip:
    if price <= 0:
        return Skip("non-positive price")
    return PriceRecord(
        gpu_id=gpu_id,
        condition=NEW,
        price_usd=price,
        kind=SNAPSHOT,
        source=amazon_source(stem),
        url=None,
        listing_id=f"amazon:{stem}",
        # The file's gpu_name is the tracker's label, not the listing title, and one of them
        # ("H100 PCIe 96 GB") names the wrong board; the mapping, not the label, is authoritative.
        title=None,
        observed_at=_observed_at(timestamp),
        measure=ASK,  # the Buy Box: the offer a buyer gets at that moment
    )


def _file_outcomes(file: Traversable) -> Iterator[PriceRecord | Skip]:
    stem = file.name.removesuffix(".json")
    # parse_float keeps cents exact: a float never touches the price.
    prices: dict[str, Decimal | int] = json.loads(file.read_text("utf-8"), parse_float=Decimal)[
        "prices"
    ]
    gpu_id = AMAZON_FILES.get(stem)
    for timestamp, price in prices.items():
        if f"amazon:{stem}" in NOT_IN_CATALOG:
            yield Skip("GPU not in catalog")
        elif gpu_id is None:
            yield Skip("unmapped name")
        else:
            yield _event(stem, gpu_id, timestamp, Decimal(price))


def _outcomes() -> Iterator[PriceRecord | Skip]:
    for file in _tracker_files():
        yield from _file_outcomes(file)


def iter_amazon_prices() -> Iterator[PriceRecord]:
    """Every Buy Box change event of every tracked listing, oldest first per listing."""
    return records_only(_outcomes())


def amazon_skips() -> Counter[str]:
    return count_skips(_outcomes())
