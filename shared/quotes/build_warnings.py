"""What a quote warns about: licence, power, chassis, cooling and network limits."""

from __future__ import annotations

from shared.builds import constants as c
from shared.builds.layout import Layout
from shared.builds.power import PowerPlan
from shared.catalog.specs import GpuSpec
from shared.quotes.schemas import ClusterRequest


def licence_warnings(
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


def power_warnings(plan: PowerPlan, lay: Layout) -> list[str]:
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


def chassis_warnings(specs: list[GpuSpec], lay: Layout, counts: dict[str, int]) -> list[str]:
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


def cooling_warning(cooling: dict[str, object], lay: Layout) -> list[str]:
    if not cooling["issue"]:
        return []
    return [f"cooling: 3-slot cards, {lay.gpus_per_node} per node: {cooling['fix']}"]


def network_warnings(lay: Layout, network: str) -> list[str]:
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
