"""The performance model's interface: a pure function of catalog specs and inputs.

Every model answers the same question:
how fast does this GPU train (or infer) a task family at a precision, relative to the
reference GPU at the same task family and precision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from shared.catalog.specs import GpuSpec

TASK_FAMILIES = ("cv", "nlp")
PRECISIONS = ("fp16", "bf16", "tf32", "fp32", "fp8", "int8")
Basis = Literal["measured", "calibrated-model"]


@dataclass(frozen=True, slots=True)
class Prediction:
    gpu_id: str
    task: str
    precision: str
    relative_throughput: float
    interval: tuple[float, float]
    basis: Basis
    reference_gpu: str
    model_version: str
    explanation: str
    caveats: tuple[str, ...] = field(default=())


class PerformanceModel(Protocol):
    version: str
    reference_gpu: str

    def predict(self, gpu: GpuSpec, task: str, precision: str) -> Prediction | None:
        """None when the GPU cannot run that precision at all."""
        ...
