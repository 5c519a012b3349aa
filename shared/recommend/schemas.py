"""A ranking request: what /recommend (and the CLI) ask the ranking for."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.builds.schemas import Condition, Deployment, Network, Precision, Pricing, Task

Sort = Literal["perf_per_dollar", "perf_per_dollar_expected", "performance", "cost_per_unit"]
SORT_DESCRIPTIONS: dict[str, str] = {
    "cost_per_unit": "dollars per unit of work (per 1M tokens, 1k images or sequences) at the "
    "high end of its 80 % interval (the worst the throughput interval and the price band "
    "allow), lowest first",
    "perf_per_dollar": "perf per dollar at the low end of its 80 % interval (the worst the "
    "performance interval and the price band allow), highest first",
    "perf_per_dollar_expected": "perf per dollar at its central value, highest first",
    "performance": "build performance at its central value, highest first",
}
# Tasks whose default order is dollars per unit of work (tokens are what they buy).
COST_PER_UNIT_TASKS = ("llm-inference", "llm-training")


def default_sort(task: str) -> Sort:
    return "cost_per_unit" if task in COST_PER_UNIT_TASKS else "perf_per_dollar"


# "full" is an alias of "full-finetune"; qlora fine-tunes adapters on a 4-bit base.
LlmMode = Literal["inference", "full-finetune", "full", "lora", "qlora"]
WeightPrecision = Literal["fp16", "bf16", "int8", "int4", "fp8", "fp4"]
Phase = Literal["training", "inference"]


class MemoryEstimateOut(BaseModel):
    params_b: float
    mode: LlmMode
    weights: WeightPrecision
    context: int
    batch: int
    per_gpu_gb: float
    total_gb: float
    breakdown_gb: dict[str, float]
    formula: str
    model: str | None = Field(default=None, description="the model family of the shape table")
    active_params_b: float | None = Field(
        default=None, description="parameters per token (mixture of experts); None: all"
    )
    kv_heads: int = Field(default=0, description="heads that keep K and V (the KV cache)")
    layers: int = 0
    head_dim: int = 0
    shape_basis: str = Field(default="", description="where the shape comes from")
    kv_gb_per_sequence: float = Field(
        default=0.0, description="KV cache of one sequence at this context (GB)"
    )
    checkpointing: bool | None = Field(
        default=None, description="training: gradient checkpointing assumed (the default)"
    )
    min_per_gpu_gb: float = Field(
        default=0.0,
        description="per GPU for one sequence: inference ranks cards that hold it and times "
        "each at its effective batch (the sequences its memory holds, at most batch)",
    )


class RecommendQuery(BaseModel):
    task: Task
    memory_gb: float
    memory_basis: str
    memory_estimate: MemoryEstimateOut | None = None
    precision: Precision
    condition: Condition
    pricing: Pricing = "on-demand"
    budget_usd: float | None
    count: int
    datacenter: bool
    limit: int
    sort: Sort
    deployment: Deployment = "auto"
    network: Network = "infiniband"
    phase: Phase | None = None
    software: str | None = None
    prompt_tokens: int | None = None
    min_tokens_per_s_per_user: float | None = None
    max_ttft_ms: float | None = None
    utilization: float | None = None
    years: float | None = None
