"""Each provider's cheapest listed on-demand price per GPU and day, from gpu-price-feed
(toolshedlabs-hash/gpu-price-feed, 2026-07-23 .. 2026-10-04): RunPod, Vast.ai, Lambda,
DataCrunch, DigitalOcean, Akamai, Scaleway and Vultr, consumer cards included.

One record per collector run, provider and GPU key, per GPU-hour. Vast.ai numbers are one
host's ask and are kept as they are, outliers included: judging them is not the reader's job.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

from shared.bundled._data import Skip, count_skips, parse_price, read_csv, records_only
from shared.bundled.mapping import FEED_GPUS, FEED_NONSTANDARD_VRAM, FEED_NOT_IN_CATALOG
from shared.bundled.records import SNAPSHOT, CloudRecord
from shared.pricing.measures import PROVIDER_CHEAPEST

FEED_FILE = ("cloud_prices", "toolshedlabs-gpu-price-feed-2026", "cheapest.csv")
# The commit of each month's history file the copy was made from (its PROVENANCE.md).
FEED_COMMITS = {
    "2026-07": "dd071651",
    "2026-08": "03b0c630",
    "2026-09": "0563729f",
    "2026-10": "3c41e775",
}
FEED_SOURCE = (
    "gpu-price-feed (toolshedlabs-hash/gpu-price-feed@{commit}, history {month}): "
    "{provider}'s cheapest listed on-demand offer"
)
FEED_REGION = "global"  # the provider's cheapest offer in any of its regions

# Reasons a key gives no record, in the order they are checked.
VARIANT_UNSTATED = "variant unstated"
MIG_SLICE = "MIG slice, not a whole GPU"
MOBILE = "laptop part (Mobile)"
NONSTANDARD_VRAM = "VRAM of no standard card (modded or misreported)"
RAW_KEY = "raw key without VRAM"
NOT_IN_CATALOG = "GPU not in catalog"
UNMAPPED = "unmapped name"

_VRAM = re.compile(r"\b\d+GB\b")


def feed_gpu(key: str) -> str | Skip:
    """The catalog id a feed key names, or why it names none."""
    if key in FEED_NONSTANDARD_VRAM:
        return Skip(NONSTANDARD_VRAM)
    if key.endswith("(form unstated)"):
        return Skip(VARIANT_UNSTATED)
    if key.endswith(" MIG"):
        return Skip(MIG_SLICE)
    if key.endswith(" Mobile"):
        return Skip(MOBILE)
    if key in FEED_GPUS:
        return FEED_GPUS[key]
    if not _VRAM.search(key):
        return Skip(RAW_KEY)
    if key in FEED_NOT_IN_CATALOG:
        return Skip(NOT_IN_CATALOG)
    return Skip(UNMAPPED)


def _outcome(row: dict[str, str]) -> CloudRecord | Skip:
    key, provider = row["gpu_as_written"], row["provider"]
    gpu = feed_gpu(key)
    if isinstance(gpu, Skip):
        return gpu
    price = parse_price(row["usd_per_gpu_hour"])
    if price is None:
        return Skip("no price")
    at = datetime.fromisoformat(row["collected_at"]).astimezone(UTC)
    month = f"{at:%Y-%m}"
    return CloudRecord(
        provider=provider,
        instance_type=f"{key} cheapest on-demand",
        gpu_id=gpu,
        gpu_count=1.0,
        region=FEED_REGION,
        on_demand_usd_per_hour=price,
        spot_usd_per_hour=None,
        kind=SNAPSHOT,
        source=FEED_SOURCE.format(commit=FEED_COMMITS[month], month=month, provider=provider),
        observed_at=at,
        measure=PROVIDER_CHEAPEST,
    )


def _outcomes() -> Iterator[CloudRecord | Skip]:
    for row in read_csv(*FEED_FILE):
        yield _outcome(row)


def iter_feed_offers() -> Iterator[CloudRecord]:
    """One record per collector run, provider and mapped GPU key."""
    return records_only(_outcomes())


def feed_skips() -> Counter[str]:
    return count_skips(_outcomes())
