"""Serving to a latency target: the largest concurrency at which every user still gets
`min_tokens_per_s_per_user` and the first token within `max_ttft_ms`.

A larger batch shares each decode step among more users (every user's tokens/s falls,
the step and so the time to first token grow) while the build's total rises: the targets
hold on a range of concurrencies from 1 up, and the answer is its top, found by bisection
(both checks are monotone in the batch). Judged on the central estimate; whether the
interval's worst ends meet the targets too is said beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from shared.builds.layout import Layout
from shared.catalog.specs import GpuSpec
from shared.perfmodel import inference as inf
from shared.perfmodel import units as u
from shared.perfmodel.absolute import Ratio, throughput
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.workloads import LLM_SERVING, LlmWorkload

# The most sequences one group is asked to serve (the /recommend batch limit).
MAX_CONCURRENCY = 4096
PER_USER, TTFT = "min_tokens_per_s_per_user", "max_ttft_ms"


@dataclass(frozen=True, slots=True)
class Targets:
    min_tokens_per_s_per_user: float | None = None
    max_ttft_ms: float | None = None

    @property
    def given(self) -> bool:
        return self.min_tokens_per_s_per_user is not None or self.max_ttft_ms is not None

    def failing(self, value: u.Throughput, worst: bool = False) -> list[str]:
        """The targets `value` misses (at the interval's worst ends when `worst`)."""
        out = []
        per_user = value.per_user
        ttft = value.ttft_ms
        if worst:
            per_user = value.per_user_interval[0] if value.per_user_interval else per_user
            ttft = value.ttft_ms_interval[1] if value.ttft_ms_interval else ttft
        if self.min_tokens_per_s_per_user is not None and (
            per_user is None or per_user < self.min_tokens_per_s_per_user
        ):
            out.append(PER_USER)
        if self.max_ttft_ms is not None and (ttft is None or ttft > self.max_ttft_ms):
            out.append(TTFT)
        return out


@dataclass(frozen=True, slots=True)
class TargetResult:
    """The build at the largest concurrency meeting the targets, or why none does."""

    meets: bool
    concurrency: int | None
    throughput: u.Throughput | None
    # The targets missed at concurrency 1 (what to relax), when none meets them.
    failing: tuple[str, ...] = ()
    meets_worst_case: bool = False
    ratio: Ratio | None = None

    def as_dict(self, targets: Targets) -> dict[str, Any]:
        said = (
            f"the largest concurrency meeting the targets: {self.concurrency}"
            if self.meets
            else "not met at concurrency 1: relax " + " or ".join(self.failing)
        )
        return {
            PER_USER: targets.min_tokens_per_s_per_user,
            TTFT: targets.max_ttft_ms,
            "meets_target": self.meets,
            "meets_target_worst_case": self.meets_worst_case,
            "concurrency": self.concurrency,
            "failing": list(self.failing),
            "basis": said + "; judged on the central estimate (meets_target_worst_case: "
            "at the intervals' slow ends)",
        }


def serve_to_target(
    model: ClassModel,
    gpu: GpuSpec,
    llm: LlmWorkload,
    layout: Layout,
    targets: Targets,
    *,
    software: str | None = None,
    prompt_tokens: int,
    speed: Callable[[LlmWorkload], tuple[Ratio, int] | None] | None = None,
) -> TargetResult:
    """`speed(llm)`: the build's ratio and tensor-parallel group at that batch (default:
    the class model on this layout)."""
    chosen = software or u.DEFAULT_SOFTWARE[LLM_SERVING]

    def timed(batch: int) -> tuple[u.Throughput, Ratio] | None:
        at = llm.with_batch(batch)
        found = (speed or serving_speed(model, gpu, layout, 1.0))(at)
        if found is None:
            return None
        ratio, tp = found
        value = throughput(
            model,
            gpu,
            LLM_SERVING,
            ratio,
            software=chosen,
            llm=at,
            tp=tp,
            nodes=layout.node_counts,
            prompt_tokens=prompt_tokens,
        )
        return value, ratio

    first = timed(1)
    if first is None:
        return TargetResult(False, None, None)
    missed = targets.failing(first[0])
    if missed:
        return TargetResult(False, None, None, tuple(missed))
    low, high = 1, _ceiling(gpu, llm, layout.node_counts)
    best = first
    while low < high:
        mid = (low + high + 1) // 2
        found = timed(mid)
        if found is not None and not targets.failing(found[0]):
            low, best = mid, found
        else:
            high = mid - 1
    value, ratio = best
    return TargetResult(
        True,
        value.concurrency,
        value,
        meets_worst_case=not targets.failing(value, worst=True),
        ratio=ratio,
    )


def _ceiling(gpu: GpuSpec, llm: LlmWorkload, nodes: Sequence[int]) -> int:
    """The most sequences one machine's widest split holds beside the weights."""
    widest = max(t for t in inf.TP_SIZES if t <= max(1, max(nodes)))
    return max(1, min(MAX_CONCURRENCY, inf.sequences_held(gpu, llm, widest)))


def serving_speed(
    model: ClassModel, gpu: GpuSpec, layout: Layout, power: float
) -> Callable[[LlmWorkload], tuple[Ratio, int] | None]:
    """The build's ratio and tensor-parallel group at a batch, timed as a server (the
    serving class at every batch), times the power cap's factor."""

    def speed(llm: LlmWorkload) -> tuple[Ratio, int] | None:
        result = model.predict_serving(gpu, llm, layout.node_counts)
        if result is None or not result.fits:
            return None
        low, high = result.interval
        return (
            Ratio(result.relative_throughput * power, (low * power, high * power)),
            result.tensor_parallel,
        )

    return speed
