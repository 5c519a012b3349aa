"""Leave-one-GPU-out cross-validation, the parameter build, and the accuracy numbers.

One evaluation point per (GPU, task family, data precision): the geometric mean of the
measured workload ratios to the reference, from the lambda-v1 generation when that GPU
is in it, else from the 2022 blog table (never mixing the two), against the model refit
without that GPU and predicting the same workloads. The sibling correction (shrunken
mean residual of measured GPUs of the same architecture and segment) is also rebuilt
without the held-out GPU, from the residuals of that refit. A GPU measured only in the 2022
table is predicted with the refit's 2022-table offset (cv; 0 for Ampere and later).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from shared.catalog.specs import load_catalog
from shared.perfmodel.lab.fitting import family_workloads, fit_time_params
from shared.perfmodel.lambda_data import (
    DATA_PRECISIONS,
    GEN_2022,
    GEN_V1,
    REFERENCE_GPU,
    WORKLOAD_FAMILY,
    RatioPoint,
    load_runs,
    measured_gpu_ids,
    ratio_points,
)
from shared.perfmodel.params import MODEL_VERSION, time_params_to_json
from shared.perfmodel.scaling import fit_scaling
from shared.perfmodel.timemodel import (
    TimeParams,
    generation_log_offset,
    sibling_group,
    sibling_log_correction,
    workload_ratio,
)

FAMILIES = ("cv", "nlp")


@dataclass(frozen=True, slots=True)
class CvPoint:
    gpu_id: str
    family: str
    precision: str
    generation: str
    measured: float
    predicted: float
    baseline: float
    # The model before the sibling correction.
    uncorrected: float = 0.0

    @property
    def error(self) -> float:
        return abs(self.predicted / self.measured - 1.0)

    @property
    def baseline_error(self) -> float:
        return abs(self.baseline / self.measured - 1.0)


@dataclass(frozen=True, slots=True)
class Summary:
    family: str
    precision: str
    count: int
    median: float
    p90: float
    spearman: float
    baseline_median: float
    baseline_p90: float
    baseline_spearman: float


def family_points(gpu_id: str, family: str, precision: str) -> list[RatioPoint]:
    """The held-out GPU's measured points, from one generation only (v1 preferred)."""
    for generation in (GEN_V1, GEN_2022):
        points = [
            p
            for p in ratio_points()
            if p.gpu_id == gpu_id
            and p.family == family
            and p.precision == precision
            and p.generation == generation
        ]
        if points:
            return points
    return []


def _geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def predict_points(params: TimeParams, points: list[RatioPoint]) -> float:
    """The model for one GPU's points of one generation (with that generation's offset)."""
    catalog = load_catalog()
    ref = catalog.by_id[REFERENCE_GPU]
    gpu = catalog.by_id[points[0].gpu_id]
    values = [workload_ratio(params, gpu, ref, p.workload, p.precision) for p in points]
    first = points[0]
    offset = generation_log_offset(params, gpu, first.generation, first.precision)
    return math.exp(offset) * _geomean([v for v in values if v is not None])


def logo_points(family: str) -> list[CvPoint]:
    catalog = load_catalog()
    ref = catalog.by_id[REFERENCE_GPU]
    workloads = family_workloads(family)
    gpus = sorted({p.gpu_id for p in ratio_points() if p.family == family})
    result = []
    for gpu_id in gpus:
        params, _ = fit_time_params(workloads, exclude_gpu=gpu_id)
        residuals = family_log_residuals(params, family, exclude_gpu=gpu_id)
        bandwidth = catalog.by_id[gpu_id].memory_bandwidth_gbs / ref.memory_bandwidth_gbs
        for precision in DATA_PRECISIONS:
            points = family_points(gpu_id, family, precision)
            if not points:
                continue
            measured = _geomean([p.ratio for p in points])
            model = predict_points(params, points)
            correction = sibling_log_correction(
                catalog.by_id[gpu_id], residuals[precision], sibling_groups()
            )
            predicted = model * math.exp(correction)
            generation = points[0].generation
            result.append(
                CvPoint(
                    gpu_id, family, precision, generation, measured, predicted, bandwidth, model
                )
            )
    return result


def family_log_residuals(
    params: TimeParams, family: str, exclude_gpu: str | None = None
) -> dict[str, dict[str, float]]:
    """In-sample log(measured / model) of each measured GPU's family point, by precision."""
    gpus = sorted({p.gpu_id for p in ratio_points() if p.family == family} - {exclude_gpu})
    result: dict[str, dict[str, float]] = {}
    for precision in DATA_PRECISIONS:
        result[precision] = {}
        for gpu_id in gpus:
            points = family_points(gpu_id, family, precision)
            if points:
                measured = _geomean([p.ratio for p in points])
                result[precision][gpu_id] = math.log(measured / predict_points(params, points))
    return result


def sibling_groups() -> dict[str, tuple[str, str, bool]]:
    catalog = load_catalog()
    return {gpu_id: sibling_group(catalog.by_id[gpu_id]) for gpu_id in measured_gpu_ids()}


def summarize(points: list[CvPoint], family: str, precision: str) -> Summary:
    chosen = [p for p in points if p.family == family and p.precision == precision]
    errors = [p.error for p in chosen]
    base = [p.baseline_error for p in chosen]
    measured = [p.measured for p in chosen]
    return Summary(
        family,
        precision,
        len(chosen),
        statistics.median(errors),
        float(np.percentile(errors, 90)),
        _spearman(measured, [p.predicted for p in chosen]),
        statistics.median(base),
        float(np.percentile(base, 90)),
        _spearman(measured, [p.baseline for p in chosen]),
    )


def _spearman(a: list[float], b: list[float]) -> float:
    return float(spearmanr(a, b).statistic)


def all_logo_points() -> list[CvPoint]:
    return [p for family in FAMILIES for p in logo_points(family)]


def all_summaries(points: list[CvPoint]) -> list[Summary]:
    return [summarize(points, f, p) for f in FAMILIES for p in DATA_PRECISIONS]


def _log_error_quantiles(points: list[CvPoint], family: str, precision: str) -> dict[str, float]:
    logs = [
        abs(math.log(p.predicted / p.measured))
        for p in points
        if p.family == family and p.precision == precision
    ]
    return {"median": statistics.median(logs), "p90": float(np.percentile(logs, 90))}


def measured_family_ratios() -> dict[str, dict[str, dict[str, float]]]:
    """The measured ratio per family, precision and GPU (the reference is 1 by definition)."""
    result: dict[str, dict[str, dict[str, float]]] = {}
    gpus = sorted({p.gpu_id for p in ratio_points()})
    for family in FAMILIES:
        result[family] = {}
        for precision in DATA_PRECISIONS:
            by_gpu = {REFERENCE_GPU: 1.0}
            for gpu_id in gpus:
                points = family_points(gpu_id, family, precision)
                if points:
                    by_gpu[gpu_id] = _geomean([p.ratio for p in points])
            result[family][precision] = by_gpu
    return result


def reference_speedups() -> dict[str, float]:
    """The reference's measured fp16/fp32 speed-up per family (v1, geometric mean)."""
    runs = [r for r in load_runs() if r.gpu_id == REFERENCE_GPU and r.num_gpu == 1]
    v1 = {(r.workload, r.precision): r.throughput for r in runs if r.generation == GEN_V1}
    return {
        f: _geomean([v1[(w, "fp16")] / v1[(w, "fp32")] for w in family_workloads(f)])
        for f in FAMILIES
    }


def build_params(points: list[CvPoint]) -> dict[str, Any]:
    """Everything the model reads at run time, ready to be written as JSON."""
    fits = {f: fit_time_params(family_workloads(f))[0] for f in FAMILIES}
    families = {f: time_params_to_json(fit) for f, fit in fits.items()}
    workloads = {w: time_params_to_json(fit_time_params((w,))[0]) for w in WORKLOAD_FAMILY}
    cv_error = {
        f: {p: _log_error_quantiles(points, f, p) for p in DATA_PRECISIONS} for f in FAMILIES
    }
    return {
        "version": MODEL_VERSION,
        "reference_gpu": REFERENCE_GPU,
        "formula": (
            "ratio = exp(arch) * batch * clock / clock_ref"
            " / (s_bw*BWref/BW + s_mm*MMref/MM + s_vec*VECref/VEC),"
            " clock = min(1, TDP / (SMs * boost GHz) / w0) ** (1/3);"
            " batch exponent 0 for cv; cv fitted with a 2022-table offset for pre-Ampere;"
            " unmeasured GPUs x exp(shrunken mean residual of measured siblings)"
        ),
        "calibration": "Lambda deeplearning-benchmark v1 (aa5addb6) + Lambda 2022 blog table",
        "families": families,
        "workloads": workloads,
        "cv_log_error": cv_error,
        "measured": measured_family_ratios(),
        "residuals": {f: family_log_residuals(fit, f) for f, fit in fits.items()},
        "reference_fp16_speedup": reference_speedups(),
        "scaling": fit_scaling(),
    }
