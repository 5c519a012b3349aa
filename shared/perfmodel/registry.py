"""Which performance model the product uses."""

from __future__ import annotations

from functools import lru_cache

from shared.catalog.specs import GpuSpec
from shared.perfmodel import rule_of_thumb
from shared.perfmodel.base import PerformanceModel


@lru_cache(maxsize=1)
def get_model() -> PerformanceModel:
    return rule_of_thumb.RuleOfThumbModel()


def multi_gpu_speedup(gpu: GpuSpec, count: int, task: str) -> float:
    return rule_of_thumb.multi_gpu_speedup(gpu, count, task)
