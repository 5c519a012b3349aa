"""Cloud instance prices to catalog GPU ids.

The reviewed tables of `shared.bundled.mapping` come first, keyed by instance family or
type, because an accelerator name alone can mislead (AWS p3 runs V100 SXM2 boards, which
"Tesla V100 16GB" alone would resolve to the PCIe card). The GPU name matcher covers the
rest (g5 "A10G", vast "RTX 4090").
"""

from __future__ import annotations

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
    key = f"{listing.provider}:{listing.gpu_name.replace(' ', '_')}"
    if key in AMBIGUOUS:
        return None, "ambiguous_gpu"
    gpu_id = _reviewed(listing) or resolve_gpu_name(listing.gpu_name)
    return (gpu_id, "matched") if gpu_id else (None, "unmapped_gpu")
