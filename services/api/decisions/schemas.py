"""Bodies of the decision endpoints. A decision's `query` is GET /recommend's parameters
(shared/recommend/request.py, the schema the route and the CLI use) as a JSON object."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.api.recommend.schemas import RecommendResponse
from shared.recommend.request import RecommendRequest

ExportFormat = Literal["json", "csv"]
NOTE_CHARS = 2000


class DecisionQuery(RecommendRequest):
    """GET /recommend's parameters; a name it does not take is refused, as the route
    refuses an unknown query parameter."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class DecisionIn(BaseModel):
    """POST /decisions: the /recommend query to answer and keep, and a note for the record."""

    model_config = ConfigDict(extra="forbid")

    query: DecisionQuery
    note: str | None = Field(default=None, max_length=NOTE_CHARS)


class ObservationUsed(BaseModel):
    id: int
    condition: str
    price_usd: Decimal
    kind: str
    measure: str
    source: str
    listing_id: str | None
    observed_at: datetime
    newest: bool = Field(description="the observation the price's date (observed_at) is")


class OfferUsed(BaseModel):
    id: int
    provider: str
    instance_type: str
    region: str
    gpu_count: float
    on_demand_usd_per_hour: Decimal | None
    spot_usd_per_hour: Decimal | None
    kind: str
    measure: str
    source: str
    observed_at: datetime
    rests_on: bool = Field(description="the offer the ranked price is (the cheapest)")


class PricesUsed(BaseModel):
    """The rows one ranked result's price was made from (see shared/decisions/prices.py)."""

    rank: int
    gpu_id: str
    condition: str
    unit: str
    usd: Decimal
    estimated: bool
    observed_at: datetime
    pricing: str | None = None
    price_observations: list[ObservationUsed] = Field(
        description="purchase: the card's market observations in the price's window"
    )
    cloud_offers: list[OfferUsed] = Field(
        description="rental: the card's current offers at the price's pricing"
    )


class DecisionOut(BaseModel):
    id: str
    created_at: datetime
    note: str | None
    model_version: str = Field(description="the performance model that answered")
    query: dict[str, Any] = Field(description="the query as given")
    answer: RecommendResponse = Field(description="the /recommend body, unchanged")
    prices: list[PricesUsed] = Field(description="per ranked result, the prices it used by id")


class Change(BaseModel):
    then: Any
    now: Any
    change: Decimal | None = Field(description="now minus then")
    change_pct: float | None


class PriceChange(Change):
    then_basis: dict[str, Any] | None = Field(description="price then: usd, basis, date")
    now_basis: dict[str, Any] | None = Field(description="price now: usd, basis, date")


class RankMove(BaseModel):
    then: int | None
    now: int | None
    moved: int | None = Field(description="places up (negative: down)")


class CardMove(BaseModel):
    gpu_id: str
    status: Literal["kept", "entered", "left"]
    rank: RankMove
    price: PriceChange
    perf_per_1000_usd: Change
    total_cost_usd: Change
    relative_performance: Change
    cost_per_unit_usd: Change


class VersionMove(BaseModel):
    then: str | None
    now: str | None
    changed: bool


class ReplayOut(BaseModel):
    """The decision's query answered today beside the answer kept."""

    decision_id: str
    decided_at: datetime
    replayed_at: datetime
    model_version: VersionMove
    prices_as_of: dict[str, datetime | None]
    entered: list[str]
    left: list[str]
    results: list[CardMove]
    answer: RecommendResponse = Field(description="today's /recommend body for the query")
