"""A build's power: watts per node, PSU size, outlet and rack limits; and its cooling."""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.builds import assumptions as d
from shared.builds import constants as c
from shared.builds.layout import Layout
from shared.catalog.specs import GpuSpec
from shared.perfmodel.power import MIN_CAP_FRACTION, power_limit


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
