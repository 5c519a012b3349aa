"""vast.ai's daily US marketplace, 2026-02-26 .. 2026-03-06 (CCIR's collector, ccir-index/cri-h100):
one record per catalog card and day, the median of that day's listed offers per GPU-hour.

The offers are on-demand asks of rentable listings (vast.ai's interruptible bids are not
in the data). Names map through the Vast tables of `mapping.py`; an offer whose memory is
not the card's (a 48 GB RTX 4090 is a modded board) prices no catalog card.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterator
from datetime import date
from decimal import Decimal

from shared.bundled._data import Skip, count_skips, parse_price, read_csv, utc_midnight
from shared.bundled.mapping import AMBIGUOUS, VAST_GPUS, VAST_GPUS_BY_MEMORY
from shared.bundled.records import SNAPSHOT, CloudRecord
from shared.catalog.specs import load_catalog
from shared.pricing.cloud import PER_GPU_HOUR
from shared.pricing.measures import MARKETPLACE_MEDIAN

VAST_DAILY_FILE = ("cloud_prices", "ccir-vastai-2026-03", "offers.csv")
VAST_DAILY_PROVIDER = "vastai"  # the price feed's name for the same marketplace
VAST_DAILY_SOURCE = (
    "vast.ai US marketplace via CCIR (ccir-index/cri-h100@ca1ecfa3, CC BY 4.0): "
    "median of {n} listed offer{s} that day"
)
NONSTANDARD_VRAM = "VRAM of no standard card (modded or misreported)"
# Memory a board reports is a little under its nominal size (an L40S shows 45 GiB of 48 GB);
# a modded RTX 4090 shows twice its 24 GB.
VRAM_TOLERANCE = 0.1

Row = dict[str, str]


def vast_daily_gpu(row: Row) -> str | Skip:
    """The catalog id of an offer's GPU, or why it names none."""
    name = row["gpu_name"].replace(" ", "_")
    if f"vast:{name}" in AMBIGUOUS:
        return Skip(AMBIGUOUS[f"vast:{name}"])
    gib = float(row["gpu_ram_mib"]) / 1024
    gpu_id = VAST_GPUS.get(name) or VAST_GPUS_BY_MEMORY.get((name, round(gib)))
    if gpu_id is None:
        return Skip("unmapped name")
    nominal = load_catalog().by_id[gpu_id].memory_gb
    if abs(gib - nominal) > VRAM_TOLERANCE * nominal:
        return Skip(NONSTANDARD_VRAM)
    return gpu_id


def _outcomes() -> Iterator[CloudRecord | Skip]:
    days: dict[tuple[str, str], list[Decimal]] = {}
    for row in read_csv(*VAST_DAILY_FILE):
        gpu = vast_daily_gpu(row)
        price = parse_price(row["usd_per_gpu_hour"])
        if isinstance(gpu, Skip):
            yield gpu
        elif price is None:
            yield Skip("no price")
        else:
            days.setdefault((gpu, row["date"]), []).append(price)
    for (gpu_id, day), prices in days.items():
        median = Decimal(statistics.median(prices)).quantize(PER_GPU_HOUR)
        yield CloudRecord(
            provider=VAST_DAILY_PROVIDER,
            instance_type=f"{gpu_id} US marketplace median",
            gpu_id=gpu_id,
            gpu_count=1.0,
            region="us",
            on_demand_usd_per_hour=median,
            spot_usd_per_hour=None,
            kind=SNAPSHOT,
            source=VAST_DAILY_SOURCE.format(n=len(prices), s="s" if len(prices) > 1 else ""),
            observed_at=utc_midnight(date.fromisoformat(day)),
            measure=MARKETPLACE_MEDIAN,
        )


def iter_vast_daily() -> Iterator[CloudRecord]:
    """One record per catalog card and day with a mapped offer."""
    for outcome in _outcomes():
        if not isinstance(outcome, Skip):
            yield outcome


def vast_daily_skips() -> Counter[str]:
    """Offers that priced no catalog card, per reason."""
    return count_skips(_outcomes())
