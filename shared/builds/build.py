"""The one build model: layout -> system cost -> speed-up -> performance per dollar.

/recommend, cluster quotes and their comparison, /model/predict?count=, TCO and the
scores behind perf-per-dollar alerts all price and time a build here, so the same GPUs,
count, deployment and network get the same total and the same speed-up everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shared.builds import bom
from shared.builds import constants as c
from shared.builds.bom import LineItem
from shared.builds.errors import BuildInputError
from shared.builds.layout import Layout, plan_layout
from shared.builds.power import PowerPlan, cooling_check, power_plan
from shared.builds.speed import Performance, performance
from shared.catalog.specs import GpuSpec
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.workloads import LlmWorkload


@dataclass(frozen=True, slots=True)
class Build:
    """A build's machines and what they cost around the GPUs."""

    layout: Layout
    network: str
    power: PowerPlan
    cooling: dict[str, object]
    # Everything but the GPUs (node bases, RAM, PSUs, risers, network).
    system_lines: tuple[LineItem, ...]

    @property
    def system_usd(self) -> Decimal:
        return money(sum((line.total_usd for line in self.system_lines), Decimal(0)))

    @property
    def busy_watts(self) -> float:
        """What the whole build draws at work: every GPU at its TDP (or power limit) and
        each machine's CPU, board and fans."""
        lay = self.layout
        return lay.total_gpus * self.power.gpu_watts + lay.nodes * self.power.system_watts_per_node

    def total_usd(self, gpu_usd: Decimal) -> Decimal:
        """Total with the GPUs at `gpu_usd` altogether."""
        return money(gpu_usd + self.system_usd)

    def system_basis(self) -> str:
        return f"{self.layout.describe()}: node base, RAM, PSU, cooling, network (assumptions)"


def check_choices(deployment: str, network: str) -> None:
    if deployment not in c.DEPLOYMENTS:
        raise BuildInputError("deployment", f"unknown value {deployment!r}", list(c.DEPLOYMENTS))
    if network not in c.NETWORKS:
        raise BuildInputError("network", f"unknown value {network!r}", list(c.NETWORKS))


def plan_build(
    specs: list[GpuSpec],
    total: int,
    settings: Settings,
    deployment: str = c.AUTO,
    network: str = "infiniband",
    cap: float | None = None,
) -> Build:
    """The machines for `total` GPUs of `specs` (the first is the main type)."""
    check_choices(deployment, network)
    lay = plan_layout(specs, total, deployment)
    plan, _ = power_plan(specs, lay, cap)
    cooling = cooling_check(specs, lay)
    lines = bom.system_lines(specs, lay, plan, cooling, network, settings)
    return Build(lay, network, plan, cooling, tuple(lines))


def build_speed(
    model: ClassModel,
    build: Build,
    specs: list[GpuSpec],
    task: str,
    precision: str,
    cap: float | None = None,
    llm: LlmWorkload | None = None,
) -> Performance:
    """The build's throughput relative to one reference GPU."""
    return performance(model, specs, build.layout, task, precision, build.network, cap, llm)


def cloud_layout(spec: GpuSpec, count: int) -> Layout:
    """Rented GPUs come in the provider's 8-GPU servers."""
    return plan_layout([spec], count, "datacenter")


def perf_per_dollar(relative_throughput: float, total_usd: Decimal) -> float:
    """The ranking's value: throughput (x one reference GPU) per dollar of the whole build
    (per dollar-hour for rentals). Stored scores, /recommend and quotes all use it."""
    return relative_throughput / float(total_usd) if total_usd else 0.0


def perf_per_1000_usd(relative_throughput: float, total_usd: Decimal) -> float:
    return perf_per_dollar(relative_throughput, total_usd) * 1000
