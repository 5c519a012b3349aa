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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import benchmark_workloads as bw
from shared.perfmodel import inference as inf
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.features import matmul_rate
from shared.perfmodel.scaling import fit_scaling, interconnect_class
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import TRAINING_NLP, fp8_rate

GPUS_PER_NODE = 8
REFERENCE_GPU = "rtx-3090"
# Typical log error of one benchmark value against the model (software, settings and
# submitter differences): the data residuals are weighted by it against the priors.
NOISE_SD = 0.15
# Prior standard deviations (log units) of the ridge terms.
ARCH_PRIOR_SD = 0.3
ETA_PRIOR_SD = 0.1
# Logit of a benchmark's matrix-multiply share: centred on half, wide.
GEMM_PRIOR_SD = 2.0
# A software stack's own offset per architecture, around the LLM group's: same prior.
STACK_ARCH_SD = ARCH_PRIOR_SD
REFERENCE_ARCH = "Ampere"
# Dense GEMMs reach about half the datasheet peak in LLM inference; a decode step's
# fixed cost (kernel launches, sampling, scheduling) is a few milliseconds.
MATMUL_PRIOR, MATMUL_PRIOR_SD = 0.5, 0.5
OVERHEAD_PRIOR_S, OVERHEAD_PRIOR_SD = 2e-3, 1.0
# MLPerf's LLM data sets pair prompts of hundreds to ~2,000 tokens with answers of
# ~100-1,000: each generated token carries a few tokens' worth of prompt prefill (more
# with beam search), fitted per model around this.
EXTRA_COMPUTE_PRIOR, EXTRA_COMPUTE_PRIOR_SD = 2.0, 1.0
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
LINKS = ("nvswitch", "bridge", "pcie-p2p", "pcie-no-p2p")
# Starting (and prior) efficiency per doubling of GPUs in one node.
ETA_START = 0.95
NETWORK = "network"


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
    # matrix multiplies relative to the reference's (matrix rate at the training precision).
    base_log: float = 0.0
    gemm_time: float = 1.0
    llm: bw.BenchmarkLlm | None = None
    tp: int = 1


@dataclass
class FittedParams:
    """Everything the class model needs at prediction time (JSON-ready via `to_json`)."""

    arch_log: dict[str, dict[str, float]] = field(default_factory=dict)
    eta: dict[str, float] = field(default_factory=dict)
    network_eta: float = 0.95
    matmul_efficiency: float = 0.5
    step_overhead_s: dict[str, float] = field(default_factory=dict)
    vision_shares: dict[str, Shares] = field(default_factory=dict)
    # Share of the reference's time in large matrix multiplies, by MLPerf Training
    # transformer benchmark (0 = Lambda's transformer mix; the product's default).
    gemm_share: dict[str, float] = field(default_factory=dict)
    # Matrix work per generated token beyond its own decode step, in tokens' worth, by
    # MLPerf Inference LLM: its throughput counts generated tokens of whole requests, so
    # their prompts' prefill is part of it (the data sets' lengths are not bundled).
    extra_compute: dict[str, float] = field(default_factory=dict)

    def inference(self) -> inf.InferenceParams:
        return inf.InferenceParams(
            arch_log=self.arch_log,
            matmul_efficiency=self.matmul_efficiency,
            step_overhead_s=self.step_overhead_s,
            vision_shares=self.vision_shares,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "arch_log": self.arch_log,
            "eta": self.eta,
            "network_eta": self.network_eta,
            "matmul_efficiency": self.matmul_efficiency,
            "step_overhead_s": self.step_overhead_s,
            "vision_shares": {
                k: {"bandwidth": s.bandwidth, "matmul": s.matmul, "vector": s.vector}
                for k, s in self.vision_shares.items()
            },
            "gemm_share": self.gemm_share,
            "extra_compute": self.extra_compute,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FittedParams:
        return cls(
            arch_log=data["arch_log"],
            eta=data["eta"],
            network_eta=data["network_eta"],
            matmul_efficiency=data["matmul_efficiency"],
            step_overhead_s=data["step_overhead_s"],
            vision_shares={k: Shares(**v) for k, v in data["vision_shares"].items()},
            gemm_share=data.get("gemm_share", {}),
            extra_compute=data.get("extra_compute", {}),
        )


def per_gpu_scaling(eta: float, network_eta: float, count: int) -> float:
    """Per-GPU efficiency of `count` GPUs: eta per doubling inside a node of up to 8,
    network_eta per doubling of nodes."""
    inside = min(count, GPUS_PER_NODE)
    nodes = math.ceil(count / GPUS_PER_NODE)
    return float(eta ** math.log2(inside) * network_eta ** math.log2(nodes))


def gemm_time(gpu: GpuSpec, ref: GpuSpec, precision: str) -> float:
    """Time of the same matrix multiplies on `gpu` relative to `ref` (each at its own
    training precision: FP8 where the hardware has it for transformers)."""
    ref_rate = matmul_rate(ref, "fp16") or ref.fp32_tflops
    return ref_rate / (matmul_rate(gpu, precision) or gpu.fp32_tflops)


def training_time_log(base_log: float, gemm: float, share: float) -> float:
    """Log throughput of a benchmark that spends `share` of the reference's time in large
    matrix multiplies (scaling with the matrix rate alone) and the rest like Lambda's
    transformer mix (the calibrated roofline): a roofline sum of the two times."""
    return -math.log((1.0 - share) * math.exp(-base_log) + share * gemm)


def training_precision(workload_class: str, gpu: GpuSpec) -> str:
    """MLPerf transformer training runs FP8 where the hardware has it (Transformer
    Engine); CNN training stays in 16 bits."""
    if workload_class == TRAINING_NLP and fp8_rate(gpu) is not None:
        return "fp8"
    return "fp16"


def prepare(
    measurements: Sequence[bm.Measurement],
    training_base: Callable[[GpuSpec, str, str], float | None],
) -> list[Row]:
    """Rows of the measurements the class model can predict (others are left out)."""
    catalog = load_catalog()
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
            precision = training_precision(klass, gpu)
            base = training_base(gpu, klass, precision)
            if base is None:
                continue
            gemm = gemm_time(gpu, catalog.by_id[REFERENCE_GPU], precision)
            rows.append(Row(m, gpu, group_key, model_group, math.log(base), gemm))
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
            rows.append(Row(m, gpu, group_key, model_group, llm=described, tp=tp))
        else:
            rows.append(Row(m, gpu, group_key, model_group))
    return rows


class Layout:
    """Names of the parameter vector's entries, built from the rows to fit."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.names: list[str] = []
        groups = {r.model_group for r in rows}
        archs = defaultdict(set)
        for r in rows:
            if r.gpu.architecture != REFERENCE_ARCH:
                archs[r.model_group].add(r.gpu.architecture)
                if r.llm is not None:
                    archs[inf.stack_group(r.llm.stack)].add(r.gpu.architecture)
        for group in sorted(archs):
            self.names += [f"arch:{group}:{a}" for a in sorted(archs[group])]
        if inf.TRAINING_GROUP in groups:
            self.names += [f"eta:{link}" for link in scaled_links(rows)]
            if any(r.m.gpus_per_system > GPUS_PER_NODE for r in rows):
                self.names.append(f"eta:{NETWORK}")
            benchmarks = {r.m.workload for r in rows if r.m.workload_class == TRAINING_NLP}
            self.names += [f"gemm:{b}" for b in sorted(benchmarks)]
        if inf.LLM_GROUP in groups:
            self.names.append("matmul")
            stacks = sorted({r.llm.stack for r in rows if r.llm is not None})
            self.names += [f"overhead:{s}" for s in stacks]
            served = {r.llm.model for r in rows if r.llm is not None and _mlperf_llm(r)}
            self.names += [f"compute:{m}" for m in sorted(served)]
        for klass in sorted({r.m.workload_class for r in rows if r.model_group == "vision"}):
            self.names += [f"share:{klass}:matmul", f"share:{klass}:vector"]
        self.index = {name: i for i, name in enumerate(self.names)}

    def start(self, eta_start: dict[str, float]) -> np.ndarray:
        x = np.zeros(len(self.names))
        for name, i in self.index.items():
            if name.startswith("eta:"):
                x[i] = math.log(eta_start.get(name[4:], ETA_START))
            elif name == "matmul":
                x[i] = math.log(MATMUL_PRIOR)
            elif name.startswith("overhead:"):
                x[i] = math.log(OVERHEAD_PRIOR_S)
            elif name.startswith("compute:"):
                x[i] = math.log(EXTRA_COMPUTE_PRIOR)
        return x

    def params(self, x: np.ndarray) -> FittedParams:
        out = FittedParams()
        shares: dict[str, dict[str, float]] = defaultdict(dict)
        for name, i in self.index.items():
            kind, _, rest = name.partition(":")
            if kind == "arch":
                group, _, arch = rest.partition(":")
                out.arch_log.setdefault(group, {})[arch] = float(x[i])
            elif kind == "eta":
                value = min(1.0, math.exp(x[i]))
                if rest == NETWORK:
                    out.network_eta = value
                else:
                    out.eta[rest] = value
            elif kind == "matmul":
                out.matmul_efficiency = min(1.0, math.exp(x[i]))
            elif kind == "overhead":
                out.step_overhead_s[rest] = math.exp(x[i])
            elif kind == "share":
                klass, _, which = rest.partition(":")
                shares[klass][which] = float(x[i])
            elif kind == "compute":
                out.extra_compute[rest] = math.exp(x[i])
            elif kind == "gemm":
                out.gemm_share[rest] = 1.0 / (1.0 + math.exp(-x[i]))
        for klass, logits in shares.items():
            out.vision_shares[klass] = Shares.from_logits(logits["matmul"], logits["vector"])
        return out

    def warm(self, x: np.ndarray, previous: FittedParams) -> np.ndarray:
        """Start from an earlier fit where it has the same entries (faster refits)."""
        x = x.copy()
        for name, i in self.index.items():
            kind, _, rest = name.partition(":")
            if kind == "arch":
                group, _, arch = rest.partition(":")
                x[i] = previous.arch_log.get(group, {}).get(arch, 0.0)
            elif kind == "eta" and rest in previous.eta:
                x[i] = math.log(previous.eta[rest])
            elif kind == "overhead" and rest in previous.step_overhead_s:
                x[i] = math.log(previous.step_overhead_s[rest])
        return x

    def priors(self, x: np.ndarray, eta_start: dict[str, float]) -> list[float]:
        out = []
        for name, i in self.index.items():
            if name.startswith("arch:"):
                sd = STACK_ARCH_SD if "@" in name else ARCH_PRIOR_SD
                out.append(x[i] / sd)
            elif name.startswith("eta:"):
                out.append((x[i] - math.log(eta_start.get(name[4:], ETA_START))) / ETA_PRIOR_SD)
            elif name.startswith("share:"):
                out.append(x[i] / 5.0)
            elif name.startswith("compute:"):
                prior = math.log(EXTRA_COMPUTE_PRIOR)
                out.append((x[i] - prior) / EXTRA_COMPUTE_PRIOR_SD)
            elif name.startswith("gemm:"):
                out.append(x[i] / GEMM_PRIOR_SD)
            elif name == "matmul":
                out.append((x[i] - math.log(MATMUL_PRIOR)) / MATMUL_PRIOR_SD)
            elif name.startswith("overhead:"):
                out.append((x[i] - math.log(OVERHEAD_PRIOR_S)) / OVERHEAD_PRIOR_SD)
        return out


def predict_log(row: Row, params: FittedParams, ref: GpuSpec) -> float:
    """Log per-GPU throughput of a row, up to its group's constant."""
    gpu = row.gpu
    if row.model_group == inf.TRAINING_GROUP:
        offset = params.arch_log.get(inf.TRAINING_GROUP, {}).get(gpu.architecture, 0.0)
        share = params.gemm_share.get(row.m.workload, 0.0)
        value = training_time_log(row.base_log, row.gemm_time, share) + offset
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
        elif group == inf.LLM_GROUP:
            out.matmul_efficiency = part.matmul_efficiency
            out.step_overhead_s = part.step_overhead_s
            out.extra_compute = part.extra_compute
        else:
            out.vision_shares = part.vision_shares
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


def scaled_links(rows: Sequence[Row]) -> list[str]:
    """Interconnect classes with scaling evidence: a GPU of the class measured at two or
    more system sizes in one group. Without it, a link's efficiency would be set by
    comparing different GPUs at different sizes, i.e. by their architecture offsets
    (the RTX 4090's only multi-GPU rows are tinygrad's 6-GPU boxes)."""
    sizes: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for r in rows:
        if r.model_group == inf.TRAINING_GROUP and r.m.gpus_per_system > 1:
            sizes[(r.group, r.gpu.id)].add(r.m.gpus_per_system)
    links = {interconnect_class(r.gpu) for r in rows if len(sizes[(r.group, r.gpu.id)]) > 1}
    return sorted(links)


@lru_cache(maxsize=1)
def lambda_eta() -> dict[str, float]:
    """Efficiency per doubling of GPUs per interconnect class from Lambda's 1-8 GPU runs
    (geometric mean of cv and nlp): the value of a class without MLPerf scaling evidence.
    A bridged pair has no Lambda measurement and counts as PCIe with peer-to-peer."""
    fitted: dict[str, dict[str, float]] = fit_scaling()["eta"]
    out = {link: math.sqrt(v["cv"] * v["nlp"]) for link, v in fitted.items()}
    out.setdefault("bridge", out["pcie-p2p"])
    return out


def _mlperf_llm(row: Row) -> bool:
    """An MLPerf Inference LLM row (its throughput includes the prompts' prefill)."""
    return row.m.dataset == bm.MLPERF_INFERENCE and row.llm is not None


def _informative(rows: Sequence[Row]) -> list[Row]:
    sizes: dict[tuple[Any, ...], int] = defaultdict(int)
    for r in rows:
        sizes[r.group] += 1
    return [r for r in rows if sizes[r.group] >= 2]


def row_key(gpu_id: str, workload_class: str, count: int, workload: str) -> tuple[str, ...]:
    return (gpu_id, workload_class, str(count), workload)


def leave_one_out(
    rows: Sequence[Row],
    key: Callable[[Row], str],
    eta_start: dict[str, float] | None = None,
    warm: FittedParams | None = None,
) -> dict[str, FittedParams]:
    """Parameters fitted without each value of `key` (a table, a GPU), by that value."""
    held = sorted({key(r) for r in rows})
    return {k: fit([r for r in rows if key(r) != k], eta_start, warm) for k in held}


def table_of(row: Row) -> str:
    return f"{row.m.dataset}|{row.m.table_id}"


def gpu_of(row: Row) -> str:
    return row.gpu.id
