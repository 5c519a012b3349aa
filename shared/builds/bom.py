"""A build's bill of materials around the GPUs: node bases, RAM, PSUs, cooling, network.

Every item is an assumption or a docs/domain.md rule, labelled as such; the GPU lines (scraped
or given prices) are added by the caller. Node bases are settings: Dettmers' one figure is
a one-RTX-3090 desktop for $2,200 (2-GPU barebone + GPU), so with the $1,499 launch price
the 1-2 GPU base is ~$700; the 4-GPU (Threadripper-class, 1,600 W PSU) and 8-GPU (server
barebone) figures are assumptions a deployment can override.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from shared.builds import assumptions as d
from shared.builds import constants as c
from shared.builds.layout import Layout
from shared.builds.power import PowerPlan
from shared.catalog.specs import GpuSpec
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel import scaling


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


def line(
    category: str,
    item: str,
    qty: int,
    unit: Decimal,
    basis: d.Basis,
    source: str,
    as_of: date | None = None,
) -> LineItem:
    return LineItem(category, item, qty, money(unit), money(unit * qty), basis, source, as_of)


def node_base(lay: Layout, settings: Settings) -> LineItem:
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
    return line("node", name, lay.nodes, Decimal(str(usd)), "assumption", source)


def ram(specs: list[GpuSpec], lay: Layout) -> LineItem:
    gpu_memory = lay.gpus_per_node * max(s.memory_gb for s in specs)
    extra = max(0, math.ceil(gpu_memory - c.RAM_INCLUDED_GB[lay.node_kind]))
    item = (
        f"CPU/RAM/storage allowance: +{extra} GB RAM per node to match {gpu_memory:g} GB of "
        f"GPU memory ({c.RAM_INCLUDED_GB[lay.node_kind]} GB, CPU and storage in the base)"
    )
    return line(
        "cpu-ram-storage", item, lay.nodes, c.RAM_USD_PER_GB * extra, "assumption", c.RAM_SOURCE
    )


def psu(lay: Layout, plan: PowerPlan) -> LineItem:
    sizing = (
        f"{plan.node_watts:g} W per node (GPUs {plan.gpu_watts:g} W x {lay.gpus_per_node} + "
        f"system {plan.system_watts_per_node} W) + {plan.headroom:.0%} headroom "
        f"= {plan.psu_watts_needed:g} W -> {plan.psu_watts} W PSU"
    )
    if lay.node_kind == "workstation-4" and plan.psu_watts > c.WORKSTATION_BASE_PSU_W:
        return line(
            "psu",
            f"second PSU: {sizing}",
            lay.nodes,
            c.EXTRA_PSU_USD,
            "assumption",
            c.EXTRA_PSU_SOURCE,
        )
    source = f"{c.DOMAIN4}: GPU + system watts; PSU in the node base"
    return line("psu", sizing, lay.nodes, Decimal(0), "assumption", source)


def cooling_lines(lay: Layout, cooling: dict[str, object]) -> list[LineItem]:
    if not cooling["issue"] or lay.deployment != "workstation":
        return []
    return [
        line(
            "cooling",
            "PCIe riser/extender per card (3-slot cards, 4 per node)",
            lay.total_gpus,
            c.RISER_USD,
            "assumption",
            c.RISER_SOURCE,
        )
    ]


def network_lines(lay: Layout, network: str) -> list[LineItem]:
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
        line("network", f"{name} {part}", lay.nodes, usd, "assumption", source)
        for part, usd in parts
    ]


def network_plan(
    specs: list[GpuSpec], lay: Layout, network: str, efficiency: float
) -> dict[str, object]:
    """Links inside and between machines; `efficiency` is the model's per doubling of
    nodes on this network."""
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
        efficiency_per_doubling=efficiency,
        source=f"{c.DOMAIN4}: >= 50 Gbit/s (EDR InfiniBand) between machines",
    )
    return plan


def system_lines(
    specs: list[GpuSpec],
    lay: Layout,
    plan: PowerPlan,
    cooling: dict[str, object],
    network: str,
    settings: Settings,
) -> list[LineItem]:
    """Everything but the GPUs, one line per kind of part."""
    return [
        node_base(lay, settings),
        ram(specs, lay),
        psu(lay, plan),
        *cooling_lines(lay, cooling),
        *network_lines(lay, network),
    ]
