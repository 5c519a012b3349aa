"""The class fit's parameter vector: its entries, starting values, ridge priors, and how it
reads back as `FittedParams`."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from shared.perfmodel import inference as inf
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_params import GEMM_ARCH_GROUP, GPUS_PER_NODE, FittedParams
from shared.perfmodel.class_rows import Row
from shared.perfmodel.module_power import POWER_EXPONENT_PRIOR, POWER_EXPONENT_PRIOR_SD
from shared.perfmodel.scaling import interconnect_class
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import MLPERF_LLM_TRAINING, TRAINING_NLP

# Prior standard deviations (log units) of the ridge terms.
ARCH_PRIOR_SD = 0.3
ETA_PRIOR_SD = 0.1
# The MLPerf LLM training benchmarks share one matrix-multiply share (BERT has its own).
LLM_SHARE = "llm"
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
LINKS = ("nvswitch", "bridge", "pcie-p2p", "pcie-no-p2p")
# Starting (and prior) efficiency per doubling of GPUs in one node.
ETA_START = 0.95
NETWORK = "network"
POWER = "power"


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
                if r.model_group == inf.TRAINING_GROUP and r.m.workload in MLPERF_LLM_TRAINING:
                    # LLM-scale matrix multiplies reach their own share of an
                    # architecture's peak at its training precision (FP8 on Hopper on).
                    archs[GEMM_ARCH_GROUP].add(r.gpu.architecture)
        for group in sorted(archs):
            self.names += [f"arch:{group}:{a}" for a in sorted(archs[group])]
        if inf.TRAINING_GROUP in groups:
            self.names += [f"eta:{link}" for link in scaled_links(rows)]
            if any(r.m.gpus_per_system > GPUS_PER_NODE for r in rows):
                self.names.append(f"eta:{NETWORK}")
            benchmarks = {
                LLM_SHARE if r.m.workload in MLPERF_LLM_TRAINING else r.m.workload
                for r in rows
                if r.m.workload_class == TRAINING_NLP
            }
            self.names += [f"gemm:{b}" for b in sorted(benchmarks)]
            self.names.append(POWER)
        if inf.LLM_GROUP in groups:
            self.names.append("matmul")
            # Per software stack: its kernels reach a share of HBM bandwidth of their own.
            hbm_stacks = {
                r.llm.stack for r in rows if r.llm is not None and inf.memory_class(r.gpu) == "hbm"
            }
            self.names += [f"memory:{inf.memory_key('hbm', s)}" for s in sorted(hbm_stacks)]
            stacks = sorted({r.llm.stack for r in rows if r.llm is not None})
            self.names += [f"overhead:{s}" for s in stacks]
            served = {r.llm.model for r in rows if r.llm is not None and _mlperf_llm(r)}
            self.names += [f"compute:{m}" for m in sorted(served)]
        for klass in sorted({r.m.workload_class for r in rows if r.model_group == "vision"}):
            self.names += [f"share:{klass}:matmul", f"share:{klass}:vector"]
        if inf.VISION_GROUP in groups:
            self.names.append(f"{POWER}:{inf.VISION_GROUP}")
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
            elif name.partition(":")[0] == POWER:
                x[i] = POWER_EXPONENT_PRIOR
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
            elif kind == "memory":
                out.memory_log[rest] = float(x[i])
            elif kind == "overhead":
                out.step_overhead_s[rest] = math.exp(x[i])
            elif kind == "share":
                klass, _, which = rest.partition(":")
                shares[klass][which] = float(x[i])
            elif kind == "compute":
                out.extra_compute[rest] = math.exp(x[i])
            elif kind == "gemm":
                share = 1.0 / (1.0 + math.exp(-x[i]))
                for benchmark in MLPERF_LLM_TRAINING if rest == LLM_SHARE else (rest,):
                    out.gemm_share[benchmark] = share
            elif kind == POWER:
                # Between no power limit (0) and throughput ~ power (1): module_power.py.
                exponent = min(1.0, max(0.0, float(x[i])))
                if rest == inf.VISION_GROUP:
                    out.vision_power_exponent = exponent
                else:
                    out.power_exponent = exponent
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
            elif name.startswith("memory:"):
                out.append(x[i] / ARCH_PRIOR_SD)
            elif name.partition(":")[0] == POWER:
                out.append((x[i] - POWER_EXPONENT_PRIOR) / POWER_EXPONENT_PRIOR_SD)
            elif name.startswith("overhead:"):
                out.append((x[i] - math.log(OVERHEAD_PRIOR_S)) / OVERHEAD_PRIOR_SD)
        return out


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


def _mlperf_llm(row: Row) -> bool:
    """An MLPerf Inference LLM row (its throughput includes the prompts' prefill)."""
    return row.m.dataset == bm.MLPERF_INFERENCE and row.llm is not None
