"""Which performance model the product uses, and build-level speed-ups from it."""

from __future__ import annotations

from functools import lru_cache

from shared.catalog.specs import GpuSpec
from shared.perfmodel import scaling
from shared.perfmodel.base import PerformanceModel
from shared.perfmodel.calibrated import CalibratedModel

GPUS_PER_NODE = 8


@lru_cache(maxsize=1)
def get_model() -> PerformanceModel:
    return CalibratedModel()


def multi_gpu_speedup(gpu: GpuSpec, count: int, task: str, network: str = "infiniband") -> float:
    """Throughput of `count` GPUs relative to one; beyond 8, nodes over `network`."""
    fitted = CalibratedModel().params.scaling
    nodes = scaling.balanced_nodes(count, GPUS_PER_NODE)
    return scaling.cluster_speedup(fitted, gpu, task, nodes, network)
