"""Shapes of the catalog endpoints."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from pydantic import BaseModel, Field

from services.api.prices.schemas import MarketOut, QuoteOut
from shared.scoring.as_of_fields import as_of_field, as_of_note_field, model_version_field


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
    measure: str = Field(
        description="list (a provider's price list), marketplace_median, "
        "segment_median or offer (one marketplace host)"
    )
    current: bool = Field(
        description="rentable today: the provider's newest list, and "
        "not older than the stale age; otherwise history"
    )


class TodayPriceOut(BaseModel):
    """Today's price in one condition: what /recommend ranks on."""

    usd: Decimal | None = Field(description="None when there is no price today (see reason)")
    unit: str = Field(description="usd, or usd_per_gpu_hour for cloud:*")
    band_usd: tuple[Decimal, Decimal] | None = Field(description="its 80 % band")
    estimated: bool = Field(
        description="moved to today from an older observation by the market index of "
        "comparable cards"
    )
    basis: str | None = Field(description="today's price in words")
    last_usd: Decimal = Field(description="the observation it rests on")
    last_observed_at: datetime
    source: str
    measure: str
    note: str | None = Field(default=None, description="a caveat about this price")
    reason: str | None = Field(
        default=None, description="why there is no price today (too few asks, no index)"
    )


class GpuDetail(BaseModel):
    id: str
    name: str
    specs: dict[str, str | int | float | bool | date | None]
    provenance: dict[str, str]
    market_prices: dict[str, MarketOut | None]
    latest_by_kind: dict[str, MarketOut]
    today_prices: dict[str, TodayPriceOut] = Field(
        default_factory=dict,
        description="today's price per condition (new, used, any, cloud:on-demand, "
        "cloud:spot), as /recommend ranks it; absent where never seen",
    )
    cloud: list[CloudPrice]
    best_quote: dict[str, QuoteOut | None] = Field(
        description="cheapest recent posted quote per condition, beside the market price: "
        "the caller's API key's (every key's with all_quotes); none without a key"
    )
    as_of: date | None = as_of_field()
    as_of_note: str | None = as_of_note_field()
    model_version: str | None = model_version_field()
