"""Which performance model the product uses, and build-level speed-ups from it."""

from __future__ import annotations

from functools import lru_cache

from shared.catalog.specs import GpuSpec
from shared.perfmodel import scaling
from shared.perfmodel.classmodel import ClassModel

GPUS_PER_NODE = 8


@lru_cache(maxsize=1)
def get_model() -> ClassModel:
    return ClassModel()


def multi_gpu_speedup(gpu: GpuSpec, count: int, task: str, network: str = "infiniband") -> float:
    """Data-parallel throughput of `count` GPUs relative to one; beyond 8, balanced nodes
    over `network`. Efficiencies per interconnect are fitted on MLPerf (classfit.py)."""
    nodes = scaling.balanced_nodes(count, GPUS_PER_NODE)
    return get_model().cluster_speedup(gpu, nodes, network)
