"""Newer cloud prices: the GPU price index (Sep-Oct 2026) and Prime Intellect's marketplace
(Oct-Nov 2025). Both are medians over many providers' prices, not one provider's list;
each record says which median it is (`measure`) and is dated per day."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

from shared.bundled._data import (
    Skip,
    count_skips,
    data_file,
    parse_price,
    read_csv,
    records_only,
    utc_midnight,
)
from shared.bundled.records import SNAPSHOT, CloudRecord
from shared.pricing.measures import MARKETPLACE_MEDIAN, SEGMENT_MEDIAN

INDEX_FILE = ("cloud_prices", "gpu-price-index-2026-10", "index-history.csv")
INDEX_PROVIDER = "gpu-price-index"
INDEX_SOURCE = (
    "GPU price index (ewyluda/gpu-price-index@0b49da20), {series} median of provider medians"
)
# "A100-40GB" names no form factor; the clouds in the index rent 40 GB A100s as SXM4
# (AWS p4d, GCP a2, Lambda), so it is the SXM4 card. "H100" and "A100-80GB" are SXM.
INDEX_GPUS = {
    # The HGX B300 (SXM) card, as AWS p6-b300 rents it; the source does not say whether a
    # provider's GB300 (superchip) price is counted as "B300".
    "B300": "b300",
    "B200": "b200",
    "H200": "h200-sxm",
    "H100": "h100-sxm5",
    "H100-NVL": "h100-nvl",
    "H100-PCIe": "h100-pcie",
    "MI300X": "mi300x",
    "A100-80GB": "a100-80gb-sxm4",
    "A100-80GB-PCIe": "a100-80gb-pcie",
    "A100-40GB": "a100-40gb-sxm4",
    "L40S": "l40s",
}
# The "index" series is the median over the segments below: an offer of none of them.
SERIES_MEASURES = {
    "hyperscaler": SEGMENT_MEDIAN,
    "neocloud": SEGMENT_MEDIAN,
    "marketplace": MARKETPLACE_MEDIAN,
    "spot": SEGMENT_MEDIAN,
}

MARKET_DIR = ("cloud_prices", "primeintellect-marketplace-2025-10")
MARKET_PROVIDER = "primeintellect"
MARKET_SOURCE = (
    "Prime Intellect marketplace median per GPU-hour, spot and on-demand offers mixed "
    "(tugot17/gpu-price-tracker@718a831c)"
)
# (gpu_type, socket_type) -> catalog id; the H200 141GB offers are SXM5 boards.
MARKET_GPUS = {
    ("A100_80GB", "PCIe"): "a100-80gb-pcie",
    ("A100_80GB", "SXM4"): "a100-80gb-sxm4",
    ("B200_180GB", None): "b200",
    ("GH200_96GB", None): "gh200",
    ("H100_80GB", "PCIe"): "h100-pcie",
    ("H100_80GB", "SXM5"): "h100-sxm5",
    ("H200_141GB", None): "h200-sxm",
}


def _index_outcome(row: dict[str, str]) -> CloudRecord | Skip:
    name, series = row["gpu_model"], row["series"]
    gpu_id = INDEX_GPUS.get(name)
    measure = SERIES_MEASURES.get(series)
    if gpu_id is None:
        return Skip("unmapped name")
    if measure is None:
        return Skip("aggregate of the other series")
    price = parse_price(row["usd_per_gpu_hour"])
    if price is None:
        return Skip("no price")
    spot = series == "spot"
    return CloudRecord(
        provider=INDEX_PROVIDER,
        instance_type=f"{name} {series} median",
        gpu_id=gpu_id,
        gpu_count=1.0,
        region="global",
        on_demand_usd_per_hour=None if spot else price,
        spot_usd_per_hour=price if spot else None,
        kind=SNAPSHOT,
        source=INDEX_SOURCE.format(series=series),
        observed_at=utc_midnight(date.fromisoformat(row["date"])),
        measure=measure,
    )


def _market_outcome(line: str) -> CloudRecord | Skip:
    day = json.loads(line, parse_float=Decimal)
    name = "_".join(filter(None, (day["gpu_type"], day.get("socket_type"))))
    gpu_id = MARKET_GPUS.get((day["gpu_type"], day.get("socket_type")))
    median = day.get("price_stats", {}).get("median")
    if gpu_id is None:
        return Skip("unmapped name")
    if median is None or Decimal(median) <= 0:
        return Skip("no price")
    at = datetime.fromisoformat(day["timestamp"]).astimezone(UTC)
    return CloudRecord(
        provider=MARKET_PROVIDER,
        instance_type=f"{name} marketplace median",
        gpu_id=gpu_id,
        gpu_count=1.0,
        region="global",
        on_demand_usd_per_hour=Decimal(median),
        spot_usd_per_hour=None,
        kind=SNAPSHOT,
        source=MARKET_SOURCE,
        observed_at=utc_midnight(at.date()),
        measure=MARKETPLACE_MEDIAN,
    )


def _outcomes() -> Iterator[CloudRecord | Skip]:
    for row in read_csv(*INDEX_FILE):
        yield _index_outcome(row)
    folder = data_file(*MARKET_DIR)
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if file.name.endswith(".jsonl"):
            for line in file.read_text("utf-8").splitlines():
                if line.strip():
                    yield _market_outcome(line)


def iter_cloud_medians() -> Iterator[CloudRecord]:
    """One record per GPU, series (or marketplace) and day."""
    return records_only(_outcomes())


def cloud_median_skips() -> Counter[str]:
    return count_skips(_outcomes())
