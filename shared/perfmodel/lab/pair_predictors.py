"""The predictors validation compares: what /recommend says, and memory bandwidth alone.

Predictors are functions of the catalog spec, so the current model, not fitted to the
benchmark tables, can be scored on every table as held out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from shared.catalog.specs import GpuSpec
from shared.catalog.tasks import TASKS
from shared.perfmodel.base import PerformanceModel
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.registry import get_model, multi_gpu_speedup

# The /recommend task whose model family each class is scored with (shared/catalog/tasks.py).
CLASS_TASK: dict[str, str] = {
    bm.TRAINING_CV: "cv",
    bm.TRAINING_NLP: "nlp",
    bm.LLM_PREFILL: "llm-inference",
    bm.LLM_DECODE: "llm-inference",
    bm.DECODE_SERVING: "llm-inference",
    bm.LLM_SERVING: "llm-inference",
    bm.DIFFUSION: "image-generation",
    bm.CNN_INFERENCE: "cv",
}
# /recommend's default precision; the sources rarely state one the model knows.
MODEL_PRECISION = "fp16"


def class_family(workload_class: str) -> str:
    return TASKS[CLASS_TASK[workload_class]].family


@dataclass(frozen=True, slots=True)
class PerGpu:
    """A predictor's per-GPU throughput on a common scale, and its interval's log half-width."""

    value: float
    log_half_width: float | None = None


# (GPU, workload class, GPUs in the system, workload) -> per-GPU prediction, None =
# cannot predict. The workload names the benchmark (model size, quantisation, batch).
Predictor = Callable[[GpuSpec, str, int, str], PerGpu | None]


def model_predictor(model: PerformanceModel | None = None) -> Predictor:
    """What /recommend says: the family at fp16, times its multi-GPU speed-up per GPU."""
    chosen = model or get_model()
    cache: dict[tuple[str, str, int], PerGpu | None] = {}

    def predict(gpu: GpuSpec, workload_class: str, count: int, workload: str) -> PerGpu | None:
        key = (gpu.id, workload_class, count)
        if key not in cache:
            family = class_family(workload_class)
            prediction = chosen.predict(gpu, family, MODEL_PRECISION)
            if prediction is None:
                cache[key] = None
            else:
                per_gpu = multi_gpu_speedup(gpu, count, family) / count
                low, high = prediction.interval
                half = math.log(high / low) / 2
                cache[key] = PerGpu(prediction.relative_throughput * per_gpu, half)
        return cache[key]

    return predict


def bandwidth_predictor(
    gpu: GpuSpec, workload_class: str, count: int, workload: str
) -> PerGpu | None:
    """Dettmers' rule: memory bandwidth alone; per-GPU throughput independent of count."""
    return PerGpu(gpu.memory_bandwidth_gbs)
