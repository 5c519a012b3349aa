"""The calibrated performance model: a roofline-style time model fitted to Lambda's data.

The formula is in `timemodel.py`; the fitted numbers are in `params/<version>.json`.
Where Lambda measured the GPU itself, the measured ratio is returned ("measured"). An
unmeasured GPU gets the model times its sibling correction: the shrunken mean residual
of the measured GPUs of its architecture and segment (e.g. the RTX 4080 follows the
measured RTX 4090), so neighbours stay consistent with the measurements.
"""

from __future__ import annotations

import math

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.base import TASK_FAMILIES, Prediction
from shared.perfmodel.features import EIGHT, HALF, PRECISION_CLASS, data_precision, rates
from shared.perfmodel.lambda_data import WORKLOAD_FAMILY, canonical_workload
from shared.perfmodel.params import MODEL_VERSION, ModelParams, load_params
from shared.perfmodel.timemodel import (
    TimeParams,
    family_ratio,
    sibling_group,
    sibling_log_correction,
    workload_ratio,
)

# Half-width (log) of a measured value's interval: builds of one card differ by up to
# ~10 % in Lambda's data.
MEASURED_LOG_HALF_WIDTH = math.log(1.10)
# Interval widening for each kind of extrapolation beyond the calibration data.
WIDEN_NEW_ARCHITECTURE = 2.0
WIDEN_NO_TENSOR_CORES = 2.0
WIDEN_AMD = 2.0
WIDEN_EIGHT_BIT = 1.5
# Cards without Tensor Cores gain little from fp16 (docs/domain.md); no such card is in the
# calibration data, and the roofline would hand them the reference's memory-traffic
# gain, so their own fp16/fp32 speed-up is capped at this value.
NO_TENSOR_CORE_FP16_GAIN = 1.15


class CalibratedModel:
    """Implements `PerformanceModel`; parameters are read lazily from the JSON file."""

    def __init__(self, version: str = MODEL_VERSION) -> None:
        self.version = version
        self.reference_gpu = "rtx-3090"

    @property
    def params(self) -> ModelParams:
        return load_params(self.version)

    def predict(
        self, gpu: GpuSpec, task: str, precision: str, *, workload: str | None = None
    ) -> Prediction | None:
        if workload is not None:
            return self._predict_workload(gpu, canonical_workload(workload), precision)
        if task not in TASK_FAMILIES:
            raise ValueError(f"unknown task family {task!r}")
        return self._predict_family(gpu, task, precision)

    def fp16_speedup(self, gpu: GpuSpec, task: str) -> float | None:
        """This GPU's own fp16 / fp32 throughput (model values, not measured overrides)."""
        half = self._family_value(gpu, task, "fp16")
        single = self._family_value(gpu, task, "fp32")
        if half is None or single is None:
            return None
        half = self._cap_without_tensor_cores(gpu, task, "fp16", half)
        return self.params.reference_fp16_speedup[task] * half / single

    def _family_value(self, gpu: GpuSpec, task: str, precision: str) -> float | None:
        result = family_ratio(self.params.families[task], gpu, self._reference(), precision)
        return None if result is None else result[0]

    def _cap_without_tensor_cores(
        self, gpu: GpuSpec, task: str, precision: str, value: float
    ) -> float:
        if gpu.has_tensor_cores or PRECISION_CLASS[precision] != HALF:
            return value
        single = self._family_value(gpu, task, "fp32")
        if single is None:
            return value
        cap = single * NO_TENSOR_CORE_FP16_GAIN / self.params.reference_fp16_speedup[task]
        return min(value, cap)

    def _reference(self) -> GpuSpec:
        return load_catalog().by_id[self.reference_gpu]

    def _predict_family(self, gpu: GpuSpec, task: str, precision: str) -> Prediction | None:
        params = self.params.families[task]
        result = family_ratio(params, gpu, self._reference(), precision)
        if result is None:
            return None
        value, too_big = result
        caveats = [f"{w} does not fit in {gpu.memory_gb:g} GB (batch floor)" for w in too_big]
        value = self._cap_without_tensor_cores(gpu, task, precision, value)
        measured = self._measured(gpu, task, precision)
        if measured is None:
            value *= math.exp(self._sibling_correction(gpu, task, precision))
        return self._build(gpu, task, precision, value, measured, caveats, params)

    def _sibling_correction(self, gpu: GpuSpec, task: str, precision: str) -> float:
        """Log correction from the measured siblings (0 without any, or for 8-bit)."""
        if PRECISION_CLASS[precision] == EIGHT:
            return 0.0
        residuals = self.params.residuals.get(task, {}).get(data_precision(precision), {})
        catalog = load_catalog()
        groups = {gpu_id: sibling_group(catalog.by_id[gpu_id]) for gpu_id in residuals}
        return sibling_log_correction(gpu, residuals, groups)

    def _predict_workload(self, gpu: GpuSpec, workload: str, precision: str) -> Prediction | None:
        if workload not in self.params.workloads:
            raise ValueError(f"unknown workload {workload!r}")
        params = self.params.workloads[workload]
        value = workload_ratio(params, gpu, self._reference(), workload, precision)
        if value is None:
            return None
        task = WORKLOAD_FAMILY[workload]
        caveats = [f"workload mode: {workload} only"]
        return self._build(gpu, task, precision, value, None, caveats, params)

    def _measured(self, gpu: GpuSpec, task: str, precision: str) -> float | None:
        if PRECISION_CLASS[precision] == EIGHT:
            return None
        if precision == "bf16" and rates(gpu, "bf16") is None:
            return None
        by_gpu = self.params.measured[task][data_precision(precision)]
        return by_gpu.get(gpu.id)

    def _build(
        self,
        gpu: GpuSpec,
        task: str,
        precision: str,
        model_value: float,
        measured: float | None,
        caveats: list[str],
        params: TimeParams,
    ) -> Prediction:
        caveats = caveats + _precision_caveats(gpu, precision)
        if measured is not None:
            half_width = MEASURED_LOG_HALF_WIDTH
            value, basis = measured, "measured"
            explanation = f"Lambda measured {gpu.id}; model alone says {model_value:.2f}"
        else:
            half_width, widen_notes = self._half_width(gpu, task, precision, params)
            value, basis = model_value, "calibrated-model"
            caveats += widen_notes
            explanation = _explain(gpu, task, precision, params)
        interval = (value * math.exp(-half_width), value * math.exp(half_width))
        return Prediction(
            gpu_id=gpu.id,
            task=task,
            precision=precision,
            relative_throughput=value,
            interval=interval,
            basis="measured" if basis == "measured" else "calibrated-model",
            reference_gpu=self.reference_gpu,
            model_version=self.version,
            explanation=explanation,
            caveats=tuple(caveats),
        )

    def _half_width(
        self, gpu: GpuSpec, task: str, precision: str, params: TimeParams
    ) -> tuple[float, list[str]]:
        """p90 of the |log error| in cross-validation, widened for extrapolation."""
        half = self.params.cv_log_error[task][data_precision(precision)]["p90"]
        notes = []
        if gpu.architecture not in params.arch_log_factor:
            half *= WIDEN_NEW_ARCHITECTURE
            notes.append(f"{gpu.architecture} is not in the calibration data (extrapolated)")
        if not gpu.has_tensor_cores:
            half *= WIDEN_NO_TENSOR_CORES
            notes.append("no Tensor Cores: outside the calibration data (extrapolated)")
        if gpu.vendor == "AMD":
            half *= WIDEN_AMD
            notes.append("AMD: software stack not calibrated (extrapolated)")
        if PRECISION_CLASS[precision] == EIGHT:
            half *= WIDEN_EIGHT_BIT
            notes.append(f"{precision}: no 8-bit training data, extrapolated from fp16")
        return half, notes


def _precision_caveats(gpu: GpuSpec, precision: str) -> list[str]:
    notes = []
    if precision == "fp32" and gpu.tf32_tensor_tflops is not None:
        notes.append("fp32 is TF32 on this GPU (as in Lambda's runs)")
    if precision == "bf16":
        notes.append("bf16 assumed to run at the fp16 rate")
    if precision == "fp8":
        notes.append("relative to the reference GPU at fp16 (it has no FP8)")
    return notes


def _explain(gpu: GpuSpec, task: str, precision: str, params: TimeParams) -> str:
    shares = params.shares[data_precision(precision)]
    return (
        f"roofline fit for {task}/{precision}: reference time is "
        f"{shares.bandwidth:.0%} memory traffic, {shares.matmul:.0%} matrix math, "
        f"{shares.vector:.0%} other math; {gpu.id} has "
        f"{gpu.memory_bandwidth_gbs:g} GB/s and {gpu.memory_gb:g} GB"
    )
