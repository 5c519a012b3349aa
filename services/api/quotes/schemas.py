"""Request and response bodies of the quote endpoints."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.api.builds.schemas import Deployment, Network
from services.api.recommend.schemas import Condition, Precision, Task

Acquisition = Literal["buy", "rent"]
Pricing = Literal["on-demand", "spot"]
ExportFormat = Literal["json", "csv"]


class GpuCount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(max_length=128)
    count: int = Field(ge=1, le=512)


class ClusterIn(BaseModel):
    """Give `count`, or a target: `target_relative_throughput` (x one RTX 3090) or
    `memory_gb` (total); with both targets the larger count wins."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(max_length=128, description="catalog id or name")
    count: int | None = Field(default=None, ge=1, le=512)
    target_relative_throughput: float | None = Field(default=None, gt=0, le=10_000)
    memory_gb: float | None = Field(default=None, gt=0, le=100_000, description="total GPU GB")
    task: Task = "cv"
    precision: Precision = "fp16"
    # "auto": the same layout rule as /recommend, /tco and /model/predict (see `layout`).
    deployment: Deployment = "auto"
    budget_usd: Decimal | None = Field(default=None, gt=0)
    allow_geforce: bool = Field(default=False, description="GeForce licence exemption held")
    power_limit_w: float | None = Field(default=None, gt=0, le=2000)
    network: Network = "infiniband"
    condition: Condition = "any"
    additional_gpus: list[GpuCount] = Field(default_factory=list, max_length=8)
    gpu_price_usd: Decimal | None = Field(default=None, gt=0, description="override per GPU")
    utilization: float | None = Field(default=None, gt=0, le=1)
    electricity_usd_per_kwh: Decimal | None = Field(default=None, ge=0, le=10)
    pue: float | None = Field(default=None, ge=1, le=3)


class CandidateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(max_length=128)
    count: int = Field(default=1, ge=1, le=512)
    acquisition: Acquisition = "buy"
    label: str | None = Field(default=None, max_length=128)
    condition: Condition = "any"
    # "auto": the same layout rule as /recommend, /tco and /model/predict (see `layout`).
    deployment: Deployment = "auto"
    pricing: Pricing = "on-demand"
    allow_geforce: bool = False
    gpu_price_usd: Decimal | None = Field(default=None, gt=0)
    cloud_usd_per_hour: Decimal | None = Field(default=None, ge=0, le=1000)
    rent_hours: float | None = Field(default=None, gt=0, le=24 * 366 * 20)


class CompareIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[CandidateIn] = Field(min_length=1, max_length=10)
    task: Task = "cv"
    precision: Precision = "fp16"
    years: float = Field(default=1.0, gt=0, le=20)
    utilization: float = Field(default=0.15, gt=0, le=1)
    electricity_usd_per_kwh: Decimal = Field(default=Decimal("0.12"), ge=0, le=10)


class QuoteOut(BaseModel):
    id: str
    kind: str
    standard_key: str | None
    gpu_ids: list[str]
    total_usd: Decimal
    model_version: str
    prices_as_of: datetime | None
    created_at: datetime
    updated_at: datetime
    request: dict[str, Any]
    result: dict[str, Any]


class QuoteList(BaseModel):
    items: list[QuoteOut]
    limit: int
    offset: int
