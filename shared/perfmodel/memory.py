"""GPU memory needed to run or fine-tune an LLM, and the split across GPUs.

Formula (bytes; P = parameters, b = bytes per weight at the precision):
- weights: P * b, with b = 2 (fp16/bf16), 1 (int8/fp8), 0.5 (int4/fp4).
- inference: + KV cache = 2 (K and V) * layers * hidden * kv_fraction * context * batch
  * 2 bytes (fp16 cache).
- full-finetune (mixed precision Adam, ZeRO paper accounting): weights 2 + gradients 2
  + fp32 master weights 4 + Adam moments 8 = 16 bytes per parameter, independent of the
  requested precision; + activations.
- lora: frozen weights at the precision (int4/int8 = QLoRA-style) + adapters
  (LORA_FRACTION of P) at 16 bytes each + activations.
- activations (training): layers * context * batch * hidden * 34 bytes (Korthikanti et
  al. 2022, fp16, attention kept linear in context by FlashAttention, no recomputation).
- overhead: 1 GB per GPU (CUDA context, kernels) + 5 % allocator fragmentation.
When the architecture is not given it is estimated from P with the dense-transformer
rule P ~ 12 * layers * hidden^2 and layers ~ hidden / 128 (Llama 7B: 4096 x 32).
"""

from __future__ import annotations

from dataclasses import dataclass

GB = 1e9
BYTES_PER_WEIGHT: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp8": 1.0,
    "fp4": 0.5,
}
MODES = ("inference", "full-finetune", "lora")
FULL_FINETUNE_BYTES = 16.0
LORA_FRACTION = 0.005
KV_BYTES = 2.0
ACTIVATION_BYTES_PER_HIDDEN = 34.0
CONTEXT_OVERHEAD_GB = 1.0
FRAGMENTATION = 0.05
HIDDEN_PER_LAYER = 128.0


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float  # activations (training) or KV cache (inference)
    overhead_gb: float

    @property
    def total_gb(self) -> float:
        return (
            self.weights_gb
            + self.gradients_gb
            + self.optimizer_gb
            + self.activations_gb
            + self.overhead_gb
        )


def estimate_shape(params_b: float) -> tuple[int, int]:
    """(layers, hidden) of a dense transformer with `params_b` billion parameters."""
    hidden = (params_b * 1e9 * HIDDEN_PER_LAYER / 12.0) ** (1.0 / 3.0)
    return max(1, round(hidden / HIDDEN_PER_LAYER)), round(hidden)


def _check(params_b: float, precision: str, mode: str) -> None:
    if params_b <= 0:
        raise ValueError("params_b must be positive")
    if precision not in BYTES_PER_WEIGHT:
        raise ValueError(f"precision must be one of {', '.join(BYTES_PER_WEIGHT)}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")


def llm_memory(
    params_b: float,
    precision: str = "fp16",
    mode: str = "inference",
    *,
    context: int = 4096,
    batch: int = 1,
    layers: int | None = None,
    hidden: int | None = None,
    kv_fraction: float = 1.0,
) -> MemoryEstimate:
    """Memory on one GPU holding the whole model. kv_fraction < 1 for grouped-query attention."""
    _check(params_b, precision, mode)
    est_layers, est_hidden = estimate_shape(params_b)
    layers, hidden = layers or est_layers, hidden or est_hidden
    params = params_b * 1e9
    tokens = context * batch
    if mode == "inference":
        weights, grads, optim = params * BYTES_PER_WEIGHT[precision], 0.0, 0.0
        act = 2 * layers * hidden * kv_fraction * tokens * KV_BYTES
    elif mode == "full-finetune":
        weights, grads, optim = params * 2.0, params * 2.0, params * 12.0
        act = layers * tokens * hidden * ACTIVATION_BYTES_PER_HIDDEN
    else:
        adapters = params * LORA_FRACTION
        weights = params * BYTES_PER_WEIGHT[precision] + adapters * 2.0
        grads, optim = adapters * 2.0, adapters * 12.0
        act = layers * tokens * hidden * ACTIVATION_BYTES_PER_HIDDEN
    subtotal = weights + grads + optim + act
    overhead = CONTEXT_OVERHEAD_GB * GB + FRAGMENTATION * subtotal
    return MemoryEstimate(weights / GB, grads / GB, optim / GB, act / GB, overhead / GB)


def split_across(estimate: MemoryEstimate, count: int) -> MemoryEstimate:
    """Per-GPU memory with tensor parallelism over `count` GPUs: everything but the
    per-GPU CUDA context divides evenly (an idealisation: replicated norms are ignored)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    shared = estimate.overhead_gb - CONTEXT_OVERHEAD_GB
    return MemoryEstimate(
        estimate.weights_gb / count,
        estimate.gradients_gb / count,
        estimate.optimizer_gb / count,
        estimate.activations_gb / count,
        CONTEXT_OVERHEAD_GB + shared / count,
    )


def fits(estimate: MemoryEstimate, memory_gb: float, count: int = 1) -> bool:
    return split_across(estimate, count).total_gb <= memory_gb
