"""A cluster quote: the build (shared/builds) plus the GPU lines, warnings and notes.

Pure: `quote_cluster` takes the resolved GPU prices and settings and returns the quote;
the database work (prices, storing) is in `shared/quotes/store.py`. Layout, system
cost and speed come from the one build model, as on /recommend, TCO and /model/predict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from shared.builds import assumptions as d
from shared.builds import constants as c
from shared.builds import unit_cost
from shared.builds.bom import LineItem, network_plan
from shared.builds.build import Build, build_speed, perf_per_1000_usd, plan_build
from shared.builds.layout import Layout
from shared.builds.power import PowerPlan
from shared.builds.speed import Performance
from shared.builds.throughput import task_units
from shared.builds.unit_cost import OwnTerms
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel.absolute import Ratio
from shared.perfmodel.classmodel import ClassModel
from shared.quotes.build_warnings import (
    chassis_warnings,
    cooling_warning,
    licence_warnings,
    network_warnings,
    power_warnings,
)
from shared.quotes.lines import GpuPick, gpu_lines
from shared.quotes.schemas import ClusterRequest
from shared.scoring.caveats import STALE_PRICE_DAYS, build_caveats
from shared.tco.model import kwh_per_year


@dataclass(slots=True)
class ClusterQuote:
    request: ClusterRequest
    gpus: list[GpuPick]
    layout: Layout
    performance: Performance
    power: PowerPlan
    cooling: dict[str, object]
    network: dict[str, object]
    line_items: list[LineItem]
    total_usd: Decimal
    perf_per_1000_usd: float
    yearly_power: dict[str, object]
    within_budget: bool | None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    flags: dict[str, bool] = field(default_factory=dict)
    # The build's throughput in the task's unit, and its dollars per unit owned over the
    # TCO horizon at the quote's utilization (issue 38).
    throughput: dict[str, Any] | None = None
    cost_per_unit: dict[str, Any] | None = None


def _build(req: ClusterRequest, specs: list[GpuSpec], total: int, settings: Settings) -> Build:
    return plan_build(specs, total, settings, req.deployment, req.network, req.power_limit_w)


def quote_cluster(
    req: ClusterRequest,
    picks: list[GpuPick],
    settings: Settings,
    model: ClassModel,
) -> ClusterQuote:
    """The quote for `picks` (the first is `req.gpu`); prices already resolved."""
    specs = [load_catalog().by_id[p.gpu_id] for p in picks]
    counts = {p.gpu_id: p.count for p in picks}
    build = _build(req, specs, sum(counts.values()), settings)
    lay, plan, cooling = build.layout, build.power, build.cooling
    perf = build_speed(model, build, specs, req.task, req.precision, req.power_limit_w)
    lines = [*gpu_lines(picks), *build.system_lines]
    total = money(sum((item.total_usd for item in lines), Decimal(0)))
    licence, licence_notes, licence_issue = licence_warnings(specs, lay, req)
    warnings = [
        *licence,
        *power_warnings(plan, lay),
        *cooling_warning(cooling, lay),
        *chassis_warnings(specs, lay, counts),
        *network_warnings(lay, req.network),
    ]
    within = None if req.budget_usd is None else total <= req.budget_usd
    if within is False:
        warnings.append(f"budget: total ${total:,.2f} exceeds budget_usd ${req.budget_usd:,.2f}")
    notes = [f"layout: {lay.describe()}; {lay.reason}", *licence_notes]
    notes += _gpu_caveats(specs, picks)
    efficiency = model.network_efficiency(c.MODEL_NETWORK[req.network])
    power = yearly_power(req, lay, plan)
    units = task_units(
        model,
        specs[0],
        req.task,
        req.precision,
        Ratio(perf.relative_throughput, perf.interval),
        lay.node_counts,
        tp=perf.tensor_parallel,
    )
    terms = OwnTerms(
        utilization=float(str(power["utilization"])),
        electricity_usd_per_kwh=Decimal(str(power["electricity_usd_per_kwh"])),
        pue=float(str(power["pue"])),
    )
    cost = unit_cost.owned(units, total, (total, total), build.busy_watts, terms)
    return ClusterQuote(
        request=req,
        gpus=picks,
        layout=lay,
        performance=perf,
        power=plan,
        cooling=cooling,
        network=network_plan(specs, lay, req.network, efficiency),
        line_items=lines,
        total_usd=total,
        perf_per_1000_usd=perf_per_1000_usd(perf.relative_throughput, total),
        yearly_power=power,
        within_budget=within,
        warnings=warnings,
        notes=notes,
        flags={
            "licence": licence_issue,
            "psu_over_outlet": plan.over_us_outlet,
            "cooling": bool(cooling["issue"]),
            "mixed_types": len(counts) > 1,
            "multi_node": lay.nodes > 1,
        },
        throughput=units.as_dict(),
        cost_per_unit=cost.as_dict(),
    )


def _gpu_caveats(specs: list[GpuSpec], picks: list[GpuPick]) -> list[str]:
    """The per-card caveats /recommend shows (Tensor Cores, AMD, SXM), and old prices.

    Price age is stated by date, not in days, so a stored quote does not change daily.
    """
    notes: list[str] = []
    for spec, pick in zip(specs, picks, strict=True):
        for note in build_caveats(spec, 1, None, datetime.now(UTC)):
            if "licence" not in note:
                notes.append(f"{spec.id}: {note}")
        if pick.as_of is not None and (date.today() - pick.as_of).days > STALE_PRICE_DAYS:
            notes.append(f"{spec.id}: price observed {pick.as_of}, more than a year ago")
    return notes


def yearly_power(req: ClusterRequest, lay: Layout, plan: PowerPlan) -> dict[str, object]:
    datacenter = lay.deployment == "datacenter"
    utilization = (
        req.utilization
        if req.utilization is not None
        else (d.DATACENTER_UTILIZATION if datacenter else d.UTILIZATION)
    )
    pue = req.pue if req.pue is not None else (d.DATACENTER_PUE if datacenter else d.PUE)
    price = req.electricity_usd_per_kwh or d.ELECTRICITY_USD_PER_KWH
    watts = lay.total_gpus * plan.gpu_watts + lay.nodes * plan.system_watts_per_node
    kwh = kwh_per_year(watts, utilization, pue)
    return {
        "kwh": round(kwh, 1),
        "usd": money(Decimal(str(kwh)) * price),
        "co2_kg": round(kwh * d.CARBON_KG_PER_KWH, 1),
        "utilization": utilization,
        "utilization_source": "request"
        if req.utilization is not None
        else (d.DATACENTER_UTILIZATION_SOURCE if datacenter else d.UTILIZATION_SOURCE),
        "pue": pue,
        "pue_source": "request"
        if req.pue is not None
        else (d.DATACENTER_PUE_SOURCE if datacenter else d.PUE_SOURCE),
        "electricity_usd_per_kwh": price,
        "electricity_source": "request" if req.electricity_usd_per_kwh else d.ELECTRICITY_SOURCE,
        "carbon_source": d.CARBON_SOURCE,
    }
