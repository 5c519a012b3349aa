"""A ranking request: what /recommend (and the CLI) ask the ranking for."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from shared.builds.schemas import Condition, Deployment, Network, Precision, Pricing, Task

Sort = Literal["perf_per_dollar", "perf_per_dollar_expected", "performance"]
SORT_DESCRIPTIONS: dict[str, str] = {
    "perf_per_dollar": "perf per dollar at the low end of its 80 % interval (the worst the "
    "performance interval and the price band allow), highest first",
    "perf_per_dollar_expected": "perf per dollar at its central value, highest first",
    "performance": "build performance at its central value, highest first",
}
LlmMode = Literal["inference", "full-finetune", "lora"]
WeightPrecision = Literal["fp16", "bf16", "int8", "int4", "fp8", "fp4"]


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
