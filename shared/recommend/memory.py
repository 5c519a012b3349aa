"""Sizing GPU memory from an LLM's parameter count (shared/perfmodel/memory.py)."""

from __future__ import annotations

from shared.perfmodel.memory import llm_memory, split_across
from shared.recommend.schemas import LlmMode, MemoryEstimateOut, WeightPrecision


def default_weights(precision: str) -> WeightPrecision:
    """8-bit compute implies 8-bit weights; everything else is stored in 16 bits."""
    if precision == "fp8":
        return "fp8"
    if precision == "int8":
        return "int8"
    return "bf16" if precision == "bf16" else "fp16"


def llm_memory_estimate(
    params_b: float, weights: WeightPrecision, mode: LlmMode, context: int, batch: int, count: int
) -> MemoryEstimateOut:
    whole = llm_memory(params_b, weights, mode, context=context, batch=batch)
    per_gpu = split_across(whole, count)
    label = "KV cache" if mode == "inference" else "activations"
    split = f" split over {count} GPUs" if count > 1 else ""
    return MemoryEstimateOut(
        params_b=params_b,
        mode=mode,
        weights=weights,
        context=context,
        batch=batch,
        per_gpu_gb=round(per_gpu.total_gb, 2),
        total_gb=round(whole.total_gb, 2),
        breakdown_gb={
            "weights": round(whole.weights_gb, 2),
            "gradients": round(whole.gradients_gb, 2),
            "optimizer": round(whole.optimizer_gb, 2),
            label: round(whole.activations_gb, 2),
            "overhead": round(whole.overhead_gb, 2),
        },
        formula=(
            f"{params_b:g}B {weights} {mode}, context {context} x batch {batch}: "
            f"{whole.total_gb:.1f} GB{split} = {per_gpu.total_gb:.1f} GB per GPU"
        ),
    )


# Card capacities are rounded marketing figures (an "80 GB" card), and the estimate of a
# model's need rounds too: 1 % keeps an 80 GB card for a need of 80.04 GB.
MEMORY_FIT_TOLERANCE = 0.01


def fits_memory(card_gb: float, need_gb: float) -> bool:
    return need_gb <= card_gb * (1 + MEMORY_FIT_TOLERANCE)
