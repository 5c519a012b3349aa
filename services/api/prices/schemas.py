"""Shapes of the price endpoints: history (GET) and manual or vendor prices (POST)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
    measure: str = Field(
        description="sale, sold_average, ask, cheapest_asks_mean, median_ask, list_price or quote"
    )


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
    stale: bool = Field(
        description="older than the stale age (default 90 days) or from sources "
        "that stopped answering; stale_reason says which"
    )
    by_source: list[SourceMarketOut]
    measure: str = Field(
        description="what the price measures: sale, sold_average, ask, "
        "cheapest_asks_mean, median_ask or list_price"
    )
    measure_description: str
    stale_reason: str | None = None


class QuoteOut(BaseModel):
    """A price posted to us: shown beside the market, never the market price."""

    id: int
    usd: Decimal
    condition: str
    source: str
    observed_at: datetime
    age_days: float
    title: str | None = None
    url: str | None = None
    quarantined: bool = False


class PriceHistory(BaseModel):
    gpu_id: str
    market: dict[str, MarketOut | None]
    best_quote: dict[str, QuoteOut | None] = Field(
        description="cheapest recent posted quote per condition (not quarantined) of the "
        "caller's API key (every key's with all_quotes); none without a key"
    )
    quotes: list[QuoteOut] = Field(
        description="the caller's posted quotes of the stale age, newest first"
    )
    total: int
    limit: int
    offset: int
    items: list[PricePoint]


class PriceIn(BaseModel):
    """A price that did not come from the scraper, e.g. a vendor's quote."""

    model_config = ConfigDict(extra="forbid")

    gpu_id: str = Field(
        max_length=128, description="catalog id or a known alias (e.g. 'GeForce RTX 4090')"
    )
    usd: Decimal = Field(gt=0, le=500000, description="price per card in USD")
    condition: Literal["new", "used", "refurbished"]
    source: str = Field(min_length=1, max_length=128, description="who quoted it")
    title: str | None = Field(default=None, max_length=512)
    url: str | None = Field(default=None, max_length=1024, description="http(s) only")
    quantity: int = Field(default=1, ge=1, le=10000)

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        """A link people will open: http or https with a host, never javascript: or data:."""
        if url is None:
            return None
        parts = urlsplit(url.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an http:// or https:// URL")
        return url.strip()


class PriceCreated(BaseModel):
    id: int
    gpu_id: str
    usd: Decimal
    condition: str
    kind: str
    source: str
    observed_at: datetime
    quarantined: bool = Field(
        description="stored but held back (fires no alert): beyond 3x the market reference"
    )
    quarantine_reason: str | None = Field(
        default=None, description="above_median_factor or below_median_factor; null: not held"
    )
    reference_usd: Decimal | None = Field(
        default=None,
        description="the reference price it was checked against; null: none known "
        "(no market price, launch price or priced peer card)",
    )
    reference: str | None = Field(
        default=None,
        description="which reference: the recent market median, the newest market price, "
        "the launch price, or peer cards' (same vendor, segment, architecture) for a card "
        "with no market or launch price",
    )
    measure: str = Field(default="quote", description="posted prices are quotes")
    note: str = Field(
        default="a quote of this API key: shown beside the market price to this key only "
        "(and keys that see every quote) and fires only their alerts; it never replaces "
        "the market price that rankings use"
    )
