"""Looked at and not kept: a spec blend for the small-model end of llm-training.

Below MLPerf's smallest LLM the served class falls back on Lambda's training mix (share
~0), which over-predicts large GPUs on GPU-Insights' tiny steps (llm_training.md). The
simplest physical alternative tried here: a small model's ratio is a geometric blend of
the two resources its kernels wait on, memory bandwidth and the matrix rate at the run's
precision,

    log r_small = (1 - w) log BW + w log R,

joined to the served class's MLPerf-share prediction by the size factor of
llm_training.py: log r = f log r_large + (1 - f) log r_small, f = min(1, (P / 8 B) ** k).
w and k are fitted on each fold's training pairs (a grid, least mean log error) and
scored on the report's leave-one-GPU-out split (its figures are looked-at: see the
report).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.benchmark_sources.training_runs import TrainingRun
from shared.perfmodel.lab.llm_training_eval import RunPair
from shared.perfmodel.llm_training import size_factor

MATRIX_WEIGHTS = tuple(i / 20 for i in range(21))
SIZE_EXPONENTS = tuple(0.25 * i for i in range(1, 13))


class LargeModelPredictor(Protocol):
    def fitted(self, run: TrainingRun, exponent: float) -> float: ...


def matrix_rate(gpu: GpuSpec, precision: str) -> float:
    """The run's matrix rate: TF32 for fp32 runs (PyTorch's convolutions use it), the
    16-bit tensor rate for mixed precision, the shader rate without either."""
    if precision == "fp32":
        return gpu.tf32_tensor_tflops or gpu.fp32_tflops
    return gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops or gpu.fp32_tflops


@dataclass(frozen=True, slots=True)
class Blend:
    predictor: LargeModelPredictor
    matrix_weight: float
    size_exponent: float

    def log_value(self, run: TrainingRun) -> float:
        gpu = load_catalog().by_id[run.gpu_id]
        small = (1 - self.matrix_weight) * math.log(gpu.memory_bandwidth_gbs)
        small += self.matrix_weight * math.log(matrix_rate(gpu, run.precision))
        # k = 0: the MLPerf share at every size, as the served class's baseline.
        large = math.log(self.predictor.fitted(run, 0.0))
        f = size_factor(run.params_b, self.size_exponent)
        return f * large + (1 - f) * small

    def error(self, pair: RunPair) -> float:
        return abs(self.log_value(pair.a) - self.log_value(pair.b) - math.log(pair.measured))


def fit_blend(predictor: LargeModelPredictor, pairs: Sequence[RunPair]) -> Blend:
    """The grid (w, k) of least mean log error on `pairs`."""
    candidates = (Blend(predictor, w, k) for w in MATRIX_WEIGHTS for k in SIZE_EXPONENTS)
    return min(candidates, key=lambda b: float(np.mean([b.error(p) for p in pairs])))


@dataclass(frozen=True, slots=True)
class BlendScore:
    errors: tuple[float, ...]
    datasets: tuple[str, ...]
    in_sample: Blend

    def median(self, dataset: str | None = None) -> float:
        chosen = [
            e
            for e, d in zip(self.errors, self.datasets, strict=True)
            if dataset is None or d == dataset
        ]
        return math.expm1(float(np.median(chosen)))

    @property
    def p90(self) -> float:
        return math.expm1(float(np.quantile(self.errors, 0.9)))


def leave_one_gpu_out(predictor: LargeModelPredictor, pairs: Sequence[RunPair]) -> BlendScore:
    """Each GPU's pairs scored with (w, k) fitted on the pairs without it; a pair is held
    out once, with its first GPU in sorted order (as llm_training_eval's split)."""
    held: list[RunPair] = []
    errors: list[float] = []
    for gpu in sorted({g for p in pairs for g in p.gpus}):
        train = [p for p in pairs if gpu not in p.gpus]
        test = [p for p in pairs if gpu in p.gpus and p not in held]
        if not test or not train:
            continue
        blend = fit_blend(predictor, train)
        errors += [blend.error(p) for p in test]
        held += test
    return BlendScore(tuple(errors), tuple(p.a.dataset for p in held), fit_blend(predictor, pairs))
