"""A cluster quote: bill of materials, power, cooling, network, throughput and warnings.

Pure: `quote_cluster` takes the resolved GPU prices and settings and returns the quote;
the database work (prices, storing) is in `shared/quotes/service.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import scaling
from shared.perfmodel.power import MIN_CAP_FRACTION, power_limit
from shared.perfmodel.registry import get_model
from shared.quotes import constants as c
from shared.scoring.caveats import STALE_PRICE_DAYS, build_caveats
from shared.scoring.tasks import PRECISION_NAMES, TASKS
from shared.settings import Settings
from shared.tco import defaults as d
from shared.tco.inputs import TcoInputError
from shared.tco.model import kwh_per_year, money

MAX_GPUS = 512
SERVER_FORMS = frozenset({"sxm", "oam", "superchip"})


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
    deployment: str = "workstation"
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


@dataclass(frozen=True, slots=True)
class LineItem:
    category: str
    item: str
    quantity: int
    unit_usd: Decimal
    total_usd: Decimal
    basis: d.Basis
    source: str
    as_of: date | None = None


@dataclass(frozen=True, slots=True)
class Layout:
    deployment: str
    node_kind: str
    nodes: int
    # The fullest node (PSU, cooling and RAM are sized for it); node_counts has them all.
    gpus_per_node: int
    total_gpus: int
    node_counts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Performance:
    relative_throughput: float
    interval: tuple[float, float]
    single_gpu_relative: float
    per_node_speedup: float
    total_speedup: float
    power_limit_factor: float
    basis: str
    reference_gpu: str
    model_version: str
    network: str | None


@dataclass(frozen=True, slots=True)
class PowerPlan:
    gpu_watts: float
    system_watts_per_node: int
    node_watts: float
    psu_watts_needed: float
    psu_watts: int
    headroom: float
    over_us_outlet: bool
    total_kw: float
    racks: int | None
    suggested_power_limit: dict[str, float] | None


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
        "deployment": (req.deployment, c.DEPLOYMENTS),
        "network": (req.network, c.NETWORKS),
        "condition": (req.condition, ("new", "used", "any")),
    }
    for name, (value, valid) in choices.items():
        if value not in valid:
            raise QuoteInputError(name, f"unknown value {value!r}", list(valid))
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


# -- layout and performance -------------------------------------------------------------


def layout_for(specs: list[GpuSpec], total: int, deployment: str) -> Layout:
    modules = any(s.form_factor in SERVER_FORMS for s in specs)
    if deployment == "datacenter" or modules:
        kind, per = "server-8", c.SERVER_GPUS
    else:
        kind, per = ("desktop-1-2" if total <= 2 else "workstation-4"), c.WORKSTATION_MAX_GPUS
    counts = scaling.balanced_nodes(total, per)
    return Layout(deployment, kind, len(counts), max(counts), total, tuple(counts))


def _factor(specs: list[GpuSpec], cap: float | None) -> float:
    if cap is None:
        return 1.0
    factors = []
    for spec in specs:
        try:
            factors.append(power_limit(spec, cap).throughput_factor)
        except ValueError as exc:
            valid = [f">= {MIN_CAP_FRACTION * spec.tdp_w:g} W for {spec.id}"]
            raise QuoteInputError("power_limit_w", str(exc), valid) from exc
    return min(factors)


def performance(
    specs: list[GpuSpec], lay: Layout, task: str, precision: str, network: str, cap: float | None
) -> Performance:
    """Mixed types run at the slowest card's pace (DOMAIN4), with its scaling."""
    model = get_model()
    predictions = [model.predict(s, task, precision) for s in specs]
    if any(p is None for p in predictions):
        bad = [s.id for s, p in zip(specs, predictions, strict=True) if p is None]
        raise QuoteInputError("precision", f"{', '.join(bad)} cannot run {precision}")
    slowest = min((p for p in predictions if p is not None), key=lambda p: p.relative_throughput)
    net = c.MODEL_NETWORK[network]
    node = min(model.cluster_speedup(s, [lay.gpus_per_node], net) for s in specs)
    counts = list(lay.node_counts)
    total = min(model.cluster_speedup(s, counts, net) for s in specs)
    factor = _factor(specs, cap)
    scale = total * factor
    low, high = slowest.interval
    return Performance(
        slowest.relative_throughput * scale,
        (low * scale, high * scale),
        slowest.relative_throughput,
        node,
        total,
        factor,
        slowest.basis,
        slowest.reference_gpu,
        slowest.model_version,
        network if lay.nodes > 1 else None,
    )


def resolve_count(req: ClusterRequest, spec: GpuSpec) -> int:
    """`count`, or the fewest GPUs meeting the memory and throughput targets."""
    if req.count is not None:
        if not 1 <= req.count <= MAX_GPUS:
            raise QuoteInputError("count", "out of range", [f"1-{MAX_GPUS}"])
        return req.count
    count = 1
    if req.memory_gb is not None:
        count = max(count, math.ceil(req.memory_gb / spec.memory_gb))
    if req.target_relative_throughput is not None:
        count = max(count, _count_for_throughput(req, spec, req.target_relative_throughput))
    if count > MAX_GPUS:
        raise QuoteInputError("memory_gb", f"needs {count} GPUs", [f"at most {MAX_GPUS} GPUs"])
    return count


def _count_for_throughput(req: ClusterRequest, spec: GpuSpec, target: float) -> int:
    for count in range(1, MAX_GPUS + 1):
        lay = layout_for([spec], count, req.deployment)
        perf = performance([spec], lay, req.task, req.precision, req.network, req.power_limit_w)
        if perf.relative_throughput >= target:
            return count
    raise QuoteInputError(
        "target_relative_throughput",
        f"{MAX_GPUS} x {spec.id} do not reach {target:g}",
        [f"a target below {MAX_GPUS} GPUs' throughput"],
    )


# -- power, cooling, network ------------------------------------------------------------


def _psu_size(watts: float) -> int:
    for size in c.PSU_SIZES_W:
        if size >= watts:
            return size
    return int(math.ceil(watts / 100) * 100)


def power_plan(specs: list[GpuSpec], lay: Layout, cap: float | None) -> tuple[PowerPlan, float]:
    """The plan, and the watts per GPU used (TDP or the power limit)."""
    gpu_w = max(min(float(s.tdp_w), cap) if cap else float(s.tdp_w) for s in specs)
    system = (
        d.SYSTEM_WATTS_8 if lay.node_kind == "server-8" else d.system_watts_for(lay.gpus_per_node)
    )
    node_w = lay.gpus_per_node * gpu_w + system
    needed = node_w * (1 + c.PSU_HEADROOM)
    over = lay.deployment == "workstation" and needed > c.US_OUTLET_PSU_W
    # Every node at its own GPU count: 9 GPUs in two servers draw for 9, not 10.
    total_kw = (lay.total_gpus * gpu_w + lay.nodes * system) / 1000
    racks = math.ceil(total_kw / c.RACK_KW) if lay.deployment == "datacenter" else None
    suggestion = _suggest_limit(specs[0], lay, system) if over else None
    plan = PowerPlan(
        gpu_w,
        system,
        node_w,
        round(needed),
        _psu_size(needed),
        c.PSU_HEADROOM,
        over,
        round(total_kw, 2),
        racks,
        suggestion,
    )
    return plan, gpu_w


def _suggest_limit(spec: GpuSpec, lay: Layout, system_w: int) -> dict[str, float] | None:
    """The highest cap (5 W steps) that fits a 1,600 W PSU with headroom, and its cost."""
    budget = c.US_OUTLET_PSU_W / (1 + c.PSU_HEADROOM) - system_w
    cap = math.floor(budget / lay.gpus_per_node / 5) * 5
    if cap < MIN_CAP_FRACTION * spec.tdp_w:
        return None
    limit = power_limit(spec, cap)
    return {
        "cap_w": float(cap),
        "throughput_factor": round(limit.throughput_factor, 4),
        "speed_cost_pct": round((1 - limit.throughput_factor) * 100, 1),
        "saved_w_per_node": limit.saved_w_per_gpu * lay.gpus_per_node,
        "node_watts": cap * lay.gpus_per_node + system_w,
    }


def cooling_check(specs: list[GpuSpec], lay: Layout) -> dict[str, object]:
    wide = [s for s in specs if s.form_factor == "pcie" and s.slot_width >= 3]
    issue = bool(wide) and lay.gpus_per_node >= c.COOLING_MIN_CARDS
    return {
        "max_slot_width": max(s.slot_width for s in specs),
        "issue": issue,
        "fix": (
            "blower or water-cooled cards, 2-slot variants, or PCIe extenders (risers priced)"
            if issue and lay.deployment == "workstation"
            else "2-slot or blower variants: 8-GPU servers take double-width cards"
            if issue
            else None
        ),
        "source": f"{c.DOMAIN4}: 3-slot cards need them for a 4x build",
    }


def network_plan(specs: list[GpuSpec], lay: Layout, network: str) -> dict[str, object]:
    intra = sorted({scaling.interconnect_class(s) for s in specs})
    plan: dict[str, object] = {"intra_node": intra, "nodes": lay.nodes}
    if lay.nodes == 1:
        plan["inter_node"] = None
        return plan
    gbits = c.IB_GBITS if network == "infiniband" else c.ETH_GBITS
    plan.update(
        inter_node=network,
        link_gbits=gbits,
        meets_minimum=gbits >= c.IB_MIN_GBITS,
        minimum_gbits=c.IB_MIN_GBITS,
        switch_ports=lay.nodes,
        switches=math.ceil(lay.nodes / c.SWITCH_RADIX),
        efficiency_per_doubling=get_model().network_efficiency(c.MODEL_NETWORK[network]),
        source=f"{c.DOMAIN4}: >= 50 Gbit/s (EDR InfiniBand) between machines",
    )
    return plan


# -- bill of materials ------------------------------------------------------------------


def _line(
    category: str,
    item: str,
    qty: int,
    unit: Decimal,
    basis: d.Basis,
    source: str,
    as_of: date | None = None,
) -> LineItem:
    return LineItem(category, item, qty, money(unit), money(unit * qty), basis, source, as_of)


def _node_base(lay: Layout, settings: Settings) -> LineItem:
    usd, source = {
        "desktop-1-2": (
            settings.system_cost_1_2_gpu_usd,
            "seed: $2,200 RTX 3090 desktop minus the $1,499 launch price (setting)",
        ),
        "workstation-4": (
            settings.system_cost_4_gpu_usd,
            "assumption: 4-GPU workstation, Threadripper-class, 1,600 W PSU (setting)",
        ),
        "server-8": (settings.system_cost_8_gpu_usd, "assumption: 8-GPU server barebone (setting)"),
    }[lay.node_kind]
    name = f"{lay.node_kind} node base (chassis, board, CPU, boot storage, PSU, cooling)"
    return _line("node", name, lay.nodes, Decimal(str(usd)), "assumption", source)


def _ram(specs: list[GpuSpec], lay: Layout) -> LineItem:
    gpu_memory = lay.gpus_per_node * max(s.memory_gb for s in specs)
    extra = max(0, math.ceil(gpu_memory - c.RAM_INCLUDED_GB[lay.node_kind]))
    item = (
        f"CPU/RAM/storage allowance: +{extra} GB RAM per node to match {gpu_memory:g} GB of "
        f"GPU memory ({c.RAM_INCLUDED_GB[lay.node_kind]} GB, CPU and storage in the base)"
    )
    return _line(
        "cpu-ram-storage", item, lay.nodes, c.RAM_USD_PER_GB * extra, "assumption", c.RAM_SOURCE
    )


def _psu(lay: Layout, plan: PowerPlan) -> LineItem:
    sizing = (
        f"{plan.node_watts:g} W per node (GPUs {plan.gpu_watts:g} W x {lay.gpus_per_node} + "
        f"system {plan.system_watts_per_node} W) + {plan.headroom:.0%} headroom "
        f"= {plan.psu_watts_needed:g} W -> {plan.psu_watts} W PSU"
    )
    if lay.node_kind == "workstation-4" and plan.psu_watts > c.WORKSTATION_BASE_PSU_W:
        return _line(
            "psu",
            f"second PSU: {sizing}",
            lay.nodes,
            c.EXTRA_PSU_USD,
            "assumption",
            c.EXTRA_PSU_SOURCE,
        )
    source = f"{c.DOMAIN4}: GPU + system watts; PSU in the node base"
    return _line("psu", sizing, lay.nodes, Decimal(0), "assumption", source)


def _cooling(lay: Layout, cooling: dict[str, object]) -> list[LineItem]:
    if not cooling["issue"] or lay.deployment != "workstation":
        return []
    return [
        _line(
            "cooling",
            "PCIe riser/extender per card (3-slot cards, 4 per node)",
            lay.total_gpus,
            c.RISER_USD,
            "assumption",
            c.RISER_SOURCE,
        )
    ]


def _network(lay: Layout, network: str) -> list[LineItem]:
    if lay.nodes == 1:
        return []
    if network == "infiniband":
        parts = [
            ("HCA", c.IB_HCA_USD),
            ("switch port", c.IB_SWITCH_PORT_USD),
            ("cable", c.IB_CABLE_USD),
        ]
        name, source = f"InfiniBand HDR {c.IB_GBITS} Gbit/s", c.IB_SOURCE
    else:
        parts = [
            ("NIC", c.ETH_NIC_USD),
            ("switch port", c.ETH_SWITCH_PORT_USD),
            ("cable", c.ETH_CABLE_USD),
        ]
        name, source = f"Ethernet {c.ETH_GBITS} Gbit/s", c.ETH_SOURCE
    return [
        _line("network", f"{name} {part}", lay.nodes, usd, "assumption", source)
        for part, usd in parts
    ]


def _gpu_lines(picks: list[GpuPick]) -> list[LineItem]:
    lines = []
    for pick in picks:
        name = load_catalog().by_id[pick.gpu_id].name
        lines.append(
            _line(
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


def _licence(specs: list[GpuSpec], req: ClusterRequest) -> tuple[list[str], list[str], bool]:
    geforce = [s.id for s in specs if s.geforce_eula]
    if not geforce or req.deployment != "datacenter":
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


def quote_cluster(req: ClusterRequest, picks: list[GpuPick], settings: Settings) -> ClusterQuote:
    """The quote for `picks` (the first is `req.gpu`); prices already resolved."""
    specs = [load_catalog().by_id[p.gpu_id] for p in picks]
    counts = {p.gpu_id: p.count for p in picks}
    lay = layout_for(specs, sum(counts.values()), req.deployment)
    perf = performance(specs, lay, req.task, req.precision, req.network, req.power_limit_w)
    plan, _ = power_plan(specs, lay, req.power_limit_w)
    cooling = cooling_check(specs, lay)
    lines = [
        *_gpu_lines(picks),
        _node_base(lay, settings),
        _ram(specs, lay),
        _psu(lay, plan),
        *_cooling(lay, cooling),
        *_network(lay, req.network),
    ]
    total = money(sum((line.total_usd for line in lines), Decimal(0)))
    licence, licence_notes, licence_issue = _licence(specs, req)
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
    notes = [*licence_notes, *_gpu_caveats(specs, picks)]
    return ClusterQuote(
        request=req,
        gpus=picks,
        layout=lay,
        performance=perf,
        power=plan,
        cooling=cooling,
        network=network_plan(specs, lay, req.network),
        line_items=lines,
        total_usd=total,
        perf_per_1000_usd=perf.relative_throughput / float(total) * 1000 if total else 0.0,
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
