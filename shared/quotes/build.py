"""A cluster quote: the build (shared/builds) plus the GPU lines, warnings and notes.

Pure: `quote_cluster` takes the resolved GPU prices and settings and returns the quote;
the database work (prices, storing) is in `shared/quotes/store.py`. Layout, system
cost and speed come from the one build model, as on /recommend, TCO and /model/predict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal

from shared.builds import assumptions as d
from shared.builds import constants as c
from shared.builds.bom import LineItem, line, network_plan
from shared.builds.build import Build, build_speed, check_choices, perf_per_1000_usd, plan_build
from shared.builds.errors import BuildInputError
from shared.builds.layout import Layout, plan_layout
from shared.builds.power import PowerPlan
from shared.builds.speed import Performance, performance
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.scoring.caveats import STALE_PRICE_DAYS, build_caveats
from shared.tco.inputs import TcoInputError
from shared.tco.model import kwh_per_year

MAX_GPUS = 512


class QuoteInputError(TcoInputError):
    """Bad quote input: the field and its valid values (422 in the API, exit 2 in the CLI)."""


@dataclass(frozen=True, slots=True)
class GpuPick:
    """The GPUs of one type in a build and the price they are quoted at."""

    gpu_id: str
    count: int
    unit_usd: Decimal
    condition: str
    basis: d.Basis
    source: str
    as_of: date | None


@dataclass(frozen=True, slots=True)
class ClusterRequest:
    gpu: str
    count: int | None = None
    target_relative_throughput: float | None = None
    memory_gb: float | None = None
    task: str = "cv"
    precision: str = "fp16"
    deployment: str = c.AUTO
    budget_usd: Decimal | None = None
    allow_geforce: bool = False
    power_limit_w: float | None = None
    network: str = "infiniband"
    condition: str = "any"
    additional_gpus: tuple[tuple[str, int], ...] = ()
    gpu_price_usd: Decimal | None = None
    utilization: float | None = None
    electricity_usd_per_kwh: Decimal | None = None
    pue: float | None = None


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


# -- validation -------------------------------------------------------------------------


def spec_of(field_name: str, gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise QuoteInputError(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec


def validate(req: ClusterRequest) -> None:
    choices = {
        "task": (req.task, tuple(TASKS)),
        "precision": (req.precision, PRECISION_NAMES),
        "condition": (req.condition, ("new", "used", "any")),
    }
    for name, (value, valid) in choices.items():
        if value not in valid:
            raise QuoteInputError(name, f"unknown value {value!r}", list(valid))
    try:
        check_choices(req.deployment, req.network)
    except BuildInputError as exc:
        raise QuoteInputError(exc.field, exc.message, exc.valid) from exc
    spec_of("gpu", req.gpu)
    for gpu_id, count in req.additional_gpus:
        spec_of("additional_gpus", gpu_id)
        if not 1 <= count <= MAX_GPUS:
            raise QuoteInputError("additional_gpus", "count out of range", [f"1-{MAX_GPUS}"])
    if req.count is not None and (req.target_relative_throughput or req.memory_gb):
        raise QuoteInputError(
            "count",
            "give count or a target, not both",
            ["count", "target_relative_throughput", "memory_gb"],
        )


# -- how many GPUs ----------------------------------------------------------------------


def _build(req: ClusterRequest, specs: list[GpuSpec], total: int, settings: Settings) -> Build:
    return plan_build(specs, total, settings, req.deployment, req.network, req.power_limit_w)


def resolve_count(req: ClusterRequest, spec: GpuSpec, model: ClassModel) -> int:
    """`count`, or the fewest GPUs meeting the memory and throughput targets."""
    if req.count is not None:
        if not 1 <= req.count <= MAX_GPUS:
            raise QuoteInputError("count", "out of range", [f"1-{MAX_GPUS}"])
        return req.count
    count = 1
    if req.memory_gb is not None:
        count = max(count, math.ceil(req.memory_gb / spec.memory_gb))
    if req.target_relative_throughput is not None:
        count = max(count, _count_for_throughput(req, spec, req.target_relative_throughput, model))
    if count > MAX_GPUS:
        raise QuoteInputError("memory_gb", f"needs {count} GPUs", [f"at most {MAX_GPUS} GPUs"])
    return count


def _count_for_throughput(
    req: ClusterRequest, spec: GpuSpec, target: float, model: ClassModel
) -> int:
    for count in range(1, MAX_GPUS + 1):
        lay = plan_layout([spec], count, req.deployment)
        perf = performance(
            model, [spec], lay, req.task, req.precision, req.network, req.power_limit_w
        )
        if perf.relative_throughput >= target:
            return count
    raise QuoteInputError(
        "target_relative_throughput",
        f"{MAX_GPUS} x {spec.id} do not reach {target:g}",
        [f"a target below {MAX_GPUS} GPUs' throughput"],
    )


# -- GPU lines --------------------------------------------------------------------------


def _gpu_lines(picks: list[GpuPick]) -> list[LineItem]:
    lines = []
    for pick in picks:
        name = load_catalog().by_id[pick.gpu_id].name
        lines.append(
            line(
                "gpu",
                f"{name} ({pick.condition})",
                pick.count,
                pick.unit_usd,
                pick.basis,
                pick.source,
                pick.as_of,
            )
        )
    return lines


# -- warnings ---------------------------------------------------------------------------


def _licence(
    specs: list[GpuSpec], lay: Layout, req: ClusterRequest
) -> tuple[list[str], list[str], bool]:
    geforce = [s.id for s in specs if s.geforce_eula]
    if not geforce or lay.deployment != "datacenter":
        return [], [], False
    if req.allow_geforce:
        return [], [f"allow_geforce: licence exemption assumed for {', '.join(geforce)}"], False
    warning = (
        f"licence: the GeForce/TITAN driver EULA bars {', '.join(geforce)} from datacenters "
        "(universities sometimes get exemptions: allow_geforce=true); "
        "otherwise use workstation/datacenter cards (e.g. RTX A6000, RTX 6000 Ada)"
    )
    return [warning], [], True


def _power_warnings(plan: PowerPlan, lay: Layout) -> list[str]:
    if not plan.over_us_outlet:
        return []
    text = (
        f"power: {plan.node_watts:g} W per workstation needs a {plan.psu_watts} W PSU: over "
        f"the {c.US_OUTLET_PSU_W} W a single US outlet can feed ({c.DOMAIN4}); use a 240 V "
        "circuit or two circuits, or power-limit the cards"
    )
    limit = plan.suggested_power_limit
    if limit:
        text += (
            f"; suggested power limit {limit['cap_w']:g} W per GPU: -{limit['speed_cost_pct']:g} % "
            f"throughput (performance model), {limit['node_watts']:g} W per node"
        )
    return [text]


def _chassis_warnings(specs: list[GpuSpec], lay: Layout, counts: dict[str, int]) -> list[str]:
    notes = []
    heavy = [s for s in specs if s.geforce_eula and s.tdp_w >= c.RTX_3090_CLASS_W]
    if (
        heavy
        and lay.deployment == "workstation"
        and lay.gpus_per_node > c.MAX_3090_CLASS_PER_WORKSTATION
    ):
        notes.append(
            f"{lay.gpus_per_node} RTX 3090-class cards per workstation: no more than "
            f"{c.MAX_3090_CLASS_PER_WORKSTATION} per chassis ({c.DOMAIN4})"
        )
    if any(s.geforce_eula for s in specs) and lay.gpus_per_node > c.MAX_GEFORCE_PER_MACHINE:
        notes.append(
            f"more than {c.MAX_GEFORCE_PER_MACHINE} GeForce cards per machine "
            f"parallelize inefficiently (no P2P; {c.DOMAIN4})"
        )
    if len(counts) > 1:
        notes.append(
            f"mixed GPU types ({', '.join(f'{n}x {g}' for g, n in counts.items())}): "
            f"they parallelize at the slowest card's pace ({c.DOMAIN4}); quoted that way"
        )
    return notes


def _cooling_warning(cooling: dict[str, object], lay: Layout) -> list[str]:
    if not cooling["issue"]:
        return []
    return [f"cooling: 3-slot cards, {lay.gpus_per_node} per node: {cooling['fix']}"]


def _network_warnings(lay: Layout, network: str) -> list[str]:
    notes = []
    if lay.nodes > 1 and network == "ethernet":
        notes.append(
            f"network: {c.ETH_GBITS} GbE between {lay.nodes} nodes is below the "
            f"{c.IB_MIN_GBITS} Gbit/s needed for multi-node speed-ups ({c.DOMAIN4}); "
            "only for special algorithms (e.g. DeepSpeed); use InfiniBand"
        )
    if lay.nodes > c.SWITCH_RADIX:
        notes.append(
            f"{lay.nodes} nodes exceed one {c.SWITCH_RADIX}-port switch: a two-level "
            "fabric is needed (priced per port only)"
        )
    return notes


# -- the quote --------------------------------------------------------------------------


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
    lines = [*_gpu_lines(picks), *build.system_lines]
    total = money(sum((item.total_usd for item in lines), Decimal(0)))
    licence, licence_notes, licence_issue = _licence(specs, lay, req)
    warnings = [
        *licence,
        *_power_warnings(plan, lay),
        *_cooling_warning(cooling, lay),
        *_chassis_warnings(specs, lay, counts),
        *_network_warnings(lay, req.network),
    ]
    within = None if req.budget_usd is None else total <= req.budget_usd
    if within is False:
        warnings.append(f"budget: total ${total:,.2f} exceeds budget_usd ${req.budget_usd:,.2f}")
    notes = [f"layout: {lay.describe()}; {lay.reason}", *licence_notes]
    notes += _gpu_caveats(specs, picks)
    efficiency = model.network_efficiency(c.MODEL_NETWORK[req.network])
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
        yearly_power=yearly_power(req, lay, plan),
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
