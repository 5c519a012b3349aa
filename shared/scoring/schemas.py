"""The price check's request and answer (POST /prices/check, `gpu-advisor prices check`):
plain pydantic models, so the CLI's options load without the database layer."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shared.builds.schemas import AS_OF_DESCRIPTION, Task
from shared.pricing.limits import MAX_USD
from shared.scoring.as_of_fields import as_of_field, as_of_note_field, model_version_field

Verdict = Literal["suspicious", "below_market", "fair", "above_market", "no_market"]
AlternativeKind = Literal["used", "new", "cloud"]
# The largest rental quote per GPU-hour: a purchase price sent as one is still checked.
MAX_USD_PER_HOUR = Decimal("10000")


class PriceCheckRequest(BaseModel):
    """A quote to check: a purchase (`usd` per GPU, condition new, used or refurbished) or a
    rental (`usd_per_hour` per GPU-hour, condition cloud, `pricing`), and optionally how
    many and what for."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="catalog id, name or known alias", examples=["rtx-4090"])
    usd: Decimal | None = Field(
        default=None,
        ge=Decimal("0.01"),
        le=MAX_USD,
        description="quoted purchase price per GPU (conditions new, used, refurbished)",
    )
    usd_per_hour: Decimal | None = Field(
        default=None,
        ge=Decimal("0.00001"),
        le=MAX_USD_PER_HOUR,
        description="quoted rental price per GPU-hour (condition cloud only)",
    )
    condition: Literal["new", "used", "refurbished", "cloud"]
    pricing: Literal["on-demand", "spot"] | None = Field(
        default=None, description="condition cloud only: on-demand (default) or spot"
    )
    count: int = Field(default=1, ge=1, le=512, description="GPUs quoted")
    task: Task = Field(default="cv", description="the workload the alternatives are for")
    memory_gb: float | None = Field(
        default=None,
        gt=0,
        le=2048,
        description="least memory per GPU of the alternatives (default: the quoted card's)",
    )
    as_of: str | None = Field(default=None, description=AS_OF_DESCRIPTION, examples=["2026-09-30"])


class EvidenceOut(BaseModel):
    series: str = Field(description="the source of the market price")
    measure: str
    n: int = Field(description="observations behind the market price")
    observed_at: datetime | None = Field(description="the newest observation it rests on")
    today_usd: Decimal | None
    band_usd: tuple[Decimal, Decimal] | None
    estimated: bool
    basis: str = Field(description="today's price in words, or why there is none")


class AvailabilityOut(BaseModel):
    """How much market stands behind a price (shared/pricing/availability.py)."""

    model_config = ConfigDict(from_attributes=True)

    listings: int = Field(
        description="asks of the card in the window (each listing once; rentals: current "
        "offers listed in the window)"
    )
    providers: int = Field(
        description="distinct sources of those asks (no seller is stored: a marketplace "
        "counts once), or distinct providers of the current cloud offers"
    )
    window_days: int = Field(description="the market window, ending at window_end")
    offers_now: int | None = Field(
        description="cloud offers of the card listed now at this pricing; null for a purchase"
    )
    window_end: date = Field(
        description="the day (UTC) the window ends: the counts are those of the answer's "
        "moment on that day, so two answers of one day show the same day"
    )
    note: str | None = Field(default=None, description="set when nothing is in the window")

    @field_validator("window_end", mode="before")
    @classmethod
    def _day(cls, value: object) -> object:
        # The moment a count was taken changes with every request; its day does not, so
        # the same question asked through the CLI and the API gives the same body.
        return value.date() if isinstance(value, datetime) else value


Availability = AvailabilityOut | Literal["unknown"]
AVAILABILITY_DESCRIPTION = (
    "how much market stands behind the price: listings in the window, their sources, "
    'cloud offers listed now; "unknown" where the data cannot say (only aggregates '
    "without listing counts, such as a monthly report)"
)


def availability_out(supply: Any) -> Availability:
    """The answer's shape of a counted availability (an `Availability` dataclass)."""
    if supply is None or supply == "unknown":
        return "unknown"
    return AvailabilityOut.model_validate(supply)


class AlternativeOut(BaseModel):
    kind: AlternativeKind
    gpu: str
    gpu_name: str
    usd: Decimal = Field(description="today's price per GPU (per GPU-hour for cloud)")
    unit: Literal["usd", "usd_per_gpu_hour"]
    pricing: Literal["on-demand", "spot"] | None = Field(
        default=None, description="cloud: the rental's pricing"
    )
    estimated: bool = Field(
        description="usd is an estimate: an older price moved to today by the market index"
    )
    band_usd: tuple[Decimal, Decimal] | None = Field(
        description="80 % band of today's price (rentals: cheapest to median current offer)"
    )
    basis: str = Field(description="today's price in words: what it rests on, and its date")
    observed_at: datetime = Field(description="the newest observation the price rests on")
    perf_per_1000_usd: float = Field(
        description="relative throughput per $1,000 at today's price, GPU alone (no system), "
        "as the quote's"
    )
    perf_per_1000_usd_interval: tuple[float, float] = Field(
        description="its 80 % interval: the performance interval and the price band combined"
    )
    same_money_buys: float = Field(
        description="total_usd / usd (2 decimals): how many of this alternative the quote's "
        "total buys, "
        "GPU alone as the quote: GPUs bought (used, new), GPU-hours rented (cloud, for a "
        "purchase quote) or GPUs rented for the same hourly spend (cloud, for a cloud quote)"
    )
    same_money_unit: Literal["gpus", "gpu_hours"] = Field(description="what same_money_buys counts")
    availability: Availability = Field(description=AVAILABILITY_DESCRIPTION)


class PriceCheckOut(BaseModel):
    gpu: str
    gpu_name: str
    usd: Decimal = Field(description="the quoted price: per GPU, per GPU-hour for cloud (unit)")
    unit: Literal["usd", "usd_per_gpu_hour"] = "usd"
    condition: str
    pricing: Literal["on-demand", "spot"] | None = Field(
        default=None, description="cloud quotes: the rental pricing checked against"
    )
    count: int
    total_usd: Decimal = Field(description="usd x count (per hour for a cloud quote)")
    task: str
    percentile: float | None = Field(
        description="where the quote sits in today's price distribution for this card and "
        "condition (0-100; the band is its 10th to 90th percentile)"
    )
    verdict: Verdict = Field(
        description="suspicious: far below every price band of the card (below 1/factor of "
        "the lowest band's low end, the factor that holds back an implausible posted "
        "price): likely a scam, a wrong variant or a per-hour figure sent as a purchase; "
        "below_market: under the band (cheaper than 9 in 10 market prices); fair; "
        "above_market; no_market: no price today to compare with"
    )
    reason: str = Field(description="the verdict in words: what the quote was compared with")
    evidence: EvidenceOut
    availability: Availability = Field(description=AVAILABILITY_DESCRIPTION)
    includes_system_cost: bool = Field(
        default=False,
        description="false: the quote's and the alternatives' figures (perf per $1,000, same "
        "money buys) are for GPUs alone, without the system around them, like with like",
    )
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
    as_of: date | None = as_of_field()
    as_of_note: str | None = as_of_note_field()
    model_version: str | None = model_version_field()
