"""A build's speed: the slowest card's throughput times the layout's speed-up."""

from __future__ import annotations

from dataclasses import dataclass

from shared.builds import constants as c
from shared.builds.errors import BuildInputError
from shared.builds.layout import Layout
from shared.catalog.specs import GpuSpec
from shared.perfmodel.base import Prediction
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.data_parallel import widened
from shared.perfmodel.llm_training import LlmTraining
from shared.perfmodel.power import MIN_CAP_FRACTION, power_limit
from shared.perfmodel.workloads import LlmWorkload


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
    # GPUs per tensor-parallel group when an LLM is split (1 otherwise).
    tensor_parallel: int = 1


def _factor(specs: list[GpuSpec], cap: float | None) -> float:
    if cap is None:
        return 1.0
    factors = []
    for spec in specs:
        try:
            factors.append(power_limit(spec, cap).throughput_factor)
        except ValueError as exc:
            valid = [f">= {MIN_CAP_FRACTION * spec.tdp_w:g} W for {spec.id}"]
            raise BuildInputError("power_limit_w", str(exc), valid) from exc
    return min(factors)


@dataclass(frozen=True, slots=True)
class BuildSpeedup:
    """The slowest card's single-GPU prediction and the build's speed-up over one GPU."""

    single: Prediction
    speedup: float
    tensor_parallel: int
    # Log half-width of the speed-up's own 80 % error (data_parallel.py; 0 for one GPU).
    speedup_half_width: float = 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The slowest card's interval with the speed-up's error, before the speed-up."""
        single = self.single
        return widened(single.interval, single.relative_throughput, self.speedup_half_width)


def build_speedup(
    model: ClassModel,
    specs: list[GpuSpec],
    lay: Layout,
    task: str,
    precision: str,
    network: str,
    llm: LlmWorkload | None = None,
    training: LlmTraining | None = None,
    phase: str | None = None,
) -> BuildSpeedup | None:
    """None if a card cannot run the precision. Mixed types run at the slowest card's
    pace (docs/domain.md section 4) with the least efficient scaling; an LLM that needs
    several GPUs is split within one machine. `training`: the LLM an llm-training build
    trains (its size and mode set the matrix share)."""
    net = c.MODEL_NETWORK[network]
    nodes = list(lay.node_counts)
    builds = [
        model.predict_task(
            s,
            task,
            precision,
            llm,
            lay.total_gpus,
            nodes=nodes,
            network=net,
            training=training,
            phase=phase,
        )
        for s in specs
    ]
    done = [b for b in builds if b is not None]
    if len(done) < len(builds):
        return None
    slowest = min((b.single for b in done), key=lambda p: p.relative_throughput)
    return BuildSpeedup(
        slowest,
        min(b.multi_gpu_speedup for b in done),
        done[0].tensor_parallel,
        max(b.speedup_half_width for b in done),
    )


def performance(
    model: ClassModel,
    specs: list[GpuSpec],
    lay: Layout,
    task: str,
    precision: str,
    network: str,
    cap: float | None,
    llm: LlmWorkload | None = None,
) -> Performance:
    """The build's throughput and interval, with the per-machine speed-up and the power
    limit's factor."""
    found = build_speedup(model, specs, lay, task, precision, network, llm)
    if found is None:
        bad = [s.id for s in specs if model.predict_task(s, task, precision, llm) is None]
        raise BuildInputError("precision", f"{', '.join(bad)} cannot run {precision}")
    one_node = Layout(
        lay.deployment,
        lay.node_kind,
        1,
        lay.gpus_per_node,
        lay.gpus_per_node,
        (lay.gpus_per_node,),
        lay.reason,
    )
    node = build_speedup(model, specs, one_node, task, precision, network, llm)
    factor = _factor(specs, cap)
    scale = found.speedup * factor
    low, high = found.interval
    return Performance(
        found.single.relative_throughput * scale,
        (low * scale, high * scale),
        found.single.relative_throughput,
        node.speedup if node is not None else found.speedup,
        found.speedup,
        factor,
        found.single.basis,
        found.single.reference_gpu,
        found.single.model_version,
        network if lay.nodes > 1 else None,
        found.tensor_parallel,
    )
