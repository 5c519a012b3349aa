"""LLM prefill (prompt processing): matrix-bound time at a software-aware matrix rate.

Prefill of P prompt tokens on one GPU:

    t = P * F / (R_sw * s0 * share) + n_w * W / (BW * 0.8) + n_c * c * L / 32,
    tokens/s = P / t

F = 2 x active parameters (FLOPs per token), W the weight bytes, read n_w times (once per
call; in the FP16-accumulate family once per 128-token tile, the token tile llama.cpp's
matrix kernels stream the weights for), BW the memory bandwidth, c the software stack's
per-call overhead for a 32-layer model (the LLM fit's `step_overhead_s`), n_c the calls
(llama.cpp: one per 512-token micro-batch, its default n_ubatch), L the model's layers.
For quantised weights on tensor-core cards llama.cpp multiplies in its MMQ kernels, whose
128 x 128 tiles run in waves of one per SM: the achieved rate is also scaled by the share
of SMs those waves keep busy (`wave_utilisation`, from the model's matrix sizes).
What is new against v2 is R_sw x share:

- R_sw, the peak matrix rate the *software family* runs at. llama.cpp, llamafile and
  Ollama multiply in 16 bits with 16-bit accumulation (cuBLAS FP16 GEMMs with FP16
  compute; quantised prompts on int8 MMQ kernels, whose rate is 2x that on every NVIDIA
  card): on GeForce Turing, Ampere, Ada and Blackwell that is the full FP16-accumulate
  tensor rate, twice the catalog's `fp16_tensor_tflops` (which is the FP32-accumulate
  rate, halved on GeForce; gpu_catalog.md). TITAN, workstation and datacenter parts run
  both accumulations at one rate, so their catalog figure stands, except the L40's (its
  catalog figure is halved too). Cards without tensor
  cores run these kernels on the shader ALUs: FP32 rate (packed FP16 where that is
  faster: GP100, GTX 16), or for quantised weights the DP4A int8 rate (4x FP32) where
  the chip has it (Pascal other than GP100, GTX 16).
  TensorRT-LLM and vLLM accumulate in FP32 at the weights' native precision (FP8, FP4
  where the hardware has it): the catalog rates (`workloads.compute_rate`).
- share, the achieved share of that peak per chip class and architecture, fitted on the
  prefill tables (`prefill_fit.py`) as log offsets: one shared across families plus one
  per family, each with a ridge prior. s0 fixes the unit: 0.4, llama-bench pp512 F16 on
  the RTX 3090 (4,185 tok/s x 13.4 GFLOP = 56 TFLOPS of 142 FP16-accumulate).

The 80 % interval is the held-out error spread (leave one GPU out) of the GPU's family
and chip class, widened to the leave-one-architecture-out spread where the family has
no measurement of the GPU's architecture (prefill_fit.py, docs/model/prefill.md).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.llm_shapes import LlmShape, shape_of
from shared.perfmodel.memory import estimate_shape
from shared.perfmodel.workloads import LlmWorkload, compute_rate

PREFILL_VERSION = "prefill-2026.12.3"
PARAMS_PATH = Path(__file__).parent / "params" / f"{PREFILL_VERSION}.json"

# Software families by their accumulate precision.
FP16_ACCUMULATE = "fp16-accumulate"  # llama.cpp, llamafile, Ollama
FP32_ACCUMULATE = "fp32-accumulate"  # TensorRT-LLM, vLLM
FAMILIES = (FP16_ACCUMULATE, FP32_ACCUMULATE)
STACK_FAMILY: dict[str, str] = {
    "llama.cpp": FP16_ACCUMULATE,
    "llamafile": FP16_ACCUMULATE,
    "ollama": FP16_ACCUMULATE,
    "tensorrt-llm": FP32_ACCUMULATE,
    "vllm": FP32_ACCUMULATE,
}

# Chip classes (what the kernels were written for, and the memory system).
GEFORCE = "geforce"  # consumer cards incl. TITAN
WORKSTATION = "workstation"
DATACENTER_GDDR = "datacenter-gddr"
DATACENTER_HBM = "datacenter-hbm"
NO_TENSOR = "no-tensor-cores"  # Pascal, GTX 16, RDNA: shader-ALU GEMMs
CHIP_CLASSES = (GEFORCE, WORKSTATION, DATACENTER_GDDR, DATACENTER_HBM, NO_TENSOR)
REFERENCE_CLASS = GEFORCE
REFERENCE_ARCHITECTURE = "Ampere"

BASE_SHARE = 0.4
DP4A_FACTOR = 4.0
BANDWIDTH_EFFICIENCY = 0.8  # as inference.py: STREAM-like share of the datasheet rate
REFERENCE_LAYERS = 32.0
# Per-call overhead (s, 32 layers) when no fitted LLM parameters are given: the LLM fit's
# values for llama.cpp and TensorRT-LLM (docs/model/classes.md).
DEFAULT_OVERHEAD_S: dict[str, float] = {FP16_ACCUMULATE: 1.4e-3, FP32_ACCUMULATE: 2.2e-3}
# llama.cpp's default micro-batch (n_ubatch): a prompt is multiplied 512 tokens at a
# time, each pass reading all weights again.
LLAMACPP_UBATCH = 512
# Its matrix kernels stream every weight once per token tile of a micro-batch (MMQ's
# largest tile on tensor-core cards is 128 tokens), not once per micro-batch.
LLAMACPP_TOKEN_TILE = 128
# llama.cpp's quantised matrix kernels (MMQ) on tensor-core cards compute a tile of 128
# weight rows x up to 128 tokens per thread block, one block per SM at a time (the tile's
# shared memory): a GEMM of n rows over t tokens is ceil(n / 128) x ceil(t / 128) tiles
# run in waves of one per SM, and the last wave leaves SMs idle. Recent llama.cpp splits
# the last wave's work over the idle SMs (stream-k, Volta and later), so the term reads as
# how far a prompt's tiles are from filling the chip, not as a measured idle-SM count.
MMQ_ROWS = 128
# Weight formats llama.cpp multiplies through cuBLAS rather than MMQ (F16, BF16).
CUBLAS_WEIGHTS = frozenset({"fp16", "bf16"})
# A new architecture's interval is at least this many times its class's (log) width.
WIDEN_UNMEASURED = 2.0


def family_of(stack: str) -> str:
    """The software family of a stack; unknown stacks are treated as FP32-accumulate
    (PyTorch / cuBLAS defaults)."""
    return STACK_FAMILY.get(stack, FP32_ACCUMULATE)


def fp16_accumulate_rate(gpu: GpuSpec) -> float:
    """Peak FP16 tensor rate with FP16 accumulation (TFLOPS): the catalog's column (twice
    its FP32-accumulate figure on half-rate cards: GeForce, the L40, the Ada workstation
    cards); on cards without tensor cores the shader rate: packed FP16 where the chip runs
    it faster than FP32 (GP100, GTX 16), else FP32."""
    if gpu.fp16_tensor_tflops is None:
        return gpu.fp32_tflops
    if not gpu.has_tensor_cores:
        return gpu.fp16_tensor_tflops if has_packed_fp16(gpu) else gpu.fp32_tflops
    return gpu.fp16_accumulate_tflops or gpu.fp16_tensor_tflops


def has_dp4a(gpu: GpuSpec) -> bool:
    """NVIDIA cards without tensor cores but with the 4-way int8 dot product (Pascal
    GP102-GP107, Turing GTX 16); the P100's GP100 and Kepler lack it."""
    return (
        gpu.vendor == "NVIDIA"
        and not gpu.has_tensor_cores
        and gpu.architecture in {"Pascal", "Turing"}
        and "P100" not in gpu.name
    )


def has_packed_fp16(gpu: GpuSpec) -> bool:
    """NVIDIA cards without tensor cores whose shader FP16 (two per FP32 lane) outruns
    FP32: GP100 and Turing's GTX 16. cuBLAS runs llama.cpp's FP16 GEMMs at that rate, and
    on GP100, which has no DP4A, its dequantised quantised weights too."""
    return (
        gpu.vendor == "NVIDIA"
        and not gpu.has_tensor_cores
        and (gpu.fp16_tensor_tflops or 0.0) > gpu.fp32_tflops
    )


def layer_matrices(shape: LlmShape) -> list[tuple[int, int]]:
    """(output rows, inner size) of one layer's weight matrices: Q, K, V, O and a gated
    MLP (gate, up, down) whose width follows from the parameters per layer (embeddings
    counted in: a slight over-estimate of the width)."""
    h, kv = shape.hidden, shape.kv_heads * shape.head_dim
    if h <= 0:
        return []  # a model too small to have a width (the estimate rounds it to 0)
    q = shape.heads * shape.head_dim
    per_layer = shape.active_params_b * 1e9 / shape.layers
    ffn = max(h, round((per_layer - 2 * h * q - 2 * h * kv) / (3 * h)))
    return [(q, h), (kv, h), (kv, h), (h, q), (ffn, h), (ffn, h), (h, ffn)]


def wave_utilisation(gpu: GpuSpec, shape: LlmShape, tokens: int) -> float:
    """Share of the SMs busy over a prompt's MMQ matrix multiplies (FLOP-weighted): each
    micro-batch's GEMMs in waves of one MMQ_ROWS x LLAMACPP_TOKEN_TILE tile per SM."""
    sms = gpu.sm_count
    if not sms:
        return 1.0
    work = busy = 0.0
    left = tokens
    while left > 0:
        batch = min(LLAMACPP_UBATCH, left)
        left -= batch
        for rows, inner in layer_matrices(shape):
            tiles = math.ceil(rows / MMQ_ROWS) * math.ceil(batch / LLAMACPP_TOKEN_TILE)
            flops = float(rows * inner * batch)
            work += flops
            busy += flops * math.ceil(tiles / sms) * sms / tiles
    return work / busy if busy else 1.0


def runs_mmq(gpu: GpuSpec, family: str, weights: str) -> bool:
    """llama.cpp multiplies quantised weights in its MMQ kernels on tensor-core cards
    (16-bit weights go to cuBLAS, whose tiles adapt to the GPU; cards without tensor
    cores run the DP4A or shader kernels)."""
    return family == FP16_ACCUMULATE and weights not in CUBLAS_WEIGHTS and gpu.has_tensor_cores


def mmq_waves(gpu: GpuSpec, workload: LlmWorkload, family: str) -> float | None:
    """The share of SMs llama.cpp's MMQ tiles keep busy over the prompt, or None where
    the GEMMs run elsewhere (runs_mmq)."""
    if not runs_mmq(gpu, family, workload.weights):
        return None
    shape = shape_of(
        workload.params_b,
        model=workload.model,
        kv_heads=workload.kv_heads,
        active_params_b=workload.active_params_b,
    )
    return wave_utilisation(gpu, shape, workload.prompt_tokens)


def software_rate(gpu: GpuSpec, family: str, weights: str) -> float:
    """Peak matrix rate (TFLOPS) the family's prefill GEMMs run at on this GPU."""
    if family == FP16_ACCUMULATE:
        if weights != "fp16" and has_dp4a(gpu):
            # llama.cpp's quantised matrix kernels (MMQ) use DP4A: 4 int8 MACs per FP32 op.
            return DP4A_FACTOR * gpu.fp32_tflops
        return fp16_accumulate_rate(gpu)
    if not gpu.has_tensor_cores:
        return gpu.fp32_tflops
    return compute_rate(gpu, weights)


def chip_class(gpu: GpuSpec) -> str:
    if not gpu.has_tensor_cores:
        return NO_TENSOR
    if gpu.segment == "consumer":
        return GEFORCE
    if gpu.segment == "workstation":
        return WORKSTATION
    return DATACENTER_HBM if gpu.memory_type.startswith("HBM") else DATACENTER_GDDR


def class_key(kind: str, name: str, family: str | None = None) -> str:
    """Name of one log-share parameter: kind 'class' or 'arch', shared or per family."""
    return f"{kind}:{name}" if family is None else f"{family}/{kind}:{name}"


def share_keys(gpu: GpuSpec, family: str) -> list[str]:
    """The parameters whose sum is the GPU's log share in this family (references
    excluded: GeForce and Ampere are 0 in the shared part)."""
    keys = []
    klass, arch = chip_class(gpu), gpu.architecture
    if klass != REFERENCE_CLASS:
        keys.append(class_key("class", klass))
    if arch != REFERENCE_ARCHITECTURE:
        keys.append(class_key("arch", arch))
    keys.append(class_key("class", klass, family))
    keys.append(class_key("arch", arch, family))
    return keys


@dataclass(frozen=True, slots=True)
class PrefillParams:
    """Fitted log shares, and the 80 % interval half-widths (log) by family and class."""

    log_share: dict[str, float]
    # "family/class" -> half-width for a GPU of a measured architecture.
    half_width: dict[str, float]
    # "family/class" -> half-width for an architecture the family never measured.
    half_width_new_arch: dict[str, float]
    # family -> architectures and chip classes with a measurement in the fit's data.
    measured_architectures: dict[str, list[str]]
    measured_gpus: dict[str, list[str]]
    evaluation: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "log_share": self.log_share,
            "half_width": self.half_width,
            "half_width_new_arch": self.half_width_new_arch,
            "measured_architectures": self.measured_architectures,
            "measured_gpus": self.measured_gpus,
            "evaluation": self.evaluation,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PrefillParams:
        return cls(
            log_share=dict(data["log_share"]),
            half_width=dict(data.get("half_width", {})),
            half_width_new_arch=dict(data.get("half_width_new_arch", {})),
            measured_architectures={k: list(v) for k, v in data["measured_architectures"].items()},
            measured_gpus={k: list(v) for k, v in data["measured_gpus"].items()},
            evaluation=dict(data.get("evaluation", {})),
        )


@lru_cache(maxsize=2)
def load_prefill_params(path: Path = PARAMS_PATH) -> PrefillParams:
    return PrefillParams.from_json(json.loads(path.read_text()))


def achieved_share(gpu: GpuSpec, family: str, log_share: dict[str, float]) -> float:
    return BASE_SHARE * math.exp(sum(log_share.get(k, 0.0) for k in share_keys(gpu, family)))


def prefill_tokens_per_s(
    gpu: GpuSpec,
    workload: LlmWorkload,
    family: str,
    log_share: dict[str, float],
    overhead_s: float | None = None,
    tp: int = 1,
) -> float:
    """Prompt tokens per second per GPU of a tensor-parallel group of `tp` (the prompt's
    matrix work and the weight reads split over the group; communication not modelled)."""
    layers, _ = estimate_shape(workload.active_b)
    per_call = DEFAULT_OVERHEAD_S[family] if overhead_s is None else overhead_s
    rate = software_rate(gpu, family, workload.weights) * 1e12
    matmul = rate * achieved_share(gpu, family, log_share)
    tokens = workload.prompt_tokens
    matmul *= mmq_waves(gpu, workload, family) or 1.0
    flops = 2.0 * workload.active_b * 1e9 * tokens
    weight_bytes = workload.active_b * 1e9 * workload.bits / 8.0
    calls, reads = 1, 1
    if family == FP16_ACCUMULATE:
        calls = math.ceil(tokens / LLAMACPP_UBATCH)
        reads = math.ceil(tokens / LLAMACPP_TOKEN_TILE)
    bandwidth = gpu.memory_bandwidth_gbs * 1e9 * BANDWIDTH_EFFICIENCY
    step = flops / (tp * matmul) + reads * weight_bytes / (tp * bandwidth)
    step += calls * per_call * layers / REFERENCE_LAYERS
    return tokens / step / tp


def _width(widths: dict[str, float], family: str, klass: str) -> float:
    # The family and class's, else the family's, else all errors' (prefill_fit.width_for).
    return widths.get(f"{family}/{klass}", widths.get(family, widths.get("all", 1.0)))


def half_width(params: PrefillParams, gpu: GpuSpec, family: str) -> tuple[float, bool]:
    """(log half-width of the 80 % interval, whether the family measured the GPU's
    architecture). An unmeasured architecture gets the leave-one-architecture-out
    spread, at least WIDEN_UNMEASURED times the measured one."""
    klass = chip_class(gpu)
    base = _width(params.half_width, family, klass)
    if gpu.architecture in params.measured_architectures.get(family, []):
        return base, True
    new = _width(params.half_width_new_arch, family, klass)
    return max(new, base * WIDEN_UNMEASURED), False


@dataclass(frozen=True, slots=True)
class PrefillEstimate:
    """A GPU's prefill rate relative to the reference GPU at 16-bit weights."""

    relative: float
    interval: tuple[float, float]
    family: str
    chip_class: str
    architecture_measured: bool
    gpu_measured: bool
    # Share of the SMs llama.cpp's MMQ tiles keep busy (None: not its quantised kernels).
    sm_busy: float | None = None


def predict_relative(
    gpu: GpuSpec,
    reference: GpuSpec,
    workload: LlmWorkload,
    stack: str,
    overhead_s: float | None = None,
    params: PrefillParams | None = None,
) -> PrefillEstimate:
    """Prefill of `gpu` over the reference running the same model with 16-bit weights on
    the same stack, with the 80 % interval of the held-out errors."""
    p = params or load_prefill_params()
    family = family_of(stack)
    one = prefill_tokens_per_s(gpu, workload, family, p.log_share, overhead_s)
    ref_workload = replace(workload, weights="fp16", bits_per_weight=None)
    ref = prefill_tokens_per_s(reference, ref_workload, family, p.log_share, overhead_s)
    value = one / ref
    width, measured = half_width(p, gpu, family)
    return PrefillEstimate(
        relative=value,
        interval=(value * math.exp(-width), value * math.exp(width)),
        family=family,
        chip_class=chip_class(gpu),
        architecture_measured=measured,
        gpu_measured=gpu.id in p.measured_gpus.get(family, []),
        sm_busy=mmq_waves(gpu, workload, family),
    )


def product_prefill_tokens_per_s(
    gpu: GpuSpec, workload: LlmWorkload, stack: str, overhead_s: float | None = None, tp: int = 1
) -> float:
    """Prefill tokens/s per GPU with the bundled fitted shares (the product's hook)."""
    family = family_of(stack)
    return prefill_tokens_per_s(
        gpu, workload, family, load_prefill_params().log_share, overhead_s, tp
    )


def reference_gpu(gpu_id: str = "rtx-3090") -> GpuSpec:
    return load_catalog().by_id[gpu_id]
