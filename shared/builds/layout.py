"""How a build's GPUs are spread over machines: the one layout rule every caller uses.

A workstation holds up to 4 GPUs (a desktop up to 2), a server 8; SXM/OAM modules and
superchips only come on server baseboards. Several machines are balanced (9 GPUs are
5 + 4, not 8 + 1) and joined by the build's network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.builds import constants as c
from shared.catalog.specs import GpuSpec
from shared.perfmodel.scaling import balanced_nodes

SERVER_FORMS = frozenset({"sxm", "oam", "superchip"})


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the GPUs sit. `deployment` is resolved (never "auto")."""

    deployment: str
    node_kind: str  # "desktop-1-2", "workstation-4", "server-8"
    nodes: int
    # The fullest node (PSU, cooling and RAM are sized for it); node_counts has them all.
    gpus_per_node: int
    total_gpus: int
    node_counts: tuple[int, ...]
    # Why this deployment, when the caller left it to "auto".
    reason: str

    def describe(self) -> str:
        """One line for answers: '2x workstation-4 (3+3 GPUs, workstation)'."""
        counts = "+".join(str(n) for n in self.node_counts)
        return f"{self.nodes}x {self.node_kind} ({counts} GPUs, {self.deployment})"

    def as_dict(self) -> dict[str, object]:
        return {
            "deployment": self.deployment,
            "node_kind": self.node_kind,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "node_counts": list(self.node_counts),
            "total_gpus": self.total_gpus,
            "reason": self.reason,
        }


def default_deployment(specs: Sequence[GpuSpec], total: int) -> tuple[str, str]:
    """(deployment, reason) for "auto": modules need servers; GeForce cards stay in
    workstations (their driver licence bars datacenters, and more than 4 per machine
    parallelize inefficiently: docs/domain.md section 4); other cards go in 8-GPU servers
    once they outgrow one 4-GPU workstation."""
    if any(s.form_factor in SERVER_FORMS for s in specs):
        return "datacenter", "SXM/OAM modules and superchips only come on server baseboards"
    if any(s.geforce_eula for s in specs):
        return "workstation", "GeForce/TITAN cards: workstations of up to 4 (driver licence)"
    if total > c.WORKSTATION_MAX_GPUS:
        return "datacenter", f"more than {c.WORKSTATION_MAX_GPUS} GPUs: 8-GPU servers"
    return "workstation", f"up to {c.WORKSTATION_MAX_GPUS} GPUs fit one workstation"


def plan_layout(specs: Sequence[GpuSpec], total: int, deployment: str = c.AUTO) -> Layout:
    """The layout of `total` GPUs of `specs` for a deployment ("auto" resolves it)."""
    reason = "requested"
    if deployment == c.AUTO:
        deployment, reason = default_deployment(specs, total)
    modules = any(s.form_factor in SERVER_FORMS for s in specs)
    if deployment == "datacenter" or modules:
        kind, per = "server-8", c.SERVER_GPUS
    else:
        kind, per = ("desktop-1-2" if total <= 2 else "workstation-4"), c.WORKSTATION_MAX_GPUS
    counts = balanced_nodes(total, per)
    return Layout(deployment, kind, len(counts), max(counts), total, tuple(counts), reason)
