"""The quote requests: POST /quotes/cluster's and /quotes/compare's bodies, the CLI's
options and what the quote code reads, each field with its default, bounds and
description once. Unknown fields are refused (a typo must not be quoted silently)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from shared.builds import assumptions as d
from shared.builds.schemas import (
    MAX_GPUS,
    Condition,
    Deployment,
    MarketCondition,
    Network,
    Precision,
    Pricing,
    Task,
)
from shared.pricing.limits import MAX_USD

MAX_CANDIDATES = 10
Acquisition = Literal["buy", "rent"]
REQUEST = ConfigDict(extra="forbid", frozen=True)


class GpuCount(BaseModel):
    model_config = REQUEST

    gpu: str = Field(max_length=128)
    count: int = Field(ge=1, le=MAX_GPUS)


# Above any GPU's price (the ceiling of posted prices); a quote's total is stored as
# NUMERIC(12, 2), which an unbounded price once overflowed on PostgreSQL (a 500).
MAX_GPU_PRICE_USD = MAX_USD
MAX_BUDGET_USD = Decimal("1000000000")


class ClusterRequest(BaseModel):
    """Give `count`, or a target: `target_relative_throughput` (x one RTX 3090) or
    `memory_gb` (total); with both targets the larger count wins."""

    model_config = REQUEST

    gpu: str = Field(max_length=128, description="catalog id, name or known alias, exactly")
    count: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    target_relative_throughput: float | None = Field(default=None, gt=0, le=10_000)
    memory_gb: float | None = Field(default=None, gt=0, le=100_000, description="total GPU GB")
    task: Task = "cv"
    precision: Precision = "fp16"
    # "auto": the same layout rule as /recommend, /tco and /model/predict (see `layout`).
    deployment: Deployment = "auto"
    budget_usd: Decimal | None = Field(default=None, gt=0, le=MAX_BUDGET_USD)
    allow_geforce: bool = Field(default=False, description="GeForce licence exemption held")
    power_limit_w: float | None = Field(default=None, gt=0, le=2000)
    network: Network = "infiniband"
    condition: MarketCondition = "any"
    additional_gpus: list[GpuCount] = Field(default_factory=list, max_length=8)
    gpu_price_usd: Decimal | None = Field(
        default=None, gt=0, le=MAX_GPU_PRICE_USD, description="override per GPU"
    )
    utilization: float | None = Field(default=None, ge=d.MIN_UTILIZATION, le=1)
    electricity_usd_per_kwh: Decimal | None = Field(default=None, ge=0, le=10)
    pue: float | None = Field(default=None, ge=1, le=3)

    @field_serializer("additional_gpus", when_used="json")
    def _pairs(self, gpus: list[GpuCount]) -> list[tuple[str, int]]:
        # Stored quotes (and their `request` in GET /quotes/{id}) have always held
        # [gpu, count] pairs; identical requests are found by this text.
        return [(g.gpu, g.count) for g in gpus]


class Candidate(BaseModel):
    model_config = REQUEST

    gpu: str = Field(max_length=128)
    count: int = Field(default=1, ge=1, le=MAX_GPUS)
    acquisition: Acquisition = "buy"
    label: str | None = Field(default=None, max_length=128)
    # "cloud" is accepted for a rented candidate, which has no market condition.
    condition: Condition = "any"
    # "auto": the same layout rule as /recommend, /tco and /model/predict (see `layout`).
    deployment: Deployment = "auto"
    pricing: Pricing = "on-demand"
    allow_geforce: bool = False
    gpu_price_usd: Decimal | None = Field(default=None, gt=0, le=MAX_GPU_PRICE_USD)
    cloud_usd_per_hour: Decimal | None = Field(default=None, ge=0, le=1000)
    rent_hours: float | None = Field(default=None, ge=d.MIN_RENT_HOURS, le=24 * 366 * 20)


class CompareRequest(BaseModel):
    model_config = REQUEST

    candidates: list[Candidate] = Field(min_length=1, max_length=MAX_CANDIDATES)
    task: Task = "cv"
    precision: Precision = "fp16"
    years: float = Field(default=1.0, ge=d.MIN_YEARS, le=20)
    utilization: float = Field(default=d.UTILIZATION, ge=d.MIN_UTILIZATION, le=1)
    electricity_usd_per_kwh: Decimal = Field(default=d.ELECTRICITY_USD_PER_KWH, ge=0, le=10)
