"""Shapes of the catalog endpoints."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from pydantic import BaseModel, Field


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


class SourcePriceOut(BaseModel):
    source: str
    usd: Decimal
    n: int
    low_usd: Decimal
    high_usd: Decimal
    observed_at: datetime
    stale: bool


class PriceSummary(BaseModel):
    usd: Decimal
    condition: str
    kind: str
    source: str
    observed_at: datetime
    n: int
    low_usd: Decimal
    high_usd: Decimal
    method: str
    basis: str = Field(description="sold or asking for scraped prices, else the kind")
    sold_n: int
    probable_sales: int
    outliers_removed: int
    iqr_usd: Decimal
    oldest_at: datetime | None
    stale: bool
    by_source: list[SourcePriceOut]


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
    market_prices: dict[str, PriceSummary | None]
    latest_by_kind: dict[str, PriceSummary]
    cloud: list[CloudPrice]
