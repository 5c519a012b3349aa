"""Shapes of the price endpoints: history (GET) and manual or vendor prices (POST)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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


class PriceIn(BaseModel):
    """A price that did not come from the scraper, e.g. a vendor's quote."""

    model_config = ConfigDict(extra="forbid")

    gpu_id: str = Field(max_length=128, description="catalog id or a common spelling")
    usd: Decimal = Field(gt=0, le=500000, description="price per card in USD")
    condition: Literal["new", "used", "refurbished"]
    source: str = Field(min_length=1, max_length=128, description="who quoted it")
    title: str | None = Field(default=None, max_length=512)
    url: str | None = Field(default=None, max_length=1024)
    quantity: int = Field(default=1, ge=1, le=10000)


class PriceCreated(BaseModel):
    id: int
    gpu_id: str
    usd: Decimal
    condition: str
    kind: str
    source: str
    observed_at: datetime
    quarantined: bool = Field(
        description="stored but held out of market prices: beyond 3x the 30-day median"
    )
