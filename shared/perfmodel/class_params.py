"""The fitted parameters of the workload-class model, and the multi-GPU scaling they set."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from shared.perfmodel import inference as inf
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import MLPERF_LLM_TRAINING

GPUS_PER_NODE = 8
# arch_log group of the achieved share of the training precision's peak matrix rate in
# the MLPerf LLM benchmarks' large matrix multiplies, per architecture (Ampere = 0).
GEMM_ARCH_GROUP = "training-gemm"


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
    # Exponent of a training module's W per peak TFLOPS against its architecture's
    # best-fed module (module_power.py): the power-limited clock (0 before 2026.12.3).
    power_exponent: float = 0.0
    # Log offset of the achieved memory bandwidth of HBM cards against GDDR ones in LLM
    # decode (llama.cpp and vLLM reach less of a datacenter HBM card's bandwidth).
    memory_log: dict[str, float] = field(default_factory=dict)
    # Exponent of an HBM part's W per peak TFLOPS against its architecture's best-fed one
    # in the vision classes (module_power.card_power_headroom_log; 0 before 2026.12.8).
    vision_power_exponent: float = 0.0

    def llm_training_share(self) -> float:
        """The matrix-multiply share of the product's training-llm class: the median of
        the MLPerf LLM training benchmarks' fitted shares (0 where none was fitted)."""
        shares = [self.gemm_share[w] for w in MLPERF_LLM_TRAINING if w in self.gemm_share]
        return float(statistics.median(shares)) if shares else 0.0

    def gemm_arch_log(self, architecture: str) -> float:
        """Log achieved share of an architecture's peak matrix rate in LLM-scale matrix
        multiplies, against Ampere's (0 where no LLM training run measured it)."""
        return self.arch_log.get(GEMM_ARCH_GROUP, {}).get(architecture, 0.0)

    def inference(self) -> inf.InferenceParams:
        return inf.InferenceParams(
            arch_log=self.arch_log,
            matmul_efficiency=self.matmul_efficiency,
            step_overhead_s=self.step_overhead_s,
            vision_shares=self.vision_shares,
            memory_log=self.memory_log,
            vision_power_exponent=self.vision_power_exponent,
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
            "power_exponent": self.power_exponent,
            "memory_log": self.memory_log,
            "vision_power_exponent": self.vision_power_exponent,
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
            power_exponent=data.get("power_exponent", 0.0),
            memory_log=data.get("memory_log", {}),
            vision_power_exponent=data.get("vision_power_exponent", 0.0),
        )


def per_gpu_scaling(eta: float, network_eta: float, count: int) -> float:
    """Per-GPU efficiency of `count` GPUs: eta per doubling inside a node of up to 8,
    network_eta per doubling of nodes."""
    inside = min(count, GPUS_PER_NODE)
    nodes = math.ceil(count / GPUS_PER_NODE)
    return float(eta ** math.log2(inside) * network_eta ** math.log2(nodes))
