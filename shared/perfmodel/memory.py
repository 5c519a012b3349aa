"""GPU memory needed to run or fine-tune an LLM, and the split across GPUs.

Formula (bytes; P = parameters, b = bytes per weight at the precision; the shape, i.e.
layers L, hidden h, KV heads and head_dim, from `llm_shapes.py`: a table of common
models, else estimated from P with 8 KV heads from 7B up):
- weights: P * b, with b = 2 (fp16/bf16), 1 (int8/fp8), 0.5 (int4/fp4). A mixture of
  experts keeps every expert in memory: P is the total, not the active, count.
- inference: + KV cache = 2 (K and V) * L * kv_heads * head_dim * context * batch * 2 bytes
  (fp16 cache; MLA models cache their compressed latent instead). The decode speed reads
  the same bytes per sequence (`inference.kv_bytes_per_sequence`).
- full (alias full-finetune; mixed-precision Adam, ZeRO paper accounting): weights 2 +
  gradients 2 + fp32 master weights 4 + Adam moments 8 = 16 bytes per parameter,
  independent of the requested precision; + activations.
- lora: frozen weights at the precision (int4/int8 = QLoRA-style) + adapters
  (LORA_FRACTION of P) at 16 bytes each (weights, gradients, fp32 master and Adam) +
  activations.
- qlora: frozen weights in 4-bit NF4 with double-quantised constants (4.127 bits per
  weight, Dettmers et al. 2023, whatever the precision asked: it is the compute dtype)
  + adapters as lora, their Adam states paged (bitsandbytes' paged optimizer moves them
  to CPU memory only under pressure, so they are counted on the GPU) + activations.
- activations (training), with gradient checkpointing as in practice (the default): each
  layer's 16-bit input kept, L * tokens * h * 2, plus one layer's activations while it is
  recomputed, tokens * h * 34 (Korthikanti et al. 2022, fp16, attention kept linear in
  context by FlashAttention). Without checkpointing every layer's: L * tokens * h * 34.
  Not counted: the output logits (a plain fp32 loss over a 128k vocabulary adds ~2 GB
  per 4,096 tokens; chunked or fused cross-entropy keeps them small).
- overhead: 1 GB per GPU (CUDA context, kernels) + 5 % allocator fragmentation.
Anchors (tests): Llama-3 70B at fp16 serving 32 x 4,096 tokens ~194 GB; an 8B LoRA at
fp16 ~20 GB (fits 24 GB); QLoRA of Llama-2 70B over 2 x 24 GB (Answer.AI's fsdp_qlora
runs); a full fine-tune of 8B ~135 GB.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from shared.perfmodel.llm_shapes import (
    HIDDEN_PER_LAYER,
    LlmShape,
    estimate_shape,
    shape_of,
)

__all__ = ["HIDDEN_PER_LAYER", "estimate_shape"]

GB = 1e9
BYTES_PER_WEIGHT: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp8": 1.0,
    "fp4": 0.5,
}
FULL, FULL_FINETUNE, LORA, QLORA, INFERENCE = "full", "full-finetune", "lora", "qlora", "inference"
MODES = (INFERENCE, FULL_FINETUNE, FULL, LORA, QLORA)
# "full" is the name for the mode the API has always called "full-finetune".
MODE_ALIASES = {FULL: FULL_FINETUNE}
TRAINING_MODES = (FULL_FINETUNE, LORA, QLORA)
FULL_FINETUNE_BYTES = 16.0
LORA_FRACTION = 0.005
# Adapter bytes per parameter: 16-bit weights and gradients, fp32 master and Adam moments.
ADAPTER_BYTES = 16.0
# NF4 with double quantisation: 4 bits + 0.127 bits of block constants per weight
# (QLoRA paper, Dettmers et al. 2023, section 3).
NF4_BYTES = (4.0 + 0.127) / 8.0
KV_BYTES = 2.0
ACTIVATION_BYTES_PER_HIDDEN = 34.0
# A checkpoint is one layer's 16-bit input per token.
CHECKPOINT_BYTES_PER_HIDDEN = 2.0
CONTEXT_OVERHEAD_GB = 1.0
FRAGMENTATION = 0.05


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float  # activations (training) or KV cache (inference)
    overhead_gb: float
    # What the numbers assumed: the model's shape, KV cache per token, checkpointing.
    shape: LlmShape | None = None
    kv_bytes_per_token: float = 0.0
    checkpointing: bool | None = None
    mode: str = INFERENCE

    @property
    def total_gb(self) -> float:
        return (
            self.weights_gb
            + self.gradients_gb
            + self.optimizer_gb
            + self.activations_gb
            + self.overhead_gb
        )


def canonical_mode(mode: str) -> str:
    return MODE_ALIASES.get(mode, mode)


def _check(params_b: float, precision: str, mode: str) -> None:
    if params_b <= 0:
        raise ValueError("params_b must be positive")
    if precision not in BYTES_PER_WEIGHT:
        raise ValueError(f"precision must be one of {', '.join(BYTES_PER_WEIGHT)}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")


def _resolved_shape(
    params_b: float,
    shape: LlmShape | None,
    model: str | None,
    kv_heads: int | None,
    active_params_b: float | None,
    layers: int | None,
    hidden: int | None,
) -> LlmShape:
    found = shape or shape_of(
        params_b, model=model, kv_heads=kv_heads, active_params_b=active_params_b
    )
    if layers or hidden:
        # Explicit layers/hidden (the original signature) override the table or estimate.
        width = hidden or found.hidden
        heads = max(1, round(width / found.head_dim))
        found = replace(
            found,
            layers=layers or found.layers,
            hidden=width,
            heads=heads,
            kv_heads=min(found.kv_heads, heads),
        )
    return found


def llm_memory(
    params_b: float,
    precision: str = "fp16",
    mode: str = "inference",
    *,
    context: int = 4096,
    batch: int = 1,
    layers: int | None = None,
    hidden: int | None = None,
    kv_fraction: float | None = None,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
    shape: LlmShape | None = None,
    checkpointing: bool = True,
) -> MemoryEstimate:
    """Memory on one GPU holding the whole model (the formula: module docstring).

    `model` names a row of `llm_shapes` (else the shape is estimated from `params_b`, with
    `kv_heads` and `active_params_b` if given); `kv_fraction` (share of hidden kept for K
    and V) is the original interface and overrides the shape's KV heads."""
    _check(params_b, precision, mode)
    mode = canonical_mode(mode)
    found = _resolved_shape(params_b, shape, model, kv_heads, active_params_b, layers, hidden)
    params = params_b * 1e9
    tokens = context * batch
    if kv_fraction is not None:
        per_token = 2 * found.layers * found.hidden * kv_fraction * KV_BYTES
    else:
        per_token = found.kv_bytes_per_token(KV_BYTES)
    used_checkpointing: bool | None = None
    if mode == INFERENCE:
        weights, grads, optim = params * BYTES_PER_WEIGHT[precision], 0.0, 0.0
        act = per_token * tokens
    else:
        used_checkpointing = checkpointing
        act = _activations(found, tokens, checkpointing)
        if mode == FULL_FINETUNE:
            weights, grads, optim = params * 2.0, params * 2.0, params * 12.0
        else:
            adapters = params * LORA_FRACTION
            frozen = NF4_BYTES if mode == QLORA else BYTES_PER_WEIGHT[precision]
            weights = params * frozen + adapters * 2.0
            grads, optim = adapters * 2.0, adapters * (ADAPTER_BYTES - 4.0)
    subtotal = weights + grads + optim + act
    overhead = CONTEXT_OVERHEAD_GB * GB + FRAGMENTATION * subtotal
    return MemoryEstimate(
        weights / GB,
        grads / GB,
        optim / GB,
        act / GB,
        overhead / GB,
        shape=found,
        kv_bytes_per_token=per_token,
        checkpointing=used_checkpointing,
        mode=mode,
    )


def _activations(shape: LlmShape, tokens: int, checkpointing: bool) -> float:
    full_layer = tokens * shape.hidden * ACTIVATION_BYTES_PER_HIDDEN
    if not checkpointing:
        return shape.layers * full_layer
    return shape.layers * tokens * shape.hidden * CHECKPOINT_BYTES_PER_HIDDEN + full_layer


def split_across(estimate: MemoryEstimate, count: int) -> MemoryEstimate:
    """Per-GPU memory with tensor parallelism (or FSDP over a global batch) over `count`
    GPUs: everything but the per-GPU CUDA context divides evenly (an idealisation:
    replicated norms and FSDP's gathered layer are ignored)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    shared = estimate.overhead_gb - CONTEXT_OVERHEAD_GB
    return replace(
        estimate,
        weights_gb=estimate.weights_gb / count,
        gradients_gb=estimate.gradients_gb / count,
        optimizer_gb=estimate.optimizer_gb / count,
        activations_gb=estimate.activations_gb / count,
        overhead_gb=CONTEXT_OVERHEAD_GB + shared / count,
    )


def fits(estimate: MemoryEstimate, memory_gb: float, count: int = 1) -> bool:
    return split_across(estimate, count).total_gb <= memory_gb


def max_sequences(one: MemoryEstimate, memory_gb: float, count: int = 1) -> int:
    """Sequences whose KV cache fits beside the weights on `count` GPUs of `memory_gb`,
    from the inference estimate of one sequence (0: the weights alone do not fit)."""
    if one.activations_gb <= 0:
        raise ValueError("an inference estimate with a KV cache is needed")
    per_gpu_room = memory_gb - CONTEXT_OVERHEAD_GB
    room = per_gpu_room * count / (1.0 + FRAGMENTATION) - one.weights_gb
    # The nudge keeps an exact fit from flooring one below (floating point).
    return max(0, math.floor(room / one.activations_gb + 1e-9))
