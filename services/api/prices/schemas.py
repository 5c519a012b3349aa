"""Shapes of GET /gpus/{id}/prices."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, Field

ConditionFilter = Literal["new", "used", "refurbished"]


class PricePoint(BaseModel):
    observed_at: datetime
    usd: Decimal = Field(description="per card, shipping included where shown")
    price: Decimal
    currency: str
    condition: str
    kind: str
    source: str
    url: str | None
    listing_id: str | None
    title: str | None
    quantity: int
    quarantined: bool = Field(description="an implausible jump held back from market prices")


class SourceMarketOut(BaseModel):
    source: str
    usd: Decimal
    n: int
    low_usd: Decimal
    high_usd: Decimal
    observed_at: datetime
    stale: bool


class MarketOut(BaseModel):
    usd: Decimal
    condition: str
    kind: str
    basis: str = Field(description="sold or asking prices for scraped data, else the kind")
    method: str
    n: int
    low_usd: Decimal
    high_usd: Decimal
    iqr_usd: Decimal
    sold_n: int
    probable_sales: int
    outliers_removed: int
    source: str
    observed_at: datetime
    oldest_at: datetime | None
    age_days: float = Field(description="freshness: days since the newest price used")
    stale: bool
    by_source: list[SourceMarketOut]


class PriceHistory(BaseModel):
    gpu_id: str
    market: dict[str, MarketOut | None]
    total: int
    limit: int
    offset: int
    items: list[PricePoint]
