"""Spec-derived inputs of the calibrated model: everything comes from the catalog row.

Precision classes: "half" (fp16/bf16 mixed precision), "single" (tf32/fp32: Lambda's
"fp32" runs are TF32 on Ampere and later) and "eight" (fp8/int8, extrapolated from the
half-precision fit because no 8-bit training data exists in the calibration set).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.catalog.specs import GpuSpec

HALF, SINGLE, EIGHT = "half", "single", "eight"
PRECISION_CLASS: dict[str, str] = {
    "fp16": HALF,
    "bf16": HALF,
    "tf32": SINGLE,
    "fp32": SINGLE,
    "fp8": EIGHT,
    "int8": EIGHT,
}
# Doubling the batch raises throughput ~13.6 % (Dettmers' debiasing rule, docs/domain.md).
BATCH_DOUBLING_GAIN = 1.136
BATCH_EXPONENT = math.log2(BATCH_DOUBLING_GAIN)
# 8-bit moves half the bytes of 16-bit: the bandwidth term shrinks by this factor.
EIGHT_BIT_BYTES_FACTOR = 0.5


@dataclass(frozen=True, slots=True)
class Rates:
    """The three speeds of the time model, for one GPU at one precision."""

    bandwidth_gbs: float
    matmul_tflops: float
    vector_tflops: float


def matmul_rate(gpu: GpuSpec, precision: str) -> float | None:
    """Rate the matrix multiplies run at; None when the GPU cannot run the precision."""
    if precision == "bf16" and gpu.bf16_tensor_tflops is None:
        return None  # bf16 needs Ampere or later (or CDNA)
    if precision == "tf32" and gpu.tf32_tensor_tflops is None:
        return None  # TF32 needs Ampere or later (or CDNA 3)
    if precision in ("tf32", "fp32"):
        # Without TF32 the 32-bit matmuls run on the FP32 vector units.
        return gpu.tf32_tensor_tflops or gpu.fp32_tflops
    return gpu.peak_rate(precision)


def rates(gpu: GpuSpec, precision: str) -> Rates | None:
    matmul = matmul_rate(gpu, precision)
    if matmul is None or matmul <= 0:
        return None
    return Rates(gpu.memory_bandwidth_gbs, matmul, gpu.fp32_tflops)


def bytes_factor(precision: str) -> float:
    return EIGHT_BIT_BYTES_FACTOR if PRECISION_CLASS[precision] == EIGHT else 1.0


def data_precision(precision: str) -> str:
    """The calibration-data precision ("fp16" or "fp32") a precision is fitted on."""
    return "fp32" if PRECISION_CLASS[precision] == SINGLE else "fp16"
