"""Response of GET /tco: both sides, the break-even, the series and every assumption."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import BaseModel, Field

from services.api.builds.schemas import CostPerUnitOut, LayoutOut, ThroughputOut
from shared.builds.schemas import Pricing
from shared.scoring.as_of_fields import as_of_field, as_of_note_field


class SourcedOut(BaseModel):
    name: str
    value: Decimal | float | str | None
    unit: str
    basis: str
    source: str
    as_of: date | None = None


class GpuRef(BaseModel):
    id: str
    name: str


class CloudOfferOut(BaseModel):
    provider: str
    instance_type: str
    region: str
    gpu_count: float
    usd_per_gpu_hour: Decimal
    pricing: str
    kind: str
    source: str
    observed_at: date


class OwnSide(BaseModel):
    purchase_usd: Decimal
    resale_pct: float
    net_purchase_usd: Decimal
    kwh_per_year: float
    co2_kg_per_year: float
    energy_usd_per_year: Decimal
    total_usd: Decimal
    usd_per_work_hour: Decimal | None
    usd_per_reference_gpu_hour: Decimal | None
    relative_throughput: float


class CloudSide(BaseModel):
    usd_per_gpu_hour: Decimal
    gpu_hours_per_year: float
    usd_per_year: Decimal
    total_usd: Decimal
    usd_per_work_hour: Decimal
    usd_per_reference_gpu_hour: Decimal
    kwh_per_year: float | None
    co2_kg_per_year: float | None
    relative_throughput: float
    spot_interruption_overhead: float
    offer: CloudOfferOut | None


class MonthOut(BaseModel):
    month: int
    own_usd: Decimal
    cloud_usd: Decimal


class TcoResponse(BaseModel):
    gpu: GpuRef
    cloud_gpu: GpuRef
    count: int
    pricing: Pricing
    task: str
    precision: str
    years: float
    utilization: float
    busy_hours_per_year: float
    break_even_days: float | None
    break_even_within_horizon: bool
    cheaper: str
    verdict: str = Field(description="the answer in one sentence, with the dates of the prices")
    prices_used: list[SourcedOut] = Field(
        description="the purchase and cloud prices behind the verdict, each with its date"
    )
    own: OwnSide
    cloud: CloudSide
    layout: LayoutOut | None = Field(
        default=None, description="the machines the owned build was priced and timed on"
    )
    monthly: list[MonthOut]
    work_hour: str
    method: str
    assumptions: list[SourcedOut]
    model_version: str
    throughput: ThroughputOut | None = Field(
        default=None, description="the owned build's throughput in the task's unit"
    )
    cloud_throughput: ThroughputOut | None = Field(
        default=None, description="the rented build's throughput in the task's unit"
    )
    cost_per_unit: CostPerUnitOut | None = Field(
        default=None,
        description="owning: the net purchase and electricity over the busy hours of the "
        "horizon, per unit of work of the owned build",
    )
    cloud_cost_per_unit: CostPerUnitOut | None = Field(
        default=None,
        description="renting: the hourly price (with spot's re-run hours) per unit of work of "
        "the rented build",
    )
    as_of: date | None = as_of_field()
    as_of_note: str | None = as_of_note_field()
