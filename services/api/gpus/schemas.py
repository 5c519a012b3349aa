"""Shapes of the catalog endpoints."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from pydantic import BaseModel

from services.api.prices.schemas import MarketOut


class GpuSummary(BaseModel):
    id: str
    name: str
    vendor: str
    segment: str
    architecture: str
    form_factor: str
    memory_gb: float
    memory_bandwidth_gbs: float
    fp16_tensor_tflops: float | None
    tdp_w: int
    release_date: date
    launch_price_usd: int | None
    geforce_eula: bool


class GpuPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[GpuSummary]


class CloudPrice(BaseModel):
    provider: str
    instance_type: str
    region: str
    gpu_count: float
    usd_per_gpu_hour: Decimal
    pricing: str
    source: str
    observed_at: datetime


class GpuDetail(BaseModel):
    id: str
    name: str
    specs: dict[str, str | int | float | bool | date | None]
    provenance: dict[str, str]
    market_prices: dict[str, MarketOut | None]
    latest_by_kind: dict[str, MarketOut]
    cloud: list[CloudPrice]
