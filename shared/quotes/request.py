"""The checks on a cluster quote request that its schema cannot make: GPUs the catalog
knows, and a count or a target (not both). Bounds and choices are in `schemas.py`."""

from __future__ import annotations

from shared.catalog.aliases import catalog_id
from shared.catalog.specs import GpuSpec
from shared.quotes.schemas import ClusterRequest, CompareRequest
from shared.tco.request import TcoInputError, gpu_spec


class QuoteInputError(TcoInputError):
    """Bad quote input: the field and its valid values (422 in the API, exit 2 in the CLI)."""


def spec_of(field_name: str, gpu_id: str) -> GpuSpec:
    # A QuoteInputError: the standard-quote job skips exactly those.
    return gpu_spec(field_name, gpu_id, QuoteInputError)


def validate(req: ClusterRequest) -> None:
    spec_of("gpu", req.gpu)
    for extra in req.additional_gpus:
        spec_of("additional_gpus", extra.gpu)
    if req.count is not None and (req.target_relative_throughput or req.memory_gb):
        raise QuoteInputError(
            "count",
            "give count or a target, not both",
            ["count", "target_relative_throughput", "memory_gb"],
        )


def cluster_with_catalog_ids(req: ClusterRequest) -> ClusterRequest:
    """The request with catalog ids for the GPU names or aliases it may give."""
    extra = [
        g.model_copy(update={"gpu": catalog_id("additional_gpus", g.gpu)})
        for g in req.additional_gpus
    ]
    return req.model_copy(update={"gpu": catalog_id("gpu", req.gpu), "additional_gpus": extra})


def compare_with_catalog_ids(req: CompareRequest) -> CompareRequest:
    candidates = [
        c.model_copy(update={"gpu": catalog_id("candidates.gpu", c.gpu)}) for c in req.candidates
    ]
    return req.model_copy(update={"candidates": candidates})
