"""How many GPUs a quote prices: the given count, or the fewest that meet the targets."""

from __future__ import annotations

import math

from shared.builds.layout import plan_layout
from shared.builds.schemas import MAX_GPUS
from shared.builds.speed import performance
from shared.catalog.specs import GpuSpec
from shared.perfmodel.classmodel import ClassModel
from shared.quotes.request import QuoteInputError
from shared.quotes.schemas import ClusterRequest


def resolve_count(req: ClusterRequest, spec: GpuSpec, model: ClassModel) -> int:
    """`count`, or the fewest GPUs meeting the memory and throughput targets."""
    if req.count is not None:
        return req.count
    count = 1
    if req.memory_gb is not None:
        count = max(count, math.ceil(req.memory_gb / spec.memory_gb))
    if req.target_relative_throughput is not None:
        count = max(count, _count_for_throughput(req, spec, req.target_relative_throughput, model))
    if count > MAX_GPUS:
        raise QuoteInputError("memory_gb", f"needs {count} GPUs", [f"at most {MAX_GPUS} GPUs"])
    return count


def _count_for_throughput(
    req: ClusterRequest, spec: GpuSpec, target: float, model: ClassModel
) -> int:
    for count in range(1, MAX_GPUS + 1):
        lay = plan_layout([spec], count, req.deployment)
        perf = performance(
            model, [spec], lay, req.task, req.precision, req.network, req.power_limit_w
        )
        if perf.relative_throughput >= target:
            return count
    raise QuoteInputError(
        "target_relative_throughput",
        f"{MAX_GPUS} x {spec.id} do not reach {target:g}",
        [f"a target below {MAX_GPUS} GPUs' throughput"],
    )
