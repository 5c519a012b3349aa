"""Cloud GPU instance prices from the bundled SkyPilot-format catalogs."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import date

from shared.bundled._data import (
    Skip,
    count_skips,
    parse_price,
    read_csv,
    records_only,
    utc_midnight,
)
from shared.bundled._offers import Offer, Provenance, to_records
from shared.bundled.gcp import gcp_offers
from shared.bundled.mapping import (
    AMBIGUOUS,
    AWS_FAMILIES,
    AZURE_TYPES,
    LAMBDA_TYPES,
    NOT_IN_CATALOG,
    RUNPOD_GPUS,
    VAST_GPUS,
    VAST_GPUS_BY_MEMORY,
)
from shared.bundled.records import CloudRecord
from shared.pricing.measures import MARKETPLACE_MEDIAN

Row = dict[str, str]
_ANYCLOUD = "anycloud-sh/catalog@62ff0a98"

# Snapshot date of each catalog and why (details in shared/data/SOURCES.md).
PROVENANCE: dict[str, Provenance] = {
    # No commit was recorded for the AWS copy; it has p6-b300 (GA 2025-11-18) and the June 2025
    # p4/p5 price cuts, so it is at least that new. The earliest possible date is used so that
    # its age is never understated.
    "aws": Provenance(
        "aws",
        "AWS EC2 via SkyPilot catalog v8 (skypilot-org/skypilot-catalog, after 2025-11-18)",
        utc_midnight(date(2025, 11, 18)),
    ),
    "azure": Provenance(
        "azure", f"Azure via {_ANYCLOUD} (2026-05-20)", utc_midnight(date(2026, 5, 20))
    ),
    "gcp": Provenance("gcp", f"GCP via {_ANYCLOUD} (2026-05-20)", utc_midnight(date(2026, 5, 20))),
    "lambda": Provenance(
        "lambda", f"Lambda Cloud via {_ANYCLOUD} (2026-05-07)", utc_midnight(date(2026, 5, 7))
    ),
    # SkyPilot catalog v6 RunPod: only known to hold pre-2025 prices; dated at the latest day
    # it can be from.
    "runpod": Provenance(
        "runpod",
        "RunPod via SkyPilot catalog v6 (skypilot-org/skypilot-catalog, pre-2025 prices)",
        utc_midnight(date(2024, 12, 31)),
    ),
    "vast": Provenance(
        "vast",
        f"Vast.ai marketplace median over offers via {_ANYCLOUD} (2026-04-29)",
        utc_midnight(date(2026, 4, 29)),
        MARKETPLACE_MEDIAN,
    ),
}
PROVIDERS = tuple(PROVENANCE)
_VAST_INSTANCE = re.compile(r"\d+x-(.+)-\d+-\d+")


def _unmapped(name: str) -> Skip:
    if name in NOT_IN_CATALOG:
        return Skip("GPU not in catalog")
    return Skip(AMBIGUOUS.get(name, "unmapped name"))


def _aws_gpu(row: Row) -> str | Skip:
    family = row["InstanceType"].split(".")[0]
    accelerator = row["AcceleratorName"]
    return AWS_FAMILIES.get((family, accelerator)) or _unmapped(f"aws:{accelerator}")


def _azure_gpu(row: Row) -> str | Skip:
    accelerator = row["AcceleratorName"]
    key = (row["InstanceType"], accelerator)
    return AZURE_TYPES.get(key) or _unmapped(f"azure:{accelerator}")


def _lambda_gpu(row: Row) -> str | Skip:
    if not row["AcceleratorName"]:
        return Skip("CPU-only instance")
    instance_type = row["InstanceType"]
    return LAMBDA_TYPES.get(instance_type) or _unmapped(f"lambda:{instance_type}")


def _runpod_gpu(row: Row) -> str | Skip:
    accelerator = row["AcceleratorName"]
    return RUNPOD_GPUS.get(accelerator) or _unmapped(f"runpod:{accelerator}")


def vast_gpu_name(instance_type: str) -> str:
    """Vast's model name inside the instance type: "2x-A100_SXM4-32-65536" -> "A100_SXM4"."""
    match = _VAST_INSTANCE.fullmatch(instance_type)
    return match.group(1) if match else instance_type


def vast_gib_per_gpu(row: Row) -> int:
    info = ast.literal_eval(row["GpuInfo"])  # a Python dict literal, not JSON
    total_mib = float(info["TotalGpuMemoryInMiB"])
    return round(total_mib / float(row["AcceleratorCount"]) / 1024)


def _mixed_memory_types(rows: list[Row]) -> set[str]:
    """Vast instance types whose rows report different memory sizes.

    The price of a Vast instance type is one median over all its offers (every row of a type has
    the same price), so a type seen with both 40 GB and 80 GB A100s prices a mix of two boards.
    """
    sizes: dict[str, set[int]] = {}
    for row in rows:
        sizes.setdefault(row["InstanceType"], set()).add(vast_gib_per_gpu(row))
    return {instance_type for instance_type, seen in sizes.items() if len(seen) > 1}


def _vast_gpu_mapper(rows: list[Row]) -> Callable[[Row], str | Skip]:
    mixed = _mixed_memory_types(rows)

    def vast_gpu(row: Row) -> str | Skip:
        if row["InstanceType"] in mixed:
            return Skip("median mixes memory sizes")
        name = vast_gpu_name(row["InstanceType"])
        by_memory = VAST_GPUS_BY_MEMORY.get((name, vast_gib_per_gpu(row)))
        return VAST_GPUS.get(name) or by_memory or _unmapped(f"vast:{name}")

    return vast_gpu


def _row_offer(row: Row, gpu: str | Skip) -> Offer | Skip:
    if isinstance(gpu, Skip):
        return gpu
    return Offer(
        instance_type=row["InstanceType"],
        gpu_id=gpu,
        gpu_count=float(row["AcceleratorCount"]),
        region=row["Region"],
        on_demand=parse_price(row["Price"]),
        spot=parse_price(row["SpotPrice"]),
    )


def _gpu_mapper(provider: str, rows: list[Row]) -> Callable[[Row], str | Skip]:
    mappers: dict[str, Callable[[Row], str | Skip]] = {
        "aws": _aws_gpu,
        "azure": _azure_gpu,
        "lambda": _lambda_gpu,
        "runpod": _runpod_gpu,
    }
    return _vast_gpu_mapper(rows) if provider == "vast" else mappers[provider]


def _offers(provider: str, rows: list[Row]) -> Iterator[Offer | Skip]:
    if provider == "gcp":
        yield from gcp_offers(rows)
        return
    gpu_of = _gpu_mapper(provider, rows)
    for row in rows:
        yield _row_offer(row, gpu_of(row))


def _provider_outcomes(provider: str) -> Iterator[CloudRecord | Skip]:
    rows = read_csv("cloud_prices", provider, "vms.csv")
    return to_records(_offers(provider, rows), PROVENANCE[provider])


def iter_cloud_offers(providers: Iterable[str] = PROVIDERS) -> Iterator[CloudRecord]:
    """One record per provider, instance type and region (zones merged, see _offers.py)."""
    for provider in providers:
        yield from records_only(_provider_outcomes(provider))


def cloud_skips() -> dict[str, Counter[str]]:
    """Source rows that gave no record, per provider and reason."""
    return {provider: count_skips(_provider_outcomes(provider)) for provider in PROVIDERS}
