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


def multi_gpu_speedup(
    gpu: GpuSpec, count: int, task: str, network: str = "infiniband", precision: str = "fp16"
) -> float:
    """Data-parallel throughput of `count` GPUs of a training task family relative to one;
    beyond 8, balanced nodes over `network` (data_parallel.py inside a node)."""
    nodes = scaling.balanced_nodes(count, GPUS_PER_NODE)
    result = get_model().predict_task(
        gpu, task, precision, count=count, nodes=nodes, network=network
    )
    if result is None:
        raise ValueError(f"{gpu.id} cannot train {task} at {precision}")
    return result.multi_gpu_speedup
