"""Dettmers' rule of thumb (DOMAIN.md section 1) as a first performance model.

Between Tensor-Core GPUs memory bandwidth predicts speed best; arithmetic matters when
the Tensor Core rate is low (GeForce FP32-accumulate, no Tensor Cores at all). The
model is a roofline with a fixed share: time per sample = w_mem * (ref bandwidth / bandwidth)
+ w_math * (ref rate / rate) + (1 - w_mem - w_math), divided by a small on-chip-memory
bonus per architecture (larger shared memory / L1 adds ~2-5 %). The weights are rules
of thumb chosen so that A100 vs V100 lands near Dettmers' 1.45x (CV) / 1.70x (NLP)
and A100 vs RTX 3090 near Lambda's 1.7x ResNet-50; they are not fitted, and the
calibrated model replaces them.
"""

from __future__ import annotations

import math

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.base import Prediction

VERSION = "rule-of-thumb-2026.11.1"
REFERENCE_GPU = "rtx-3090"

# Shares of a training step bound by memory traffic and by Tensor Core math; the rest
# does not scale with either. CNNs fall below the bandwidth estimate (small tensors,
# layers that cannot fill the GPU), large-matrix transformers land close to it.
MEMORY_WEIGHT = {"cv": 0.55, "nlp": 0.7}
MATH_WEIGHT = {"cv": 0.15, "nlp": 0.1}

# Shared memory / L1 and cache generations, relative to Volta (DOMAIN.md: +2-5 %).
ARCHITECTURE_BONUS = {
    "Kepler": 0.95,
    "Pascal": 0.97,
    "Volta": 1.0,
    "Turing": 0.98,
    "Ampere": 1.04,
    "Ada Lovelace": 1.06,
    "Hopper": 1.08,
    "Blackwell": 1.08,
}

RELATIVE_HALF_WIDTH = 0.35
EXTRAPOLATION_HALF_WIDTH = 0.6


def math_rate(gpu: GpuSpec, precision: str) -> float | None:
    """Peak rate a training step at `precision` can use, None where unsupported."""
    if precision == "tf32":
        # Before Ampere there is no TF32: frameworks run plain FP32.
        return gpu.tf32_tensor_tflops or gpu.fp32_tflops
    return gpu.peak_rate(precision)


def unsupported_reason(gpu: GpuSpec, precision: str) -> str | None:
    if math_rate(gpu, precision) is None:
        return f"{gpu.name} has no {precision} support"
    return None


class RuleOfThumbModel:
    version = VERSION
    reference_gpu = REFERENCE_GPU

    def __init__(self) -> None:
        self._reference = load_catalog().by_id[REFERENCE_GPU]

    def _step_time(self, gpu: GpuSpec, task: str, precision: str, rate: float) -> float:
        ref_rate = math_rate(self._reference, precision)
        if ref_rate is None:
            # The reference lacks this precision (fp8): compare with its fp16 rate.
            ref_rate = math_rate(self._reference, "fp16") or 1.0
        w_mem, w_math = MEMORY_WEIGHT[task], MATH_WEIGHT[task]
        memory = self._reference.memory_bandwidth_gbs / gpu.memory_bandwidth_gbs
        arithmetic = ref_rate / rate
        bonus = ARCHITECTURE_BONUS.get(gpu.architecture, 1.0) / ARCHITECTURE_BONUS["Ampere"]
        return (w_mem * memory + w_math * arithmetic + (1 - w_mem - w_math)) / bonus

    def predict(self, gpu: GpuSpec, task: str, precision: str) -> Prediction | None:
        rate = math_rate(gpu, precision)
        if rate is None:
            return None
        value = 1.0 / self._step_time(gpu, task, precision, rate)
        if gpu.id == REFERENCE_GPU and precision != "fp8":
            value = 1.0
        caveats = _caveats(gpu, precision)
        half = EXTRAPOLATION_HALF_WIDTH if caveats else RELATIVE_HALF_WIDTH
        return Prediction(
            gpu_id=gpu.id,
            task=task,
            precision=precision,
            relative_throughput=round(value, 4),
            interval=(round(value * (1 - half), 4), round(value * (1 + half), 4)),
            basis="rule-of-thumb",
            reference_gpu=REFERENCE_GPU,
            model_version=VERSION,
            explanation=(
                f"{gpu.memory_bandwidth_gbs:g} GB/s memory bandwidth and {rate:g} TFLOPS "
                f"{precision} vs the {self._reference.name} "
                f"({self._reference.memory_bandwidth_gbs:g} GB/s); memory-bound share "
                f"{MEMORY_WEIGHT[task]:.0%} for {task}"
            ),
            caveats=caveats,
        )


def _caveats(gpu: GpuSpec, precision: str) -> tuple[str, ...]:
    notes: list[str] = []
    if not gpu.has_tensor_cores:
        notes.append("no Tensor Cores: poor deep-learning performance per dollar")
    if gpu.vendor == "AMD":
        notes.append("AMD ROCm: real-world throughput less certain than on CUDA")
    if precision == "tf32" and gpu.tf32_tensor_tflops is None:
        notes.append("no TF32: runs plain FP32")
    return tuple(notes)


# Speed-up kept per doubling of GPUs in one machine (Lambda 2022 via DOMAIN.md
# section 4): A100 SXM near-linear to 8, RTX A6000 7.7x of 8, RTX 3090 ~5x of 8.
EFFICIENCY_PER_DOUBLING = {"nvswitch": 0.99, "p2p": 0.987, "no-p2p": 0.855}


def interconnect(gpu: GpuSpec) -> str:
    if gpu.nvlink == "nvswitch" or gpu.form_factor in {"sxm", "oam"}:
        return "nvswitch"
    return "p2p" if gpu.p2p_over_pcie else "no-p2p"


def multi_gpu_speedup(gpu: GpuSpec, count: int, task: str) -> float:
    """Throughput of `count` GPUs in one machine relative to one (never above count)."""
    if count <= 1:
        return 1.0
    efficiency: float = math.pow(EFFICIENCY_PER_DOUBLING[interconnect(gpu)], math.log2(count))
    return min(float(count), count * efficiency)
