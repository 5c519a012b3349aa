"""The price check's request and answer (POST /prices/check, `gpu-advisor prices check`):
plain pydantic models, so the CLI's options load without the database layer."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from shared.builds.schemas import Task
from shared.pricing.limits import MAX_USD

Verdict = Literal["below_market", "fair", "above_market", "no_market"]
AlternativeKind = Literal["used", "new", "cloud"]


class PriceCheckRequest(BaseModel):
    """A quote to check: per-GPU price, condition, and optionally how many and what for."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="catalog id, name or known alias", examples=["rtx-4090"])
    usd: Decimal = Field(ge=Decimal("0.01"), le=MAX_USD, description="quoted price per GPU")
    condition: Literal["new", "used", "refurbished"]
    count: int = Field(default=1, ge=1, le=512, description="GPUs quoted")
    task: Task = Field(default="cv", description="the workload the alternatives are for")
    memory_gb: float | None = Field(
        default=None,
        gt=0,
        le=2048,
        description="least memory per GPU of the alternatives (default: the quoted card's)",
    )


class EvidenceOut(BaseModel):
    series: str = Field(description="the source of the market price")
    measure: str
    n: int = Field(description="observations behind the market price")
    observed_at: datetime | None = Field(description="the newest observation it rests on")
    today_usd: Decimal | None
    band_usd: tuple[Decimal, Decimal] | None
    estimated: bool
    basis: str = Field(description="today's price in words, or why there is none")


class AlternativeOut(BaseModel):
    kind: AlternativeKind
    gpu: str
    gpu_name: str
    usd: Decimal = Field(description="today's price per GPU (per GPU-hour for cloud)")
    unit: Literal["usd", "usd_per_gpu_hour"]
    perf_per_1000_usd: float
    perf_per_1000_usd_interval: tuple[float, float]
    same_money_buys: float = Field(
        description="GPUs (cloud: GPU-hours) the quote's total buys at this price"
    )


class PriceCheckOut(BaseModel):
    gpu: str
    gpu_name: str
    usd: Decimal
    condition: str
    count: int
    total_usd: Decimal
    task: str
    percentile: float | None = Field(
        description="where the quote sits in today's price distribution for this card and "
        "condition (0-100; the band is its 10th to 90th percentile)"
    )
    verdict: Verdict
    evidence: EvidenceOut
    quote_perf_per_1000_usd: float | None = Field(
        description="perf per $1,000 of the card at the quoted price (GPU alone)"
    )
    reference: str | None = Field(
        default=None,
        description="with no market price: the reference a posted quote of this card is "
        "quarantined against (launch price or priced peers), in words",
    )
    alternatives_memory_gb: float = Field(description="least memory per GPU of the alternatives")
    alternatives: list[AlternativeOut]
    stored: bool = Field(default=False, description="always false: a check stores nothing")
