"""Compare mode: candidate builds side by side over one horizon.

For each candidate over `years` at `utilization` (busy hours = utilization x 8,760 x years):
- buy:  total = bill of materials + electricity of the busy hours (resale not counted);
- rent: total = billed hours x count x $/GPU-hour; billed hours = `rent_hours` or the busy
        hours; spot loses `spot_interruption_overhead` of them to interruptions.
Work = build throughput (relative to one RTX 3090, performance model) x productive hours,
in reference-GPU-hours; cost per unit of work = total / work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, get_args

from sqlmodel import Session

from shared.builds import assumptions as d
from shared.builds.bom import LineItem
from shared.builds.build import cloud_layout
from shared.builds.schemas import MarketCondition
from shared.builds.speed import build_speedup
from shared.builds.throughput import task_units
from shared.builds.unit_cost import over_hours, rented
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel.absolute import Ratio
from shared.perfmodel.classmodel import ClassModel
from shared.pricing.cloud import Currency, cheapest_offer
from shared.quotes.models import Quote
from shared.quotes.request import QuoteInputError, spec_of
from shared.quotes.schemas import Candidate, ClusterRequest, CompareRequest
from shared.quotes.store import compute_cluster, store
from shared.tco.request import TcoInputError


@dataclass(slots=True)
class CandidateResult:
    label: str
    acquisition: str
    gpu: str
    count: int
    total_usd: Decimal
    relative_throughput: float
    work_reference_gpu_hours: float
    usd_per_reference_gpu_hour: Decimal | None
    capex_usd: Decimal = Decimal(0)
    energy_usd: Decimal = Decimal(0)
    rent_usd: Decimal = Decimal(0)
    hours: float = 0.0
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    line_items: list[LineItem] = field(default_factory=list)
    rank: int = 0
    # The candidate's throughput in the task's unit and its dollars per unit (issue 38).
    throughput: dict[str, Any] | None = None
    cost_per_unit: dict[str, Any] | None = None


@dataclass(slots=True)
class CompareResult:
    task: str
    precision: str
    years: float
    utilization: float
    busy_hours: float
    unit_of_work: str
    method: str
    candidates: list[CandidateResult]


def _busy_hours(req: CompareRequest) -> float:
    return req.utilization * d.HOURS_PER_DAY * d.DAYS_PER_YEAR * req.years


def _label(c: Candidate) -> str:
    return c.label or f"{c.count}x {c.gpu} ({c.acquisition})"


def _per_work(total: Decimal, work: float) -> Decimal | None:
    if work <= 0:
        return None
    per = total / Decimal(str(work))
    # A horizon of a moment (years=1e-300) leaves no meaningful cost per unit, and one
    # beyond Decimal's 28 digits cannot be rounded to the cent.
    return money(per) if per.adjusted() < 18 else None


def _buy(
    session: Session, c: Candidate, req: CompareRequest, s: Settings, model: ClassModel
) -> CandidateResult:
    if c.condition == "cloud":  # a bought build is priced at a market condition
        raise QuoteInputError("condition", "unknown value 'cloud'", list(get_args(MarketCondition)))
    cluster = ClusterRequest(
        gpu=c.gpu,
        count=c.count,
        task=req.task,
        precision=req.precision,
        deployment=c.deployment,
        allow_geforce=c.allow_geforce,
        condition=c.condition,
        gpu_price_usd=c.gpu_price_usd,
        utilization=req.utilization,
        electricity_usd_per_kwh=req.electricity_usd_per_kwh,
    )
    quote = compute_cluster(session, cluster, s, model)
    energy = money(Decimal(str(quote.yearly_power["usd"])) * Decimal(str(req.years)))
    total = quote.total_usd + energy
    hours = _busy_hours(req)
    work = quote.performance.relative_throughput * hours
    units = task_units(
        model,
        spec_of("candidates.gpu", c.gpu),
        req.task,
        req.precision,
        Ratio(quote.performance.relative_throughput, quote.performance.interval),
        quote.layout.node_counts,
        tp=quote.performance.tensor_parallel,
    )
    cost = over_hours(units, total, hours, "buying: the bill of materials and electricity")
    return CandidateResult(
        _label(c),
        "buy",
        c.gpu,
        c.count,
        total,
        quote.performance.relative_throughput,
        work,
        _per_work(total, work),
        capex_usd=quote.total_usd,
        energy_usd=energy,
        hours=hours,
        sources=[
            f"bill of materials ({len(quote.line_items)} lines)",
            f"electricity: {quote.yearly_power['electricity_source']}",
        ],
        warnings=quote.warnings,
        line_items=quote.line_items,
        throughput=units.as_dict(),
        cost_per_unit=cost.as_dict(),
    )


def _rent(
    session: Session, c: Candidate, req: CompareRequest, s: Settings, model: ClassModel
) -> CandidateResult:
    spec = spec_of("candidates.gpu", c.gpu)
    found = build_speedup(
        model, [spec], cloud_layout(spec, c.count), req.task, req.precision, "infiniband"
    )
    if found is None:
        raise QuoteInputError("precision", f"{c.gpu} cannot run {req.precision}")
    speed = found.single.relative_throughput * found.speedup
    low, high = found.interval
    units = task_units(
        model,
        spec,
        req.task,
        req.precision,
        Ratio(speed, (low * found.speedup, high * found.speedup)),
        cloud_layout(spec, c.count).node_counts,
        tp=found.tensor_parallel,
    )
    price, source = c.cloud_usd_per_hour, "request"
    if price is None:
        offer = cheapest_offer(
            session,
            c.gpu,
            c.pricing,
            Currency.from_settings(s, datetime.now(UTC)),
            s.cloud_quarantine_factor,
        )
        if offer is None:
            raise QuoteInputError(
                "candidates.cloud_usd_per_hour",
                f"no current {c.pricing} offer for {c.gpu}: give one",
            )
        price = offer.usd_per_gpu_hour
        source = (
            f"{offer.provider} {offer.instance_type} {offer.source} ({offer.observed_at:%Y-%m-%d})"
        )
    hours = c.rent_hours if c.rent_hours is not None else _busy_hours(req)
    overhead = d.SPOT_INTERRUPTION_OVERHEAD if c.pricing == "spot" else 0.0
    rent = money(price * c.count * Decimal(str(hours)))
    work = speed * hours / (1 + overhead)
    hourly = price * c.count
    cost = rented(units, hourly, (hourly, hourly), spot=c.pricing == "spot", spot_overhead=overhead)
    return CandidateResult(
        _label(c),
        "rent",
        c.gpu,
        c.count,
        rent,
        speed,
        work,
        _per_work(rent, work),
        rent_usd=rent,
        hours=hours,
        sources=[
            f"{c.pricing} ${price}/GPU-hour: {source}",
            f"spot overhead {overhead:.0%}: {d.SPOT_OVERHEAD_SOURCE}"
            if overhead
            else "on-demand: no interruptions",
        ],
        throughput=units.as_dict(),
        cost_per_unit=cost.as_dict(),
    )


def compare(
    session: Session, req: CompareRequest, settings: Settings, model: ClassModel
) -> CompareResult:
    results = []
    for candidate in req.candidates:
        run = _buy if candidate.acquisition == "buy" else _rent
        try:
            results.append(run(session, candidate, req, settings, model))
        except TcoInputError as exc:
            raise QuoteInputError(f"candidates.{exc.field}", exc.message, exc.valid) from exc
    ranked = sorted(
        results,
        key=lambda r: (
            r.usd_per_reference_gpu_hour is None,
            r.usd_per_reference_gpu_hour or Decimal(0),
        ),
    )
    for rank, result in enumerate(ranked, start=1):
        result.rank = rank
    return CompareResult(
        req.task,
        req.precision,
        req.years,
        req.utilization,
        _busy_hours(req),
        "reference-GPU-hour: one RTX 3090 working one hour at this task and precision",
        __doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
        results,
    )


def create_compare(
    session: Session, req: CompareRequest, settings: Settings, model: ClassModel
) -> Quote:
    """Compute and store the comparison; its total is the best candidate's."""
    result = compare(session, req, settings, model)
    best = min(result.candidates, key=lambda r: r.rank)
    ids = [c.gpu for c in req.candidates]
    return store(
        session, "compare", req, result, ids, best.total_usd, None, model_version=model.version
    )
