"""The share of a build that is not GPUs (DOMAIN.md section 3).

Dettmers adds a base system cost to the GPU prices: PCIe builds for 1-2 and 4 GPUs and
a Supermicro barebone for 8. The seed states one figure: a one-RTX-3090 desktop for
$2,200 (2-GPU barebone + GPU), so with the $1,499 launch price the 1-2 GPU base is
~$700. The 4- and 8-GPU figures are assumptions (Threadripper-class workstation with a
1,600 W+ PSU; 8-GPU server barebone) and are settings, so a deployment can override all
three. SXM/OAM modules only come on 8-GPU baseboards, so they always take the server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from shared.catalog.specs import GpuSpec
from shared.settings import Settings


@dataclass(frozen=True, slots=True)
class SystemCost:
    usd: Decimal
    nodes: int
    node_kind: str  # "desktop-1-2", "workstation-4", "server-8"
    basis: str


def _node(count: int, gpu: GpuSpec, settings: Settings) -> tuple[str, float, str]:
    if gpu.form_factor in {"sxm", "oam", "superchip"} or count > 4:
        return "server-8", settings.system_cost_8_gpu_usd, "assumption: 8-GPU server barebone"
    if count > 2:
        return (
            "workstation-4",
            settings.system_cost_4_gpu_usd,
            "assumption: 4-GPU workstation (Threadripper-class, 1,600 W+ PSU)",
        )
    return (
        "desktop-1-2",
        settings.system_cost_1_2_gpu_usd,
        "seed: $2,200 RTX 3090 desktop minus the $1,499 launch price",
    )


def system_cost(gpu: GpuSpec, count: int, settings: Settings) -> SystemCost:
    """Base system cost of a build of `count` GPUs (more than 8 means several servers)."""
    nodes = max(1, math.ceil(count / 8))
    kind, per_node, basis = _node(min(count, 8), gpu, settings)
    usd = (Decimal(str(per_node)) * nodes).quantize(Decimal("0.01"))
    return SystemCost(usd, nodes, kind, basis)
