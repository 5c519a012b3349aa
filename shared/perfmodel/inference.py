"""Inference physics: LLM prefill and decode, diffusion and CNN inference.

LLM decode, one step of `batch` sequences on a tensor-parallel group of `tp` GPUs:

    t = (W + batch * KV) / (tp * BW * e) + batch * F / (tp * MM * e * m) + c * L / 32 + comm

W = bytes of the weights read per token (active parameters x bits / 8), KV = KV-cache
bytes per sequence (2 x layers x KV heads x head_dim x context x 2 bytes, from the model's
shape in `llm_shapes.py`: the figure the memory sizing uses), F = 2 x active parameters
x (1 + x) (FLOPs per token; x = matrix work per generated token beyond its own, in
tokens' worth: 0 for a user's decode, fitted per model for MLPerf, whose throughput
includes each request's prompt prefill), BW and MM the GPU's memory bandwidth and matrix
rate at the weights' compute precision, e = exp(arch offset) the architecture's achieved
fraction (fitted), m the achieved share of peak matrix rate (fitted), c the software
stack's per-step overhead for a 32-layer model (fitted; it is why a fast GPU gains little
on a 1B model), L the model's layers, comm two all-reduces per layer between the `tp`
GPUs. A serving batch is what the GPUs hold: the requested batch, or the sequences whose
KV cache fits beside the weights (`serving_batch`). Tokens per second per GPU =
batch / t / tp. At batch 1 the bandwidth term dominates: there is no batch bonus for a
model that fits. Prefill of P prompt tokens: t = P * F / (MM * e * m) + W / (BW * e) + c,
tokens/s = P / t.

Diffusion and CNN inference: the roofline of the training model (shares of memory
traffic, matrix math and other math of the reference's time), fitted per class on
MLPerf Inference, at the lowest precision the hardware runs (what submitters use).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from shared.catalog.specs import GpuSpec
from shared.perfmodel.llm_shapes import LlmShape, shape_of
from shared.perfmodel.memory import (
    estimate_shape,
    fits,
    llm_memory,
    max_sequences,
)
from shared.perfmodel.module_power import card_power_headroom_log
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import (
    CNN_INFERENCE,
    LlmWorkload,
    compute_rate,
    fp8_rate,
    half_rate,
)

# Achieved share of peak memory bandwidth on the reference architecture (Ampere):
# STREAM-like kernels reach ~80-90 % of the datasheet rate; the architecture offset
# (fitted) moves it per architecture. Fixed so the fitted overhead has a unit.
BANDWIDTH_EFFICIENCY = 0.8
# KV cache bytes per value (fp16 cache): the memory sizing's (memory.KV_BYTES).
KV_BYTES = 2.0
# One all-reduce of a decode step's activations (microseconds), by interconnect class:
# NVSwitch and NVLink bridges ~10 us, PCIe with peer-to-peer ~25 us, without it (through
# host memory) ~60 us. Assumptions from NCCL small-message latencies, not fits.
ALLREDUCE_LATENCY_US: dict[str, float] = {
    "nvswitch": 8.0,
    # AMD Infinity Fabric (xGMI) mesh of OAM modules: RCCL's small-message latency taken
    # as a little above NCCL's on NVSwitch (assumption, not a measurement).
    "infinity-fabric": 12.0,
    "bridge": 12.0,
    "pcie-p2p": 25.0,
    "pcie-no-p2p": 60.0,
}
REFERENCE_LAYERS = 32.0
# Achieved all-reduce bus bandwidth (GB/s) between GPUs of one node, by interconnect
# class: NVSwitch (H100: 900 GB/s NVLink, NCCL reaches ~450), NVLink bridge pairs,
# PCIe 4.0 x16 with peer-to-peer (~20) and without it, through host memory (~10).
# Assumptions from NCCL's published bus bandwidths, not fits.
ALLREDUCE_BANDWIDTH_GBS: dict[str, float] = {
    "nvswitch": 450.0,
    # AMD MI300X/MI325X (and MI350X/MI355X) OAM: 7 Infinity Fabric links x 128 GB/s, AMD's
    # published 896 GB/s peer-to-peer aggregate per module (MI300X datasheet), 448 GB/s
    # each way. A ring over a full mesh needs several rings (RCCL channels) to use all
    # seven links; assumed achieved bus bandwidth 200 GB/s, under half the one-way
    # aggregate: a conservative assumption, 10x the PCIe class it was priced as before.
    "infinity-fabric": 200.0,
    "bridge": 100.0,
    "pcie-p2p": 20.0,
    "pcie-no-p2p": 10.0,
}

# PCIe cards under one CPU socket's root complex in a dual-socket 8-card server (4 + 4).
PCIE_GPUS_PER_SOCKET = 4

LLM_GROUP, VISION_GROUP, TRAINING_GROUP = "llm", "vision", "training"


@dataclass(frozen=True, slots=True)
class InferenceParams:
    """Fitted parameters of the inference classes."""

    # Log achieved-fraction offset by group ("llm", "vision") and architecture.
    arch_log: dict[str, dict[str, float]]
    matmul_efficiency: float
    # Seconds per decode step of a 32-layer model, by software stack.
    step_overhead_s: dict[str, float]
    vision_shares: dict[str, Shares]
    # Log offset of achieved bandwidth by memory class and stack ("hbm@vllm"; GDDR is the
    # reference).
    memory_log: dict[str, float] = field(default_factory=dict)
    # Exponent of the power-limited matrix clock of the vision classes
    # (module_power.card_power_headroom_log); 0 before calibrated-2026.12.8.
    vision_power_exponent: float = 0.0


def memory_class(gpu: GpuSpec) -> str:
    """hbm or gddr: stacked memory on an interposer or graphics DRAM."""
    return "hbm" if gpu.memory_type.upper().startswith("HBM") else "gddr"


def memory_key(memory: str, stack: str) -> str:
    """Key of a memory class's achieved-bandwidth offset on one software stack."""
    return f"{memory}@{stack}"


def stack_group(stack: str) -> str:
    """Key of a software stack's own architecture offsets (added to the LLM group's)."""
    return f"{LLM_GROUP}@{stack}"


def arch_factor(
    params: InferenceParams, group: str, gpu: GpuSpec, stack: str | None = None
) -> float:
    """exp(architecture offset): the group's, plus the stack's own where it has one
    (a stack's kernels suit some architectures better than others)."""
    offset = params.arch_log.get(group, {}).get(gpu.architecture, 0.0)
    if stack is not None:
        offset += params.arch_log.get(stack_group(stack), {}).get(gpu.architecture, 0.0)
    return math.exp(offset)


@dataclass(frozen=True, slots=True)
class _Achieved:
    """What one GPU achieves on one LLM: bytes/s, FLOP/s, and the per-step overhead (s)."""

    bandwidth: float
    matmul: float
    overhead: float
    weight_bytes: float


def _achieved(
    gpu: GpuSpec, workload: LlmWorkload, params: InferenceParams, stack: str
) -> _Achieved:
    eff = arch_factor(params, LLM_GROUP, gpu, stack)
    layers, _ = estimate_shape(workload.active_b)
    memory = math.exp(params.memory_log.get(memory_key(memory_class(gpu), stack), 0.0))
    return _Achieved(
        bandwidth=gpu.memory_bandwidth_gbs * 1e9 * BANDWIDTH_EFFICIENCY * eff * memory,
        matmul=compute_rate(gpu, workload.weights) * 1e12 * params.matmul_efficiency * eff,
        overhead=params.step_overhead_s[stack] * layers / REFERENCE_LAYERS,
        weight_bytes=workload.active_b * 1e9 * workload.bits / 8.0,
    )


def workload_shape(workload: LlmWorkload) -> LlmShape:
    """The model's shape: its row of llm_shapes, else estimated from its sizes (8 KV heads
    from 7B up unless the workload gives kv_heads; a mixture of experts by its active size)."""
    return shape_of(
        workload.params_b,
        model=workload.model,
        kv_heads=workload.kv_heads,
        active_params_b=workload.active_params_b,
    )


def kv_bytes_per_sequence(workload: LlmWorkload) -> float:
    """KV-cache bytes of one sequence at the workload's context: the memory sizing's own
    figure (memory.llm_memory), so speed and memory assume the same cache."""
    return workload_shape(workload).kv_bytes_per_token(KV_BYTES) * workload.context


def decode_step_s(
    gpu: GpuSpec,
    workload: LlmWorkload,
    params: InferenceParams,
    stack: str,
    tp: int = 1,
    link: str = "nvswitch",
) -> float:
    a = _achieved(gpu, workload, params, stack)
    kv = kv_bytes_per_sequence(workload) * workload.batch
    # Each generated token also carries its share of the requests' prompt prefill.
    flops = 2.0 * workload.active_b * 1e9 * workload.batch * (1.0 + workload.extra_compute)
    memory = (a.weight_bytes + kv) / (tp * a.bandwidth)
    # The per-step overhead scales with the model's own layer count (the table's, or the
    # estimate from the active size that _achieved uses).
    overhead = params.step_overhead_s[stack] * workload_shape(workload).layers / REFERENCE_LAYERS
    return memory + flops / (tp * a.matmul) + overhead + allreduce_s(workload, tp, link)


def allreduce_s(workload: LlmWorkload, tp: int, link: str) -> float:
    """Two all-reduces of the step's activations per layer (Megatron tensor parallelism):
    latency plus the ring's 2 (tp - 1) / tp of the bytes at the link's bus bandwidth."""
    if tp <= 1:
        return 0.0
    if link == "bridge" and tp > 2:
        link = "pcie-p2p"  # a bridge joins two cards; a wider group talks over PCIe
    if link == "pcie-p2p" and tp > PCIE_GPUS_PER_SOCKET:
        # Eight PCIe cards sit behind two CPU sockets: the ring crosses the inter-socket
        # link, where peer-to-peer does not reach, so it runs through host memory.
        link = "pcie-no-p2p"
    shape = workload_shape(workload)
    volume = workload.batch * shape.hidden * KV_BYTES * 2.0 * (tp - 1) / tp
    per_reduce = ALLREDUCE_LATENCY_US[link] * 1e-6 + volume / (ALLREDUCE_BANDWIDTH_GBS[link] * 1e9)
    return 2 * shape.layers * per_reduce


def decode_tokens_per_s(
    gpu: GpuSpec,
    workload: LlmWorkload,
    params: InferenceParams,
    stack: str,
    tp: int = 1,
    link: str = "nvswitch",
) -> float:
    """Generated tokens per second per GPU of a tensor-parallel group of `tp`, at the
    workload's batch (a benchmark row's measured concurrency: its requests' real lengths,
    not a nominal context, decide what its KV cache held)."""
    return workload.batch / decode_step_s(gpu, workload, params, stack, tp, link) / tp


def served_decode_tokens_per_s(
    gpu: GpuSpec,
    workload: LlmWorkload,
    params: InferenceParams,
    stack: str,
    tp: int = 1,
    link: str = "nvswitch",
) -> float:
    """A user's request: decode at the batch the group's memory holds beside the weights
    when every sequence reaches the stated context (effective_batch). The fit's rows are
    not capped this way: capping them at their nominal context moved the held-out
    serving median from 10.3 % to about 17 % (docs/model/classes.md, seventh round)."""
    served = workload.with_batch(effective_batch(gpu, workload, tp))
    return decode_tokens_per_s(gpu, served, params, stack, tp, link)


def prefill_tokens_per_s(
    gpu: GpuSpec, workload: LlmWorkload, params: InferenceParams, stack: str, tp: int = 1
) -> float:
    a = _achieved(gpu, workload, params, stack)
    tokens = workload.prompt_tokens
    flops = 2.0 * workload.active_b * 1e9 * tokens
    step = flops / (tp * a.matmul) + a.weight_bytes / (tp * a.bandwidth) + a.overhead
    return tokens / step / tp


def vision_precision_rate(gpu: GpuSpec, workload_class: str) -> float:
    """MLPerf submitters run CNNs in INT8 and SDXL in FP8 where the hardware has it."""
    if workload_class == CNN_INFERENCE:
        if gpu.has_tensor_cores and gpu.int8_tensor_tops:
            return gpu.int8_tensor_tops
        return half_rate(gpu)
    return fp8_rate(gpu) or half_rate(gpu)


def vision_throughput(
    gpu: GpuSpec, ref: GpuSpec, workload_class: str, params: InferenceParams
) -> float:
    """Throughput relative to the reference GPU (same class, same precision rule)."""
    shares = params.vision_shares[workload_class]
    tau = (
        shares.bandwidth * ref.memory_bandwidth_gbs / gpu.memory_bandwidth_gbs
        + shares.matmul
        * vision_precision_rate(ref, workload_class)
        / vision_precision_rate(gpu, workload_class)
        / power_clock(gpu, params.vision_power_exponent)
        + shares.vector * ref.fp32_tflops / gpu.fp32_tflops
    )
    ratio = arch_factor(params, VISION_GROUP, gpu) / arch_factor(params, VISION_GROUP, ref)
    return ratio / tau


def power_clock(gpu: GpuSpec, exponent: float) -> float:
    """Sustained share of the peak matrix clock of a power-short HBM part (<= 1): a CNN's
    or a diffusion model's convolutions and GEMMs draw the most power. Not in the LLM
    terms: held out it made llm-serving worse (docs/model/classes.md, eighth round)."""
    return math.exp(exponent * card_power_headroom_log(gpu))


# Tensor parallelism splits attention heads evenly: groups of 1, 2, 4 or 8 GPUs.
TP_SIZES = (1, 2, 4, 8)
# Share of a card's memory usable for weights and KV cache (runtime, allocator).
MEMORY_USABLE = 0.92


def smallest_split(holds: Callable[[int], bool], available: int, per_node: int = 8) -> int | None:
    """Fewest GPUs of TP_SIZES, within one node and `available`, for which `holds(tp)`;
    None if no such split exists."""
    for tp in TP_SIZES:
        if tp > min(available, per_node):
            break
        if holds(tp):
            return tp
    return None


def tensor_parallel_size(
    gpu: GpuSpec, need_gb: float, available: int, per_node: int = 8
) -> int | None:
    """Fewest GPUs whose usable memory holds `need_gb` (see `smallest_split`)."""
    return smallest_split(
        lambda tp: need_gb <= gpu.memory_gb * tp * MEMORY_USABLE, available, per_node
    )


def filled_batch(gpu: GpuSpec, workload: LlmWorkload, tp: int) -> int:
    """Sequences whose KV cache fills the usable memory of a `tp`-GPU group beside the
    weights (at least the workload's own batch): a throughput run keeps as many requests
    in flight as the cache holds (TensorRT-LLM gives the KV cache the memory the weights
    leave free and its in-flight batching fills it)."""
    free_gb = gpu.memory_gb * tp * MEMORY_USABLE - workload.weight_gb
    fitting = int(free_gb * 1e9 / kv_bytes_per_sequence(workload))
    return max(workload.batch, fitting)


def llm_need_gb(workload: LlmWorkload) -> float:
    return workload.weight_gb + kv_bytes_per_sequence(workload) * workload.batch / 1e9


def sequences_held(gpu: GpuSpec, workload: LlmWorkload, tp: int = 1) -> int:
    """Sequences whose KV cache fits beside the weights on `tp` GPUs by the memory sizing
    (memory.llm_memory and max_sequences, as /recommend filters); 0: the weights do not."""
    one = llm_memory(
        workload.params_b,
        workload.weights,
        context=workload.context,
        batch=1,
        shape=workload_shape(workload),
    )
    return max_sequences(one, gpu.memory_gb, tp)


def effective_batch(gpu: GpuSpec, workload: LlmWorkload, tp: int = 1) -> int:
    """The batch a group of `tp` GPUs serves: the requested one, or the sequences the
    memory left after the weights holds when fewer. Left as asked when the weights alone do
    not fit: that split cannot run at all, which the prediction's caveat says."""
    if workload.batch <= 1:
        return workload.batch
    held = sequences_held(gpu, workload, tp)
    return min(workload.batch, held) if held else workload.batch


@dataclass(frozen=True, slots=True)
class ServingBatch:
    """The batch a tensor-parallel group of one GPU model serves: the requested batch if
    its split holds it, else what the split's memory leaves after the weights."""

    requested: int
    batch: int
    tp: int
    # Sequences the group's memory holds beside the weights (0: the weights do not fit).
    holds: int
    kv_gb_per_sequence: float
    shape: LlmShape

    @property
    def note(self) -> str:
        """The effective batch in words, for the prediction's explanation."""
        cache = f"{self.kv_gb_per_sequence:.2f} GB KV cache per sequence"
        if self.holds == 0:
            return f"; effective batch {self.batch}: the weights alone do not fit ({cache})"
        if self.batch == self.requested:
            return f"; effective batch {self.batch} (all requested fit; {cache})"
        return (
            f"; effective batch {self.batch} of {self.requested} requested: the memory left "
            f"after the weights on {self.tp} GPU(s) holds {self.holds} sequences ({cache})"
        )


def serving_batch(
    gpu: GpuSpec, workload: LlmWorkload, per_node: int = 1, tp: int | None = None
) -> ServingBatch:
    """The effective batch of `workload` on a group of `tp` GPUs; without `tp`, the group
    the memory sizing picks within a machine of `per_node`: the smallest split of TP_SIZES
    that holds the whole batch, else the widest (as ClassModel splits an LLM)."""
    shape = workload_shape(workload)
    if tp is None:
        whole = llm_memory(
            workload.params_b,
            workload.weights,
            context=workload.context,
            batch=workload.batch,
            shape=shape,
        )
        tp = smallest_split(lambda n: fits(whole, gpu.memory_gb, n), per_node, per_node)
        if tp is None:
            tp = max(t for t in TP_SIZES if t <= max(1, per_node))
    holds = sequences_held(gpu, workload, tp)
    kv_gb = kv_bytes_per_sequence(workload) / 1e9
    return ServingBatch(workload.batch, effective_batch(gpu, workload, tp), tp, holds, kv_gb, shape)
