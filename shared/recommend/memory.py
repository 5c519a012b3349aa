"""Sizing GPU memory from an LLM's parameter count or family (shared/perfmodel/memory.py)."""

from __future__ import annotations

from typing import cast

from shared.kit.errors import InputError
from shared.perfmodel.llm_shapes import LlmShape, ShapeInputError, resolve
from shared.perfmodel.memory import INFERENCE, llm_memory, split_across
from shared.perfmodel.workloads import LlmWorkload, weights_for
from shared.recommend.schemas import LlmMode, MemoryEstimateOut, WeightPrecision


def default_weights(precision: str) -> WeightPrecision:
    """8-bit compute implies 8-bit weights; everything else is stored in 16 bits."""
    return cast(WeightPrecision, weights_for(precision))


def request_shape(
    params_b: float | None,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
) -> LlmShape:
    """The shape a request describes; a contradiction or unknown model is a 422 naming
    its field (an unknown model lists the known ones)."""
    try:
        return resolve(params_b, model, kv_heads, active_params_b)
    except ShapeInputError as exc:
        raise InputError(exc.field, exc.message, exc.valid or None) from exc


def llm_memory_estimate(
    params_b: float | None,
    weights: WeightPrecision,
    mode: LlmMode,
    context: int,
    batch: int,
    count: int,
    *,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
) -> MemoryEstimateOut:
    shape = request_shape(params_b, model, kv_heads, active_params_b)
    size = params_b if params_b is not None else shape.params_b
    whole = llm_memory(size, weights, mode, context=context, batch=batch, shape=shape)
    per_gpu = split_across(whole, count)
    one = llm_memory(size, weights, mode, context=context, batch=1, shape=shape)
    inference = whole.mode == INFERENCE
    label = "KV cache" if inference else "activations"
    split = f" split over {count} GPUs" if count > 1 else ""
    kv_gb = shape.kv_bytes_per_token() * context / 1e9
    if inference:
        assumed = (
            f"; KV cache {shape.layers} layers x {shape.attention}: {kv_gb:.2f} GB per "
            f"sequence; a card holding fewer than {batch} sequences serves its effective "
            "batch (each result's explanation)"
        )
    else:
        done = "with" if whole.checkpointing else "without"
        assumed = f"; {done} gradient checkpointing; {shape.layers} layers x {shape.hidden} hidden"
    return MemoryEstimateOut(
        params_b=size,
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
            f"{size:g}B {weights} {mode}, context {context} x batch {batch}: "
            f"{whole.total_gb:.1f} GB{split} = {per_gpu.total_gb:.1f} GB per GPU{assumed}"
        ),
        model=shape.name or None,
        active_params_b=shape.active_params_b if shape.active_params_b < size else None,
        kv_heads=shape.kv_heads,
        layers=shape.layers,
        head_dim=shape.head_dim,
        shape_basis=shape.source,
        kv_gb_per_sequence=round(kv_gb, 4),
        checkpointing=whole.checkpointing,
        min_per_gpu_gb=round(
            split_across(one, count).total_gb if inference else per_gpu.total_gb, 2
        ),
    )


def resized(estimate: MemoryEstimateOut, weights: WeightPrecision, count: int) -> MemoryEstimateOut:
    """The same LLM with other weights or GPUs (the empty answer's suggestions)."""
    return llm_memory_estimate(
        estimate.params_b,
        weights,
        estimate.mode,
        estimate.context,
        estimate.batch,
        count,
        model=estimate.model,
        kv_heads=None if estimate.model else estimate.kv_heads,
        active_params_b=estimate.active_params_b,
    )


def needed_gb(estimate: MemoryEstimateOut) -> float:
    """Per-GPU memory a card needs to be ranked: one sequence beside the weights for
    inference (a card holding fewer than `batch` is timed at the batch it holds), the
    whole estimate for training."""
    return estimate.min_per_gpu_gb if estimate.mode == INFERENCE else estimate.per_gpu_gb


def estimate_llm(estimate: MemoryEstimateOut) -> LlmWorkload:
    """The LLM workload an inference estimate describes (its shape included)."""
    return LlmWorkload(
        estimate.params_b,
        weights=estimate.weights,
        batch=estimate.batch,
        context=estimate.context,
        active_params_b=estimate.active_params_b,
        model=estimate.model,
        kv_heads=None if estimate.model else estimate.kv_heads,
    )


# Card capacities are rounded marketing figures (an "80 GB" card), and the estimate of a
# model's need rounds too: 1 % keeps an 80 GB card for a need of 80.04 GB.
MEMORY_FIT_TOLERANCE = 0.01


def fits_memory(card_gb: float, need_gb: float) -> bool:
    return need_gb <= card_gb * (1 + MEMORY_FIT_TOLERANCE)
