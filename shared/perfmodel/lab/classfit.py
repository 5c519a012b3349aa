"""Fitting the workload-class model to benchmark tables (ratios within a table only).

Every measurement is predicted up to a factor per *group* (table, workload, precision):
the loss is the within-group demeaned log error, so only ratios between
GPUs of one group (and of one GPU across system sizes, through the scaling terms) inform
the fit, never absolute values across tables. Ridge priors keep every architecture
offset near 0 (Ampere, the reference) unless the data move it, and the multi-GPU
efficiencies near Lambda's fit.

Parameters, by model group:
- training: log offset per architecture on top of the Lambda-calibrated value (Lambda's
  measurements included), log efficiency per doubling of GPUs per interconnect class,
  and per doubling of nodes (InfiniBand);
- llm: log offset per architecture, plus one per software stack and architecture
  (llama.cpp, vLLM and TensorRT-LLM kernels suit architectures differently), achieved
  share of peak matrix rate, per-step overhead per software stack;
- vision: roofline share logits per class, log offset per architecture.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import inference as inf
from shared.perfmodel.class_params import FittedParams, per_gpu_scaling
from shared.perfmodel.class_rows import Row
from shared.perfmodel.lab.class_layout import ETA_START, Layout
from shared.perfmodel.matrix_clock import matrix_clock_log, matrix_time, training_time_log
from shared.perfmodel.scaling import fit_scaling, interconnect_class

# Typical log error of one benchmark value against the model (software, settings and
# submitter differences): the data residuals are weighted by it against the priors.
NOISE_SD = 0.15


def predict_log(row: Row, params: FittedParams, ref: GpuSpec) -> float:
    """Log per-GPU throughput of a row, up to its group's constant."""
    gpu = row.gpu
    if row.model_group == inf.TRAINING_GROUP:
        offset = params.arch_log.get(inf.TRAINING_GROUP, {}).get(gpu.architecture, 0.0)
        share = params.gemm_share.get(row.m.workload, 0.0)
        # A module short of power per peak TFLOPS cannot hold its clock in dense matrix
        # multiplies, the kernels that draw the most power (module_power.py): in the
        # benchmark's own large GEMMs and in the Lambda mix's matrix share alike.
        gemm = matrix_time(
            row.gemm_time,
            row.power_log,
            params.power_exponent,
            params.gemm_arch_log(gpu.architecture),
        )
        clock = matrix_clock_log(row.matrix_fraction, row.power_log, params.power_exponent)
        value = training_time_log(row.base_log + clock, gemm, share) + offset
        eta = params.eta.get(interconnect_class(gpu), ETA_START)
        return value + math.log(per_gpu_scaling(eta, params.network_eta, row.m.gpus_per_system))
    p = params.inference()
    if row.model_group == inf.LLM_GROUP:
        assert row.llm is not None
        link = interconnect_class(gpu)
        if row.llm.prefill:
            return math.log(inf.prefill_tokens_per_s(gpu, row.llm.workload, p, row.llm.stack, 1))
        workload = row.llm.workload
        if row.llm.model in params.extra_compute:
            workload = replace(workload, extra_compute=params.extra_compute[row.llm.model])
        tokens = inf.decode_tokens_per_s(gpu, workload, p, row.llm.stack, row.tp, link)
        return math.log(tokens)
    return math.log(inf.vision_throughput(gpu, ref, row.m.workload_class, p))


def _residuals(rows: Sequence[Row], params: FittedParams, ref: GpuSpec) -> np.ndarray:
    by_group: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    for row in rows:
        by_group[row.group].append(math.log(row.m.value) - predict_log(row, params, ref))
    out: list[float] = []
    for values in by_group.values():
        if len(values) < 2:
            continue
        mean = sum(values) / len(values)
        out += [v - mean for v in values]
    return np.asarray(out)


def fit(
    rows: Sequence[Row],
    eta_start: dict[str, float] | None = None,
    warm: FittedParams | None = None,
) -> FittedParams:
    """Least squares on within-group log errors plus the ridge priors, one model group
    (training, llm, vision) at a time: they share no parameter, and apart each converges
    on its own rather than on the joint problem's iteration budget."""
    out = FittedParams()
    for group in sorted({r.model_group for r in rows}):
        part = _fit_group([r for r in rows if r.model_group == group], eta_start, warm)
        out.arch_log.update(part.arch_log)
        if group == inf.TRAINING_GROUP:
            out.eta = {**lambda_eta(), **part.eta}
            out.network_eta = part.network_eta
            out.gemm_share = part.gemm_share
            out.power_exponent = part.power_exponent
        elif group == inf.LLM_GROUP:
            out.matmul_efficiency = part.matmul_efficiency
            out.step_overhead_s = part.step_overhead_s
            out.extra_compute = part.extra_compute
            out.memory_log = part.memory_log
        else:
            out.vision_shares = part.vision_shares
            out.vision_power_exponent = part.vision_power_exponent
    return out


def _fit_group(
    rows: Sequence[Row],
    eta_start: dict[str, float] | None,
    warm: FittedParams | None,
) -> FittedParams:
    starts = eta_start or {}
    layout = Layout(rows)
    ref = load_catalog().by_id["rtx-3090"]
    # Groups with one GPU and one size carry no ratio; scaling ties sizes of one GPU.
    informative = _informative(rows)

    def loss(x: np.ndarray) -> np.ndarray:
        params = layout.params(x)
        return np.concatenate(
            [_residuals(informative, params, ref) / NOISE_SD, layout.priors(x, starts)]
        )

    x0 = layout.start(starts)
    if warm is not None:
        x0 = layout.warm(x0, warm)
    result = least_squares(loss, x0, method="trf", x_scale=1.0, max_nfev=200)
    return layout.params(result.x)


@lru_cache(maxsize=1)
def lambda_eta() -> dict[str, float]:
    """Efficiency per doubling of GPUs per interconnect class from Lambda's 1-8 GPU runs
    (geometric mean of cv and nlp): the value of a class without MLPerf scaling evidence.
    A bridged pair has no Lambda measurement and counts as PCIe with peer-to-peer."""
    fitted: dict[str, dict[str, float]] = fit_scaling()["eta"]
    out = {link: math.sqrt(v["cv"] * v["nlp"]) for link, v in fitted.items()}
    out.setdefault("bridge", out["pcie-p2p"])
    return out


def _informative(rows: Sequence[Row]) -> list[Row]:
    sizes: dict[tuple[Any, ...], int] = defaultdict(int)
    for r in rows:
        sizes[r.group] += 1
    return [r for r in rows if sizes[r.group] >= 2]


def leave_one_out(
    rows: Sequence[Row],
    key: Callable[[Row], str],
    eta_start: dict[str, float] | None = None,
    warm: FittedParams | None = None,
) -> dict[str, FittedParams]:
    """Parameters fitted without each value of `key` (a table, a GPU), by that value."""
    held = sorted({key(r) for r in rows})
    return {k: fit([r for r in rows if key(r) != k], eta_start, warm) for k in held}
