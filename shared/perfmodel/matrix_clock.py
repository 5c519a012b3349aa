"""The power-limited matrix clock (module_power.py) on the Lambda-calibrated training mix.

The calibrated roofline (`timemodel.py`) splits the reference's time per sample into
memory traffic, matrix multiplies and other arithmetic; on a GPU the matrix part takes
f = s_mm * MM_ref / MM_g / tau(g) of its own time. A module that cannot hold its clock in
dense matrix multiplies (fewer watts per peak TFLOPS than its architecture's best-fed
module) slows that part alone by (W per TFLOPS / best) ** -beta, so the workload's time
becomes tau * (1 - f + f * slow). The same term acts on the matrix-multiply time of the
MLPerf benchmarks (`classfit.predict_log`) and on the product's training classes
(`classmodel.ClassModel`), so the served prediction is the evaluated one.
"""

from __future__ import annotations

import math

from shared.catalog.specs import GpuSpec
from shared.perfmodel.features import bytes_factor, data_precision, rates
from shared.perfmodel.params import load_params
from shared.perfmodel.timemodel import TimeParams, reference_precision


def matrix_fraction(
    gpu: GpuSpec, ref: GpuSpec, family: str, precision: str, workload: str | None = None
) -> float:
    """Share of `gpu`'s own time in matrix multiplies in the Lambda family's mix (or the
    one `workload`'s; a family's workloads share its roofline shares, they differ in
    memory only); 0 where the GPU cannot run the precision."""
    params = load_params()
    if workload is not None:
        return _fraction(params.workloads[workload], gpu, ref, precision)
    return _fraction(params.families[family], gpu, ref, precision)


def _fraction(params: TimeParams, gpu: GpuSpec, ref: GpuSpec, precision: str) -> float:
    own = rates(gpu, precision)
    theirs = rates(ref, reference_precision(precision))
    if own is None or theirs is None:
        return 0.0
    shares = params.shares[data_precision(precision)]
    byte_scale = bytes_factor(precision) / bytes_factor(reference_precision(precision))
    memory = shares.bandwidth * byte_scale * theirs.bandwidth_gbs / own.bandwidth_gbs
    matrix = shares.matmul * theirs.matmul_tflops / own.matmul_tflops
    vector = shares.vector * theirs.vector_tflops / own.vector_tflops
    return float(matrix / (memory + matrix + vector))


def matrix_clock_log(fraction: float, power_log: float, exponent: float) -> float:
    """Log throughput factor (<= 0) of a mix that spends `fraction` of its time in matrix
    multiplies when they run at the power-limited clock (power_log <= 0, module_power.py)."""
    if fraction <= 0.0 or power_log >= 0.0 or exponent <= 0.0:
        return 0.0
    slow = math.exp(-exponent * power_log)
    return -math.log(1.0 - fraction + fraction * slow)


def matrix_time(
    gemm_time: float, power_log: float, exponent: float, arch_log: float = 0.0
) -> float:
    """A benchmark's large matrix multiplies at the power-limited clock: `gemm_time`
    (relative to the reference's) slowed by (W per TFLOPS / best) ** -exponent, and by
    the architecture's achieved share of its peak rate there (`arch_log`, log)."""
    return gemm_time * math.exp(-exponent * power_log - arch_log)


def training_time_log(base_log: float, gemm: float, share: float) -> float:
    """Log throughput of a benchmark that spends `share` of the reference's time in large
    matrix multiplies (taking `gemm` times the reference's, so scaling with the matrix rate
    alone) and the rest like Lambda's transformer mix (log throughput `base_log`): a
    roofline sum of the two times."""
    return -math.log((1.0 - share) * math.exp(-base_log) + share * gemm)
