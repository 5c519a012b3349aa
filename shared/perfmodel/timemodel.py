"""The calibrated time model: pure functions of fitted parameters and catalog specs.

For a workload w at precision p, the reference GPU's time per sample is split into
three shares, s_bw + s_mm + s_vec = 1 (memory traffic, matrix multiplies, the other
arithmetic), and every share scales with the matching speed of the GPU:

    tau(g) = s_bw * BW_ref / BW_g + s_mm * MM_ref / MM_g + s_vec * VEC_ref / VEC_g
    ratio(g) = exp(arch[g.architecture]) * batch(g, w, p) * clock(g) / clock(ref) / tau(g)

`clock` is the sustained-clock factor of a power-limited chip: with the board power
per SM per GHz of boost clock w = TDP / (SMs x boost GHz), a chip below the fitted
threshold w0 cannot hold its boost clock, and since dynamic power grows ~ clock^3 it
runs at clock = min(1, w / w0) ** (1/3) of it (every unit slows, so it scales the whole
throughput). NVIDIA only: an AMD compute unit is not an SM.

`batch` is the batch-size effect: Lambda runs every GPU at its largest batch, which
grows with the memory left after the model's fixed footprint m0, and each doubling of
the batch adds ~13.6 %: batch = ((mem_g - m0) / (mem_ref - m0)) ** log2(1.136). For
CNNs (cv) the exponent is 0: Lambda's CV batches (>= 100 images) already fill the GPU.
A task family's ratio is the geometric mean over its workloads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from shared.catalog.specs import GpuSpec
from shared.perfmodel.features import (
    BATCH_EXPONENT,
    Rates,
    bytes_factor,
    data_precision,
    rates,
)
from shared.perfmodel.lambda_data import GEN_2022

# Below this much memory for the batch, a workload is treated as not fitting.
MIN_BATCH_MEMORY_GB = 0.25
# Dynamic power ~ clock^3 (voltage rises with clock): a power-limited chip's clock
# scales as the cube root of the power it may draw per unit of silicon.
POWER_CLOCK_EXPONENT = 1.0 / 3.0
# Cards whose speed relative to the RTX 3090 differs between Lambda's 2022 table and v1.
LEGACY_TABLE_ARCHITECTURES = ("Turing", "Volta")
# Pseudo-observations of zero residual in the sibling correction (shrinkage).
SIBLING_PRIOR_WEIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Shares:
    bandwidth: float
    matmul: float
    vector: float

    @classmethod
    def from_logits(cls, matmul_logit: float, vector_logit: float) -> Shares:
        weights = (1.0, math.exp(matmul_logit), math.exp(vector_logit))
        total = sum(weights)
        return cls(weights[0] / total, weights[1] / total, weights[2] / total)


@dataclass(frozen=True, slots=True)
class TimeParams:
    """Fitted parameters of one task family (or one workload)."""

    shares: dict[str, Shares]  # by data precision: "fp16", "fp32"
    arch_log_factor: dict[str, float]
    # Memory (GB) not available for the batch, by workload and data precision.
    fixed_memory_gb: dict[str, dict[str, float]]
    workloads: tuple[str, ...] = field(default=())
    # W per SM per GHz below which the clock drops (None: no power term, <= 2026.11.1).
    power_threshold: float | None = None
    # Throughput gain exponent of the largest batch: Dettmers' 13.6 % per doubling by
    # default; 0 for CNNs, whose hundreds of images per batch already fill the GPU.
    batch_exponent: float = BATCH_EXPONENT
    # Log offset of pre-Ampere cards in Lambda's 2022 table (older software), by data
    # precision: a nuisance of the calibration data, never applied to predictions.
    legacy_table_offset: dict[str, float] = field(default_factory=dict)


def power_density(gpu: GpuSpec) -> float | None:
    """Board power per SM per GHz of boost clock (W); None where it is not defined."""
    if gpu.vendor != "NVIDIA" or gpu.sm_count <= 0 or gpu.boost_clock_mhz <= 0:
        return None
    return gpu.tdp_w / (gpu.sm_count * gpu.boost_clock_mhz / 1000.0)


def clock_factor(gpu: GpuSpec, threshold: float | None) -> float:
    """Sustained fraction of the boost clock a power-limited chip holds (1 if not limited)."""
    density = power_density(gpu)
    if threshold is None or density is None:
        return 1.0
    return float(min(1.0, density / threshold) ** POWER_CLOCK_EXPONENT)


def relative_time(gpu_rates: Rates, ref_rates: Rates, shares: Shares, byte_scale: float) -> float:
    return (
        shares.bandwidth * byte_scale * ref_rates.bandwidth_gbs / gpu_rates.bandwidth_gbs
        + shares.matmul * ref_rates.matmul_tflops / gpu_rates.matmul_tflops
        + shares.vector * ref_rates.vector_tflops / gpu_rates.vector_tflops
    )


def fits_in_memory(gpu: GpuSpec, fixed_gb: float) -> bool:
    return gpu.memory_gb - fixed_gb >= MIN_BATCH_MEMORY_GB


def batch_factor(
    gpu: GpuSpec, ref: GpuSpec, fixed_gb: float, exponent: float = BATCH_EXPONENT
) -> float:
    """Throughput factor from the largest batch that fits (a floor when nothing fits)."""
    usable = max(gpu.memory_gb - fixed_gb, MIN_BATCH_MEMORY_GB)
    return float((usable / (ref.memory_gb - fixed_gb)) ** exponent)


def reference_precision(precision: str) -> str:
    # The reference has no FP8: 8-bit results are relative to its FP16 speed.
    return "fp16" if precision == "fp8" else precision


def workload_ratio(
    params: TimeParams, gpu: GpuSpec, ref: GpuSpec, workload: str, precision: str
) -> float | None:
    """Predicted single-GPU throughput ratio gpu/ref; None if it cannot run."""
    gpu_rates = rates(gpu, precision)
    ref_rates = rates(ref, reference_precision(precision))
    if gpu_rates is None or ref_rates is None:
        return None
    dprec = data_precision(precision)
    batch = batch_factor(gpu, ref, params.fixed_memory_gb[workload][dprec], params.batch_exponent)
    byte_scale = bytes_factor(precision) / bytes_factor(reference_precision(precision))
    tau = relative_time(gpu_rates, ref_rates, params.shares[dprec], byte_scale)
    arch = params.arch_log_factor.get(gpu.architecture, 0.0)
    arch -= params.arch_log_factor.get(ref.architecture, 0.0)
    clock = clock_factor(gpu, params.power_threshold) / clock_factor(ref, params.power_threshold)
    return math.exp(arch) * batch * clock / tau


def generation_log_offset(
    params: TimeParams, gpu: GpuSpec, generation: str, precision: str
) -> float:
    """Log offset of a measurement of the given data generation (0 for lambda-v1)."""
    if generation != GEN_2022 or gpu.architecture not in LEGACY_TABLE_ARCHITECTURES:
        return 0.0
    return params.legacy_table_offset.get(data_precision(precision), 0.0)


def family_ratio(
    params: TimeParams, gpu: GpuSpec, ref: GpuSpec, precision: str
) -> tuple[float, tuple[str, ...]] | None:
    """Geometric mean over the family's workloads, and the workloads that do not fit."""
    logs = []
    for workload in params.workloads:
        value = workload_ratio(params, gpu, ref, workload, precision)
        if value is None:
            return None
        logs.append(math.log(value))
    dprec = data_precision(precision)
    too_big = tuple(
        w for w in params.workloads if not fits_in_memory(gpu, params.fixed_memory_gb[w][dprec])
    )
    return math.exp(sum(logs) / len(logs)), too_big


def sibling_group(gpu: GpuSpec) -> tuple[str, str, bool]:
    """GPUs that share an architecture and a market segment share clock/power policy,
    accumulate mode and memory type, so the model tends to miss them the same way
    (GTX 16 cards, Turing without Tensor Cores, are not siblings of the RTX cards)."""
    return (gpu.architecture, gpu.segment, gpu.has_tensor_cores)


def sibling_log_correction(
    gpu: GpuSpec, residuals: dict[str, float], groups: dict[str, tuple[str, str, bool]]
) -> float:
    """Shrunken mean log residual (measured / model) of the GPU's measured siblings.

    `residuals` are by GPU id, `groups` the sibling group of each of those ids. One
    pseudo-observation of 0 shrinks the mean (a lone sibling passes half its residual on).
    """
    own = sibling_group(gpu)
    values = [r for gpu_id, r in residuals.items() if gpu_id != gpu.id and groups[gpu_id] == own]
    return sum(values) / (len(values) + SIBLING_PRIOR_WEIGHT) if values else 0.0
