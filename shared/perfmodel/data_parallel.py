"""Data-parallel speed-up inside one machine, by workload: gradient bytes against compute.

Each step, every GPU computes its own batch (`compute_s`) and then the GPUs all-reduce the
gradients; a ring all-reduce moves 2 (N - 1) / N times the gradient bytes through each
GPU's link, so

    efficiency(N) = compute_s / (compute_s + 2 (N - 1) / N * gradient_bytes / bandwidth)

with `bandwidth` the achieved share of the link's nominal bandwidth, fitted per link class
on Lambda's 2/4/8-GPU rows (`lab/data_parallel_fit.py`; docs/model/scaling.md). A big
model with a small batch on a fast card (short steps, many bytes) scales worst; a CNN at
a large batch scales almost linearly, as measured.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from shared.catalog.specs import GpuSpec
from shared.perfmodel.memory import LORA, LORA_FRACTION, QLORA
from shared.perfmodel.scaling import (
    INFINITY_FABRIC,
    NVLINK_BRIDGE,
    NVSWITCH,
    PCIE_NO_P2P,
    PCIE_P2P,
    interconnect_class,
)

DATA_PARALLEL_VERSION = "data-parallel-2026.12.1"
PARAMS_PATH = Path(__file__).parent / "params" / f"{DATA_PARALLEL_VERSION}.json"
# Nominal one-direction bandwidth of an x16 slot per PCIe generation, GB/s.
PCIE_GBS = {3: 16.0, 4: 32.0, 5: 64.0, 6: 128.0}
# NVLink per GPU, one direction, GB/s (NVIDIA's per-GPU totals halved): V100 SXM2 300,
# A100 600, H100/H200 900, B200/B300 1,800 GB/s both ways.
NVLINK_GBS = {"Volta": 150.0, "Ampere": 300.0, "Hopper": 450.0, "Blackwell": 900.0}
# AMD OAM modules: 7 Infinity Fabric links of 64 GB/s each way to the other 7 modules.
INFINITY_FABRIC_GBS = 7 * 64.0
# Bytes per gradient value: PyTorch DDP all-reduces the fp32 gradients of mixed-precision
# training (the master weights' dtype), so the fp16 and fp32 rows move the same bytes.
GRADIENT_BYTES = 4
# Links with no multi-GPU measurement borrow a measured class's achieved share: a bridged
# pair (H100 NVL) is assumed no better than PCIe with P2P (no bridged run was measured), an
# Infinity Fabric module as an NVSwitch one (a direct fabric between modules).
SHARE_OF = {NVLINK_BRIDGE: PCIE_P2P, INFINITY_FABRIC: NVSWITCH}
FITTED_LINKS = (PCIE_NO_P2P, PCIE_P2P, NVSWITCH)
# The reference GPU's memory: a card's batch per GPU is the reference's scaled by memory
# (Lambda ran every card at about its largest batch).
REFERENCE_MEMORY_GB = 24.0
# An LLM fine-tune's step on the reference GPU. Assumptions, not fits (no bundled table
# times data-parallel LLM training on several cards of one kind with the same software):
# 16,384 tokens per step (e.g. 8 x 2,048) on 24 GB, scaled by memory like the batch above,
# at 35 % of the reference's 71 dense FP16 TFLOPS; 2 FLOPs per parameter and token
# forward, 2 backward through the activations, 2 more for the weights' gradients in a
# full fine-tune and 2 for the recomputed forward of gradient checkpointing. Adapters
# (LoRA, QLoRA) all-reduce only the adapters' gradients (memory.LORA_FRACTION of the
# weights).
REFERENCE_LLM_TOKENS = 16_384
REFERENCE_LLM_FLOPS = 0.35 * 71e12
FULL_FLOPS_PER_PARAM_TOKEN = 8.0
ADAPTER_FLOPS_PER_PARAM_TOKEN = 6.0


@dataclass(frozen=True, slots=True)
class Step:
    """One GPU's training step: seconds of compute and bytes of gradients to all-reduce."""

    compute_s: float
    gradient_bytes: float
    label: str


def nominal_gbs(gpu: GpuSpec) -> float:
    """The nominal one-direction bandwidth of the link the GPU all-reduces over."""
    link = interconnect_class(gpu)
    if link == NVSWITCH:
        return NVLINK_GBS.get(gpu.architecture, NVLINK_GBS["Hopper"])
    if link == INFINITY_FABRIC:
        return INFINITY_FABRIC_GBS
    return pcie_gbs(gpu)


def pcie_gbs(gpu: GpuSpec) -> float:
    """The card's x16 slot, one direction (PCIe 4 where the generation is unknown)."""
    return PCIE_GBS.get(gpu.pcie_gen, PCIE_GBS[4])


def achieved_gbs(gpu: GpuSpec, share: dict[str, float]) -> float:
    """Nominal bandwidth times the achieved share fitted for the GPU's link class. A
    module fabric is never slower than PCIe with P2P of the card's generation: the
    collective library takes the faster path (Lambda's A100 SXM4 rows alone fit a share
    below its PCIe slot's; docs/model/scaling.md)."""
    link = interconnect_class(gpu)
    achieved = nominal_gbs(gpu) * share[SHARE_OF.get(link, link)]
    if link in (NVSWITCH, INFINITY_FABRIC) and PCIE_P2P in share:
        achieved = max(achieved, pcie_gbs(gpu) * share[PCIE_P2P])
    return achieved


def efficiency(step: Step, bandwidth_gbs: float, count: int) -> float:
    """Per-GPU efficiency of `count` GPUs in one machine (1.0 for one GPU)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    traffic = 2 * (count - 1) / count * step.gradient_bytes
    return step.compute_s / (step.compute_s + traffic / (bandwidth_gbs * 1e9))


@dataclass(frozen=True, slots=True)
class DataParallelParams:
    """What the fit sets: the achieved share of each link class's nominal bandwidth, each
    Lambda workload's step on the reference GPU and its gradient bytes, and the 80 %
    log half-width of held-out speed-up errors."""

    share: dict[str, float]
    reference_step_s: dict[str, dict[str, float]]
    gradient_bytes: dict[str, float]
    half_width: float
    evaluation: dict[str, Any]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DataParallelParams:
        return cls(
            data["share"],
            data["reference_step_s"],
            data["gradient_bytes"],
            data["half_width"],
            data.get("evaluation", {}),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "share": self.share,
            "reference_step_s": self.reference_step_s,
            "gradient_bytes": self.gradient_bytes,
            "half_width": self.half_width,
            "evaluation": self.evaluation,
        }

    def workload_step(
        self, gpu: GpuSpec, workload: str, data_precision: str, relative: float
    ) -> Step:
        """The step of a Lambda workload on `gpu`, `relative` times the reference's speed,
        at a batch scaled from the reference's by memory."""
        batch_scale = gpu.memory_gb / REFERENCE_MEMORY_GB
        seconds = self.reference_step_s[workload][data_precision] * batch_scale / relative
        return Step(seconds, self.gradient_bytes[workload], workload)

    def llm_step(self, gpu: GpuSpec, params_b: float, mode: str, relative: float) -> Step:
        """An LLM fine-tune's step on `gpu`, `relative` times the reference's speed."""
        params = params_b * 1e9
        adapters = mode in (LORA, QLORA)
        flops = ADAPTER_FLOPS_PER_PARAM_TOKEN if adapters else FULL_FLOPS_PER_PARAM_TOKEN
        tokens = REFERENCE_LLM_TOKENS * gpu.memory_gb / REFERENCE_MEMORY_GB
        seconds = tokens * flops * params / (REFERENCE_LLM_FLOPS * relative)
        trained = params * LORA_FRACTION if adapters else params
        return Step(seconds, trained * GRADIENT_BYTES, f"{params_b:g}B {mode}")

    def speedup(self, gpu: GpuSpec, step: Step, count: int) -> float:
        return count * efficiency(step, achieved_gbs(gpu, self.share), count)


def widened(interval: tuple[float, float], value: float, half_width: float) -> tuple[float, float]:
    """`interval` around `value` with an independent log error of `half_width` added in
    quadrature on each side (the speed-up's error on top of one GPU's)."""
    low, high = interval
    down = math.hypot(math.log(value / low), half_width)
    up = math.hypot(math.log(high / value), half_width)
    return value * math.exp(-down), value * math.exp(up)


@lru_cache(maxsize=2)
def load_data_parallel_params(path: Path = PARAMS_PATH) -> DataParallelParams:
    return DataParallelParams.from_json(json.loads(path.read_text()))
