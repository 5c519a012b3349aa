"""Shapes of /recommend's answer."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, Field

from services.api.builds.schemas import CostPerUnitOut, LayoutOut, ThroughputOut
from services.api.prices.schemas import QuoteOut
from shared.builds.schemas import Pricing
from shared.recommend.schemas import RecommendQuery
from shared.scoring.as_of_fields import as_of_field, as_of_note_field
from shared.scoring.schemas import AVAILABILITY_DESCRIPTION, Availability


class GpuRef(BaseModel):
    id: str
    name: str
    memory_gb: float
    vendor: str
    segment: str


class PriceOut(BaseModel):
    usd: Decimal = Field(description="per GPU; per GPU-hour when unit is usd_per_gpu_hour")
    condition: str = Field(description="condition of the priced offer: new, used or cloud")
    kind: str = Field(description="msrp, snapshot or scraped")
    source: str
    observed_at: datetime
    n: int = Field(description="observations behind the price")
    measure: str = Field(
        description="what the price measures: sale, sold_average, ask, cheapest_asks_mean, "
        "median_ask, list_price; for cloud list, marketplace_median, segment_median or offer"
    )
    measure_description: str
    unit: Literal["usd", "usd_per_gpu_hour"] = "usd"
    pricing: Pricing | None = Field(default=None, description="cloud: on-demand or spot")
    age_days: float
    stale: bool = Field(
        description="the observation is older than the stale age (GPU_ADVISOR_PRICE_STALE_DAYS)"
        ": then `usd` is an estimate moved to today (`estimated`)"
    )
    estimated: bool = Field(
        default=False,
        description="usd is today's price estimated from an older observation moved by the "
        "market index of comparable cards (same segment and condition)",
    )
    band_usd: tuple[Decimal, Decimal] | None = Field(
        default=None,
        description="80 % band of today's price: from the spread and n of a fresh price, "
        "widened with age at the series' volatility for an estimate; for a rental, the "
        "cheapest to the median current offer",
    )
    basis: str | None = Field(default=None, description="today's price in words")
    last_usd: Decimal | None = Field(
        default=None, description="the observed price `usd` rests on (dated observed_at)"
    )


class PerformanceOut(BaseModel):
    interval: tuple[float, float]
    basis: str = Field(description="measured or calibrated-model")
    reference_gpu: str
    multi_gpu_speedup: float


class RecommendResult(BaseModel):
    rank: int
    gpu: GpuRef
    relative_performance: float = Field(
        description="throughput of the whole build relative to one reference GPU"
    )
    performance: PerformanceOut
    price: PriceOut
    count: int
    system_cost_usd: Decimal
    system_cost_basis: str
    layout: LayoutOut | None = Field(
        default=None, description="the machines this build was priced and timed on"
    )
    total_cost_usd: Decimal
    perf_per_dollar: float
    perf_per_1000_usd: float
    perf_per_1000_usd_interval: tuple[float, float] = Field(
        description="80 % interval of perf per $1,000: the performance interval and the price "
        "band combined (low: low performance at the band's high price); the default sort "
        "uses its low end"
    )
    caveats: list[str]
    explanation: str
    effective_batch: int | None = Field(
        default=None,
        description="llm-inference with params_b: sequences served at once per "
        "tensor-parallel group, the requested batch or fewer where the card's memory left "
        "after the weights holds fewer (the speed is timed at it)",
    )
    best_quote: QuoteOut | None = Field(
        default=None,
        description="the best posted quote for this GPU: shown beside the market price, "
        "never used by the ranking",
    )
    throughput: ThroughputOut | None = Field(
        default=None, description="the build's throughput in the workload's own unit"
    )
    cost_per_unit: CostPerUnitOut | None = Field(
        default=None,
        description="dollars per unit of work: renting at the hourly price, or owning "
        "(purchase and electricity over the busy hours of the horizon); sort=cost_per_unit "
        "ranks by its interval's high end",
    )
    availability: Availability = Field(default="unknown", description=AVAILABILITY_DESCRIPTION)


class EmptyReasonOut(BaseModel):
    """Why no GPU is left, and what would change that."""

    message: str
    removed: dict[str, int] = Field(
        description="GPUs removed per filter: memory, stale_rental, datacenter_licence, "
        "budget, precision, target (each GPU counted under the first filter that removed it)"
    )
    suggestions: list[str]


class UnrankedOut(BaseModel):
    """A card that passed the filters but has no price today, and why."""

    gpu: GpuRef
    condition: str
    last_usd: Decimal = Field(description="the last price seen (per GPU-hour for rentals)")
    last_observed_at: datetime
    measure: str
    source: str
    reason: str


class MarketAgesOut(BaseModel):
    """How old the prices behind this ranking are (the market, never a posted quote)."""

    newest_observed_at: datetime | None
    median_age_days: float | None
    stale_share: float = Field(description="share of ranked prices older than the stale age")
    estimated_share: float = Field(description="share of ranked prices that are estimates")
    n: int = Field(description="ranked prices counted")


class RecommendResponse(BaseModel):
    query: RecommendQuery
    prices_as_of: datetime | None = Field(
        description="the newest market observation behind the ranked prices (never a quote)"
    )
    market: MarketAgesOut | None = None
    model_version: str
    computed_at: datetime | None
    sorted_by: str = Field(default="", description="what the order of results is by")
    results: list[RecommendResult]
    unranked: list[UnrankedOut] = Field(
        default_factory=list,
        description="cards that pass the filters but have no price today: their last "
        "price, its date and the reason it is not used",
    )
    empty: EmptyReasonOut | None = Field(
        default=None, description="only when results is empty: why, and what would change it"
    )
    as_of: date | None = as_of_field()
    as_of_note: str | None = as_of_note_field()
