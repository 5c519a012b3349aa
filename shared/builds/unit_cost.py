"""Dollars per unit of work: a build's cost per hour over the units it does in that hour.

    usd = usd_per_hour / units_per_hour x scale   (scale: 1M tokens, 1k images or sequences)

Renting: the hourly price of the build, plus the re-run hours of spot interruptions.
Owning: purchase (GPUs and system) less resale, plus electricity at the utilization, over
the busy hours of the horizon (the TCO model's own cost per work hour). The interval
takes the price band's high end with the throughput's low end, and the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from shared.builds import assumptions as d
from shared.perfmodel import units as u

# Units of work per cost unit, and the cost unit's name.
COST_UNITS: dict[str, tuple[float, str]] = {
    u.OUTPUT_TOKENS: (1e6, "usd per 1M output tokens"),
    u.TRAINING_TOKENS: (1e6, "usd per 1M training tokens"),
    u.IMAGES_S: (1e3, "usd per 1k images"),
    u.IMAGES_MIN: (1e3, "usd per 1k images"),
    u.SEQUENCES_S: (1e3, "usd per 1k sequences"),
}
# The conditions a single-build answer prices (the stored Score rows' names): buying (the
# fresher of new and used, /recommend's default) and renting on demand.
BUY, RENT = "any", "cloud:on-demand"
HOURS_PER_YEAR = d.HOURS_PER_DAY * d.DAYS_PER_YEAR


@dataclass(frozen=True, slots=True)
class OwnTerms:
    """How an owned build is used and paid for, each with where it came from."""

    years: float = d.YEARS
    utilization: float = d.UTILIZATION
    electricity_usd_per_kwh: Decimal = d.ELECTRICITY_USD_PER_KWH
    pue: float = d.PUE
    resale_pct: float = 0.0
    resale_basis: str = "no resale counted (a conservative cost)"

    @property
    def busy_hours(self) -> float:
        return self.years * HOURS_PER_YEAR * self.utilization

    def basis(self) -> str:
        given = "the TCO default" if self.utilization == d.UTILIZATION else "as given"
        return (
            f"owning: purchase plus electricity at {self.utilization:.0%} utilization "
            f"({given}) for {self.years:g} years at ${self.electricity_usd_per_kwh}/kWh x "
            f"PUE {self.pue:g}; {self.resale_basis}"
        )


@dataclass(frozen=True, slots=True)
class CostPerUnit:
    """The answer's `cost_per_unit`."""

    usd: float
    unit: str
    interval: tuple[float, float]
    basis: str
    usd_per_hour: float
    units_per_hour: float
    # The run's dollars where the request states its work (a fine-tune's tokens).
    run_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "usd": _sig(self.usd),
            "unit": self.unit,
            "interval": [_sig(self.interval[0]), _sig(self.interval[1])],
            "basis": self.basis,
            "usd_per_hour": _sig(self.usd_per_hour, 6),
            "units_per_hour": _sig(self.units_per_hour, 6),
            "run_usd": None if self.run_usd is None else round(self.run_usd, 2),
        }


def _sig(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def _per_unit(usd_per_hour: float, units_per_hour: float, unit: str) -> float:
    scale, _ = COST_UNITS[unit]
    return usd_per_hour / units_per_hour * scale


def _units_per_hour(value: float, unit: str) -> float:
    per_second = value / 60.0 if unit == u.IMAGES_MIN else value
    return per_second * 3600.0


def rented(
    throughput: u.Throughput,
    usd_per_hour: Decimal,
    band_per_hour: tuple[Decimal, Decimal],
    spot: bool,
    spot_overhead: float = d.SPOT_INTERRUPTION_OVERHEAD,
) -> CostPerUnit:
    """Renting the build at `usd_per_hour` (the whole build's, its band likewise)."""
    extra = 1.0 + (spot_overhead if spot else 0.0)
    hourly = float(usd_per_hour) * extra
    low_rate, high_rate = (_units_per_hour(x, throughput.unit) for x in throughput.interval)
    rate = _units_per_hour(throughput.value, throughput.unit)
    unit = throughput.unit
    spot_said = (
        f"; spot: +{spot_overhead:.0%} re-run hours ({d.SPOT_OVERHEAD_SOURCE})" if spot else ""
    )
    return CostPerUnit(
        usd=_per_unit(hourly, rate, unit),
        unit=COST_UNITS[unit][1],
        interval=(
            _per_unit(float(band_per_hour[0]) * extra, high_rate, unit),
            _per_unit(float(band_per_hour[1]) * extra, low_rate, unit),
        ),
        basis=f"renting: ${hourly:,.4g} per hour for the build over {rate:,.4g} "
        f"{_work(unit)} an hour{spot_said}; interval: the price band with the throughput's",
        usd_per_hour=hourly,
        units_per_hour=rate,
    )


def over_hours(
    throughput: u.Throughput, total_usd: Decimal, hours: float, said: str
) -> CostPerUnit:
    """`total_usd` spent over `hours` of work at the throughput (a stated run's cost: the
    interval is the throughput's alone)."""
    hourly = float(total_usd) / hours
    low_rate, high_rate = (_units_per_hour(x, throughput.unit) for x in throughput.interval)
    rate = _units_per_hour(throughput.value, throughput.unit)
    unit = throughput.unit
    return CostPerUnit(
        usd=_per_unit(hourly, rate, unit),
        unit=COST_UNITS[unit][1],
        interval=(_per_unit(hourly, high_rate, unit), _per_unit(hourly, low_rate, unit)),
        basis=f"{said}: ${hourly:,.4g} per hour over {rate:,.4g} {_work(unit)} an hour; "
        "interval: the throughput's (the prices as given)",
        usd_per_hour=hourly,
        units_per_hour=rate,
    )


def owned(
    throughput: u.Throughput,
    total_usd: Decimal,
    total_band: tuple[Decimal, Decimal],
    watts: float,
    terms: OwnTerms,
) -> CostPerUnit:
    """Owning the build bought at `total_usd` (GPUs and system) drawing `watts` when busy."""
    hours = terms.busy_hours
    energy = watts / 1000.0 * hours * terms.pue * float(terms.electricity_usd_per_kwh)

    def hourly(total: Decimal) -> float:
        return (float(total) * (1.0 - terms.resale_pct) + energy) / hours

    low_rate, high_rate = (_units_per_hour(x, throughput.unit) for x in throughput.interval)
    rate = _units_per_hour(throughput.value, throughput.unit)
    unit = throughput.unit
    return CostPerUnit(
        usd=_per_unit(hourly(total_usd), rate, unit),
        unit=COST_UNITS[unit][1],
        interval=(
            _per_unit(hourly(total_band[0]), high_rate, unit),
            _per_unit(hourly(total_band[1]), low_rate, unit),
        ),
        basis=f"{terms.basis()}: ${hourly(total_usd):,.4g} per busy hour over {rate:,.4g} "
        f"{_work(unit)} an hour; interval: the price band with the throughput's",
        usd_per_hour=hourly(total_usd),
        units_per_hour=rate,
    )


def _work(unit: str) -> str:
    """What a throughput unit counts: output tokens, training tokens, images, sequences."""
    return unit.rsplit("/", 1)[0]


@dataclass(frozen=True, slots=True)
class CardPrice:
    """One GPU's price today with its 80 % band: per GPU (bought) or per GPU-hour
    (rented), and what it is in words."""

    usd: Decimal
    band: tuple[Decimal, Decimal]
    condition: str
    said: str


def priced_build(
    throughput: u.Throughput,
    price: CardPrice,
    count: int,
    system_usd: Decimal,
    watts: float,
    terms: OwnTerms,
) -> CostPerUnit:
    """Dollars per unit of `count` GPUs at `price`: rented by the hour when the condition
    is a cloud one, else owned with the system around them."""
    low, high = price.band
    if price.condition.startswith("cloud:"):
        cost = rented(
            throughput,
            price.usd * count,
            (low * count, high * count),
            spot=price.condition == "cloud:spot",
        )
    else:
        cost = owned(
            throughput,
            price.usd * count + system_usd,
            (low * count + system_usd, high * count + system_usd),
            watts,
            terms,
        )
    return replace(cost, basis=f"{price.said}; {cost.basis}")


@dataclass(frozen=True, slots=True)
class Costing:
    """What pricing one build needs: today's prices of its GPU by condition, the system
    around the GPUs, the watts it draws when busy and how an owned build is used."""

    prices: dict[str, CardPrice]
    system_usd: Decimal
    watts: float
    terms: OwnTerms

    def cost(self, throughput: u.Throughput, condition: str, count: int) -> CostPerUnit | None:
        price = self.prices.get(condition)
        if price is None:
            return None
        return priced_build(throughput, price, count, self.system_usd, self.watts, self.terms)
