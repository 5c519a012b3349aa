"""Launch MSRPs from the GPU catalog, as new-condition price records dated at release."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from shared.bundled._data import utc_midnight
from shared.bundled.records import MSRP, NEW, PriceRecord
from shared.catalog.specs import GpuSpec, load_catalog
from shared.pricing.measures import LIST_PRICE

# gpu_catalog.md: a launch price comes from a vendor announcement (`msrp:*`) or, where Epoch AI
# has the same price, carries the tag `epoch` instead.
EPOCH_TAG = "epoch"
MSRP_TAG_PREFIX = "msrp:"


def price_source_tag(gpu: GpuSpec) -> str:
    """The tag in the catalog's `sources` column that the launch price came from."""
    tags = gpu.sources.split(";")
    for tag in tags:
        if tag.startswith(MSRP_TAG_PREFIX):
            return tag
    if EPOCH_TAG in tags:
        return EPOCH_TAG
    raise ValueError(f"{gpu.id}: launch price without a price source tag in {gpu.sources!r}")


def _msrp_record(gpu: GpuSpec, price: int) -> PriceRecord:
    return PriceRecord(
        gpu_id=gpu.id,
        condition=NEW,
        price_usd=Decimal(price),
        kind=MSRP,
        source=f"GPU catalog launch MSRP ({price_source_tag(gpu)})",
        url=None,
        listing_id=f"msrp:{gpu.id}",
        title=gpu.name,
        observed_at=utc_midnight(gpu.release_date),
        measure=LIST_PRICE,
    )


def iter_msrp_prices() -> Iterator[PriceRecord]:
    """One record per catalog GPU that has an official launch price."""
    for gpu in load_catalog().gpus:
        if gpu.launch_price_usd is not None:
            yield _msrp_record(gpu, gpu.launch_price_usd)
