"""Benchmark measurements as rows of the class fit: each with what its prediction needs
that does not depend on the fitted parameters (model group, training base, LLM workload)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import benchmark_workloads as bw
from shared.perfmodel import inference as inf
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.calibrated import NO_TENSOR_CORE_FP16_GAIN
from shared.perfmodel.features import HALF, PRECISION_CLASS, data_precision, matmul_rate
from shared.perfmodel.matrix_clock import matrix_fraction
from shared.perfmodel.module_power import power_headroom_log
from shared.perfmodel.params import load_params
from shared.perfmodel.timemodel import batch_factor, clock_factor, reference_precision
from shared.perfmodel.workloads import CLASS_FAMILY, TRAINING_NLP, fp8_rate

REFERENCE_GPU = "rtx-3090"
# Benchmark class -> model group.
CLASS_GROUP: dict[str, str] = {
    bm.TRAINING_CV: inf.TRAINING_GROUP,
    bm.TRAINING_NLP: inf.TRAINING_GROUP,
    bm.LLM_PREFILL: inf.LLM_GROUP,
    bm.LLM_DECODE: inf.LLM_GROUP,
    bm.DECODE_SERVING: inf.LLM_GROUP,
    bm.LLM_SERVING: inf.LLM_GROUP,
    bm.DIFFUSION: inf.VISION_GROUP,
    bm.CNN_INFERENCE: inf.VISION_GROUP,
}


@dataclass(frozen=True, slots=True)
class Row:
    """One measurement with what its prediction needs that does not depend on the fit."""

    m: bm.Measurement
    gpu: GpuSpec
    # Fit group: one table, workload and precision, every system size (sizes of one GPU
    # are tied together by the scaling terms).
    group: tuple[str, str, str, str, str | None]
    model_group: str
    # Training: log of the Lambda-calibrated prediction, and the GPU's time for the same
    # matrix multiplies relative to the reference's (matrix rate at the training precision,
    # batch factor of its memory).
    base_log: float = 0.0
    gemm_time: float = 1.0
    # Training: log of the module's W per peak TFLOPS against its architecture's best-fed
    # module (module_power.py), <= 0; the fitted exponent turns it into a clock factor.
    power_log: float = 0.0
    # Training: share of the GPU's own time in matrix multiplies in the Lambda mix of the
    # base (matrix_clock.py): the power-limited clock slows that part too.
    matrix_fraction: float = 0.0
    llm: bw.BenchmarkLlm | None = None
    tp: int = 1


def gemm_time(gpu: GpuSpec, ref: GpuSpec, precision: str, klass: str = TRAINING_NLP) -> float:
    """Time of the same matrix multiplies on `gpu` relative to `ref` (each at its own
    training precision: FP8 where the hardware has it for transformers), at the batch
    each GPU's memory allows: the Lambda batch factor that the calibrated base carries
    applies to the matrix multiplies too (bigger batches are bigger, better-used GEMMs),
    and so does its sustained clock of a power-limited chip (every unit slows)."""
    peak = _gemm_rate(ref, reference_precision(precision)) / _gemm_rate(gpu, precision)
    return peak / base_clock(gpu, ref, klass) / memory_batch_factor(gpu, ref, klass, precision)


def base_clock(gpu: GpuSpec, ref: GpuSpec, klass: str) -> float:
    """The calibrated base's sustained-clock factor of `gpu` against `ref` (timemodel)."""
    threshold = load_params().families[CLASS_FAMILY[klass]].power_threshold
    return clock_factor(gpu, threshold) / clock_factor(ref, threshold)


def _gemm_rate(gpu: GpuSpec, precision: str) -> float:
    """Matrix rate of large matrix multiplies; a card without Tensor Cores (RDNA 3's WMMA
    runs on the shader ALUs) gains at most what the calibrated base allows it in 16 bits."""
    rate = matmul_rate(gpu, precision) or gpu.fp32_tflops
    if not gpu.has_tensor_cores and PRECISION_CLASS[precision] == HALF:
        rate = min(rate, gpu.fp32_tflops * NO_TENSOR_CORE_FP16_GAIN)
    return rate


def memory_batch_factor(gpu: GpuSpec, ref: GpuSpec, klass: str, precision: str) -> float:
    """The Lambda fit's batch-size factor of `gpu` against `ref` (geometric mean over the
    family's workloads; 1 for CNNs, whose batches already fill the GPU)."""
    family = load_params().families[CLASS_FAMILY[klass]]
    dprec = data_precision(precision)
    logs = [
        math.log(batch_factor(gpu, ref, family.fixed_memory_gb[w][dprec], family.batch_exponent))
        for w in family.workloads
    ]
    return math.exp(sum(logs) / len(logs))


def training_precision(workload_class: str, gpu: GpuSpec, vendor_libraries: bool = True) -> str:
    """MLPerf transformer training runs FP8 where the hardware has it (the vendors'
    libraries: Transformer Engine, AMD's FP8 training); CNN training, and frameworks
    written apart from those libraries (tinygrad), stay in 16 bits."""
    if workload_class == TRAINING_NLP and vendor_libraries and fp8_rate(gpu) is not None:
        return "fp8"
    return "fp16"


def prepare(
    measurements: Sequence[bm.Measurement],
    training_base: Callable[[GpuSpec, str, str], float | None],
) -> list[Row]:
    """Rows of the measurements the class model can predict (others are left out)."""
    catalog = load_catalog()
    ref = catalog.by_id[REFERENCE_GPU]
    rows = []
    for m in measurements:
        gpu = catalog.by_id[m.gpu_id]
        group_key = (
            m.dataset,
            m.table_id,
            m.workload_class,
            m.workload,
            m.precision,
        )
        model_group = CLASS_GROUP[m.workload_class]
        if model_group == inf.TRAINING_GROUP:
            # Training benchmark classes are the product's own (workloads.py).
            klass = m.workload_class
            precision = training_precision(klass, gpu, not m.independent_framework)
            base = training_base(gpu, klass, precision)
            if base is None:
                continue
            gemm = gemm_time(gpu, ref, precision, klass)
            power = power_headroom_log(gpu)
            fraction = matrix_fraction(gpu, ref, CLASS_FAMILY[klass], precision)
            rows.append(Row(m, gpu, group_key, model_group, math.log(base), gemm, power, fraction))
        elif model_group == inf.LLM_GROUP:
            described = bw.describe(m, gpu)
            if described is None:
                continue
            tp = m.gpus_per_system
            if m.dataset == bm.MLPERF_INFERENCE:
                found = inf.tensor_parallel_size(
                    gpu, inf.llm_need_gb(described.workload), m.gpus_per_system
                )
                if found is None:
                    continue
                tp = found
                # The nominal batch picks the split; the run fills its memory with requests.
                batch = inf.filled_batch(gpu, described.workload, tp)
                described = replace(described, workload=described.workload.with_batch(batch))
            rows.append(Row(m, gpu, group_key, model_group, llm=described, tp=tp))
        else:
            rows.append(Row(m, gpu, group_key, model_group))
    return rows


def row_key(gpu_id: str, workload_class: str, count: int, workload: str) -> tuple[str, ...]:
    return (gpu_id, workload_class, str(count), workload)


def table_of(row: Row) -> str:
    return f"{row.m.dataset}|{row.m.table_id}"


def gpu_of(row: Row) -> str:
    return row.gpu.id
