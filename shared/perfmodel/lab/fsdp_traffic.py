"""Could FSDP's weight traffic explain the llm-training misses on Answer.AI's 70B table?

FSDP keeps 1/N of the 4-bit weights on each GPU and all-gathers every layer's weights
before its forward pass and again before its backward pass (the checkpointed recompute
runs inside the backward gather), so each step moves 2 (N - 1) / N of the quantised
weights into every GPU, on each build's own link. The llm-training class has no such
term. This module measures how much it could matter, on the data: the traffic time per
step at the data-parallel model's achieved bandwidths (fitted on Lambda's scaling rows,
out of sample here), its share of each build's measured step, and the class's held-out
pair errors against the measured ratios and against the ratios with the traffic removed
(compute only, no overlap: the most the term could change). Nothing here is fitted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.benchmark_sources.answerai import (
    CONTEXT,
    CROSS_HARDWARE,
    CrossBuild,
    cross_hardware_builds,
)
from shared.perfmodel.benchmark_sources.training_runs import TrainingRun
from shared.perfmodel.data_parallel import achieved_gbs, load_data_parallel_params, nominal_gbs
from shared.perfmodel.lab.llm_training_eval import run_pairs
from shared.perfmodel.scaling import NVSWITCH, interconnect_class

PARAMS_B = 70.0
# NF4 weights plus their double-quantised constants (QLoRA paper: 0.127 bits a weight).
WEIGHT_BITS = 4.127
GATHERS_PER_STEP = 2
# Frozen base: forward 2, checkpointed recompute 2, backward through activations 2.
FLOPS_PER_TOKEN_PER_PARAM = 6


@dataclass(frozen=True, slots=True)
class BuildTraffic:
    """One build: measured step, modelled weight traffic per step, achieved matrix rate."""

    build: CrossBuild
    step_s: float
    # None for CPU-offload builds: their weights come from host memory, not the peers.
    traffic_s: float | None
    achieved_tflops: float
    peak_tflops: float

    @property
    def traffic_share(self) -> float | None:
        return None if self.traffic_s is None else self.traffic_s / self.step_s

    @property
    def peak_share(self) -> float:
        return self.achieved_tflops / self.peak_tflops

    @property
    def compute_only_time_s(self) -> float:
        """The build's time with the traffic removed (no overlap assumed)."""
        if self.traffic_s is not None and self.traffic_s >= self.step_s:
            # The measured step is shorter than the traffic alone: the link is faster
            # than the bandwidth assumed.
            raise ValueError(f"{self.build.gpu_id} x{self.build.gpus}: traffic exceeds the step")
        return self.build.time_s - self.build.steps * (self.traffic_s or 0.0)


def fitted_bandwidth() -> Callable[[GpuSpec], float]:
    """Achieved GB/s of each GPU's link, as the served data-parallel model has it."""
    share = load_data_parallel_params().share
    return lambda gpu: achieved_gbs(gpu, share)


def nvlink_bandwidth() -> Callable[[GpuSpec], float]:
    """Sensitivity: NVSwitch modules at their nominal NVLink rate (Lambda's rows fit that
    link's share at the PCIe floor), the others as fitted."""
    fitted = fitted_bandwidth()
    return lambda gpu: nominal_gbs(gpu) if interconnect_class(gpu) == NVSWITCH else fitted(gpu)


def build_traffic(bandwidth: Callable[[GpuSpec], float]) -> list[BuildTraffic]:
    cat = load_catalog().by_id
    weight_bytes = PARAMS_B * 1e9 * WEIGHT_BITS / 8
    out = []
    for build in cross_hardware_builds():
        gpu = cat[build.gpu_id]
        step = build.time_s / build.steps
        traffic = None
        if not build.cpu_offload:
            moved = GATHERS_PER_STEP * (build.gpus - 1) / build.gpus * weight_bytes
            traffic = moved / (bandwidth(gpu) * 1e9)
        flops = build.batch * CONTEXT * FLOPS_PER_TOKEN_PER_PARAM * PARAMS_B * 1e9
        peak = gpu.bf16_tensor_tflops or gpu.fp16_tensor_tflops or gpu.fp32_tflops
        out.append(BuildTraffic(build, step, traffic, flops / step / 1e12, peak))
    return out


@dataclass(frozen=True, slots=True)
class PairCheck:
    a: str
    b: str
    gpus: int
    measured: float
    compute_only: float
    predicted: float

    @property
    def error(self) -> float:
        return math.expm1(abs(math.log(self.predicted / self.measured)))

    @property
    def error_compute_only(self) -> float:
        return math.expm1(abs(math.log(self.predicted / self.compute_only)))


def pair_checks(
    runs: Sequence[TrainingRun],
    predict: Callable[[TrainingRun], float],
    builds: Sequence[BuildTraffic],
) -> list[PairCheck]:
    """Every two builds of the table at one GPU count (llm_training_eval.run_pairs):
    measured, compute-only, predicted."""
    by_key = {(b.build.gpu_id, b.build.gpus): b for b in builds}
    out = []
    for pair in run_pairs(r for r in runs if r.table_id == CROSS_HARDWARE):
        a, b = pair.a, pair.b
        ta, tb = by_key[(a.gpu_id, a.gpus)], by_key[(b.gpu_id, b.gpus)]
        out.append(
            PairCheck(
                a.gpu_id,
                b.gpu_id,
                a.gpus,
                tb.build.time_s / ta.build.time_s,
                tb.compute_only_time_s / ta.compute_only_time_s,
                predict(a) / predict(b),
            )
        )
    return out


def median_errors(checks: Sequence[PairCheck]) -> tuple[float, float]:
    """(median error against the measured ratios, against the compute-only ratios)."""
    return median(c.error for c in checks), median(c.error_compute_only for c in checks)
