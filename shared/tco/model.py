"""Own versus rent: the pure arithmetic of docs/domain.md section 5, generalized.

Own (a build of `count` GPUs):
    kWh/year   = (gpu_watts x count + system_watts) x utilization x 8760 h / 1000 x pue
    energy/day = kWh/year / 365 x electricity price
    own(t)     = purchase x (1 - resale_pct) + energy/day x t
The purchase is counted net of the resale at the horizon: the hardware is assumed kept
to the horizon and then sold, so the break-even uses the capital actually lost.

Rent (`count` cloud GPUs doing the same work):
    busy hours/day = 24 x utilization            (hours the owned build works)
    cloud GPU-h/day = busy hours/day x count x own_speed / cloud_speed
                      x (1 + spot_interruption_overhead)
    cloud(t)   = cloud GPU-h/day x cloud_usd_per_hour x t
Speeds are build throughputs relative to one reference GPU (performance model), so a
cloud GPU twice as fast bills half the hours.

Break-even: the day cloud(t) = own(t), i.e. net purchase / (cloud/day - energy/day);
None when renting never costs more per day than the electricity of owning.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shared.builds.assumptions import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY
from shared.kit.money import money


@dataclass(frozen=True, slots=True)
class TcoInputs:
    """Every input resolved to a number (defaults already applied)."""

    count: int
    purchase_usd: Decimal
    gpu_watts: float
    system_watts: float
    utilization: float
    electricity_usd_per_kwh: Decimal
    pue: float
    years: float
    resale_pct: float
    cloud_usd_per_hour: Decimal  # per GPU-hour
    spot_interruption_overhead: float
    carbon_kg_per_kwh: float
    own_speed: float = 1.0
    cloud_speed: float = 1.0
    cloud_gpu_watts: float | None = None


@dataclass(frozen=True, slots=True)
class MonthPoint:
    month: int
    own_usd: Decimal
    cloud_usd: Decimal


@dataclass(frozen=True, slots=True)
class TcoResult:
    break_even_days: float | None
    break_even_within_horizon: bool
    own_kwh_per_year: float
    own_co2_kg_per_year: float
    own_energy_usd_per_year: Decimal
    own_net_purchase_usd: Decimal
    own_total_usd: Decimal
    cloud_gpu_hours_per_year: float
    cloud_usd_per_year: Decimal
    cloud_total_usd: Decimal
    cloud_kwh_per_year: float | None
    cloud_co2_kg_per_year: float | None
    own_usd_per_work_hour: Decimal | None
    cloud_usd_per_work_hour: Decimal
    own_usd_per_reference_gpu_hour: Decimal | None
    cloud_usd_per_reference_gpu_hour: Decimal
    busy_hours_per_year: float
    cheaper: str  # "own" | "rent" | "equal"
    monthly: list[MonthPoint]


def kwh_per_year(watts: float, utilization: float, pue: float) -> float:
    return watts * utilization * HOURS_PER_DAY * DAYS_PER_YEAR / 1000 * pue


def own_kwh_per_year(inputs: TcoInputs) -> float:
    watts = inputs.gpu_watts * inputs.count + inputs.system_watts
    return kwh_per_year(watts, inputs.utilization, inputs.pue)


def cloud_gpu_hours_per_day(inputs: TcoInputs) -> float:
    busy = HOURS_PER_DAY * inputs.utilization
    ratio = inputs.own_speed / inputs.cloud_speed
    return busy * inputs.count * ratio * (1 + inputs.spot_interruption_overhead)


def _daily_rates(inputs: TcoInputs) -> tuple[Decimal, Decimal]:
    """(electricity of owning, cost of renting) per day, unrounded."""
    energy = Decimal(str(own_kwh_per_year(inputs))) / DAYS_PER_YEAR
    energy_usd = energy * inputs.electricity_usd_per_kwh
    cloud_usd = Decimal(str(cloud_gpu_hours_per_day(inputs))) * inputs.cloud_usd_per_hour
    return energy_usd, cloud_usd


def net_purchase(inputs: TcoInputs) -> Decimal:
    return inputs.purchase_usd * (1 - Decimal(str(inputs.resale_pct)))


def break_even_days(inputs: TcoInputs) -> float | None:
    energy, cloud = _daily_rates(inputs)
    saving = cloud - energy
    if saving <= 0:
        return None
    return float(net_purchase(inputs) / saving)


def monthly_series(inputs: TcoInputs) -> list[MonthPoint]:
    energy, cloud = _daily_rates(inputs)
    capital = net_purchase(inputs)
    months = round(inputs.years * 12)
    points = []
    for month in range(months + 1):
        days = Decimal(str(month * DAYS_PER_MONTH))
        points.append(MonthPoint(month, money(capital + energy * days), money(cloud * days)))
    return points


def _per_hour(total: Decimal, hours: float) -> Decimal | None:
    return money(total / Decimal(str(hours))) if hours > 0 else None


def compute_tco(inputs: TcoInputs) -> TcoResult:
    energy_day, cloud_day = _daily_rates(inputs)
    horizon_days = Decimal(str(inputs.years * DAYS_PER_YEAR))
    own_total = net_purchase(inputs) + energy_day * horizon_days
    cloud_total = cloud_day * horizon_days
    kwh = own_kwh_per_year(inputs)
    busy_year = HOURS_PER_DAY * inputs.utilization * DAYS_PER_YEAR
    cloud_rate = (
        inputs.cloud_usd_per_hour
        * inputs.count
        * Decimal(
            str(inputs.own_speed / inputs.cloud_speed * (1 + inputs.spot_interruption_overhead))
        )
    )
    cloud_hours_year = cloud_gpu_hours_per_day(inputs) * DAYS_PER_YEAR
    cloud_kwh = _cloud_kwh(inputs, cloud_hours_year)
    days = break_even_days(inputs)
    own_per_hour = _per_hour(own_total, busy_year * inputs.years)
    return TcoResult(
        break_even_days=None if days is None else round(days, 1),
        break_even_within_horizon=days is not None and days <= float(horizon_days),
        own_kwh_per_year=round(kwh, 1),
        own_co2_kg_per_year=round(kwh * inputs.carbon_kg_per_kwh, 1),
        own_energy_usd_per_year=money(energy_day * DAYS_PER_YEAR),
        own_net_purchase_usd=money(net_purchase(inputs)),
        own_total_usd=money(own_total),
        cloud_gpu_hours_per_year=round(cloud_hours_year, 1),
        cloud_usd_per_year=money(cloud_day * DAYS_PER_YEAR),
        cloud_total_usd=money(cloud_total),
        cloud_kwh_per_year=None if cloud_kwh is None else round(cloud_kwh, 1),
        cloud_co2_kg_per_year=(
            None if cloud_kwh is None else round(cloud_kwh * inputs.carbon_kg_per_kwh, 1)
        ),
        own_usd_per_work_hour=own_per_hour,
        cloud_usd_per_work_hour=money(cloud_rate),
        own_usd_per_reference_gpu_hour=_per_reference(own_per_hour, inputs.own_speed),
        cloud_usd_per_reference_gpu_hour=money(cloud_rate / Decimal(str(inputs.own_speed))),
        busy_hours_per_year=round(busy_year, 1),
        cheaper=_cheaper(own_total, cloud_total),
        monthly=monthly_series(inputs),
    )


def _per_reference(per_hour: Decimal | None, speed: float) -> Decimal | None:
    return None if per_hour is None else money(per_hour / Decimal(str(speed)))


def _cloud_kwh(inputs: TcoInputs, cloud_gpu_hours: float) -> float | None:
    """Energy the rented GPUs draw for the same work (the provider's bill, same PUE)."""
    if inputs.cloud_gpu_watts is None:
        return None
    per_gpu_system = inputs.system_watts / inputs.count
    return (inputs.cloud_gpu_watts + per_gpu_system) * cloud_gpu_hours / 1000 * inputs.pue


def _cheaper(own: Decimal, cloud: Decimal) -> str:
    if own == cloud:
        return "equal"
    return "own" if own < cloud else "rent"
