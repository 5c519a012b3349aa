"""Cloud instance prices to catalog GPU ids.

The reviewed tables of `shared.bundled.mapping` come first, keyed by instance family or
type, because an accelerator name alone can mislead (AWS p3 runs V100 SXM2 boards, which
"Tesla V100 16GB" alone would resolve to the PCIe card). The GPU name matcher covers the
rest (g5 "A10G", vast "RTX 4090", Azure names derived from the SKU).

Adapters also hand over rows they will not price, as `SkippedCloudListing`s, so that the
run counts each one with its reason instead of losing it inside the adapter.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from services.scraper.listing import CloudListing
from shared.bundled.mapping import (
    AMBIGUOUS,
    AWS_FAMILIES,
    AZURE_TYPES,
    LAMBDA_TYPES,
    VAST_GPUS,
)
from shared.matching.titles import resolve_gpu_name

UNMAPPED_GPU = "unmapped_gpu"
AMBIGUOUS_GPU = "ambiguous_gpu"
# A GPU machine whose GPUs per VM no reviewed table or family rule gives.
GPU_COUNT_UNKNOWN = "gpu_count_unknown"
# Reasons that mean "a GPU machine we could not map": the run summary lists these by name
# so that a new instance type shows up as work to do, not as a quietly smaller count.
UNMAPPED_REASONS = frozenset({UNMAPPED_GPU, AMBIGUOUS_GPU, GPU_COUNT_UNKNOWN})


@dataclass(frozen=True)
class SkippedCloudListing(CloudListing):
    """A row an adapter read and refuses to price, with the reason.

    It travels with the priced listings so that the pipeline's drop counters see it;
    `cloud_gpu_id` never maps it. `gpu_count` 0 means the count is not known.
    """

    skip_reason: str = ""

    def __post_init__(self) -> None:
        if self.gpu_count < 0:
            raise ValueError(f"gpu_count must be >= 0, got {self.gpu_count}")
        if not self.skip_reason:
            raise ValueError("a skipped listing needs its reason")

    @property
    def on_demand_usd_per_gpu_hour(self) -> Decimal | None:
        return None  # never a price per GPU: the row is not priced

    @property
    def spot_usd_per_gpu_hour(self) -> Decimal | None:
        return None


@lru_cache(maxsize=1)
def _aws_families() -> dict[str, str]:
    return {family: gpu_id for (family, _name), gpu_id in AWS_FAMILIES.items()}


@lru_cache(maxsize=1)
def _azure_types() -> dict[str, str]:
    return {instance: gpu_id for (instance, _name), gpu_id in AZURE_TYPES.items()}


def _reviewed(listing: CloudListing) -> str | None:
    provider, instance = listing.provider, listing.instance_type
    if provider == "aws":
        return _aws_families().get(instance.split(".")[0])
    if provider == "azure":
        return _azure_types().get(instance)
    if provider == "lambda":
        return LAMBDA_TYPES.get(instance)
    if provider == "vast":
        return VAST_GPUS.get(listing.gpu_name.replace(" ", "_"))
    return None


def cloud_gpu_id(listing: CloudListing) -> tuple[str | None, str]:
    """(gpu id, "matched") or (None, the reason it is not mapped)."""
    if isinstance(listing, SkippedCloudListing):
        return None, listing.skip_reason
    key = f"{listing.provider}:{listing.gpu_name.replace(' ', '_')}"
    if key in AMBIGUOUS:
        return None, AMBIGUOUS_GPU
    gpu_id = _reviewed(listing) or resolve_gpu_name(listing.gpu_name)
    return (gpu_id, "matched") if gpu_id else (None, UNMAPPED_GPU)
