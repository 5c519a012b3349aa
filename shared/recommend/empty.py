"""Why a ranking is empty, and what would change it.

An empty list with no reason reads as "no GPU exists"; usually one filter removed
everything, and the fix is specific: more GPUs or smaller weights for an LLM that does
not fit, a higher budget, another condition. A change is suggested only where relaxing
that one filter would bring a GPU back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.perfmodel.memory import BYTES_PER_WEIGHT
from shared.recommend.memory import fits_memory, needed_gb, resized
from shared.recommend.schemas import RecommendQuery, WeightPrecision

MEMORY, STALE_RENTAL, LICENCE, BUDGET, PRECISION, TARGET = (
    "memory",
    "stale_rental",
    "datacenter_licence",
    "budget",
    "precision",
    "target",
)
MAX_COUNT = 64
SMALLER_WEIGHTS: tuple[WeightPrecision, ...] = ("fp8", "int8", "int4", "fp4")


@dataclass(frozen=True, slots=True)
class EmptyReason:
    """Why no GPU is left (GPUs removed per filter), and what would change that."""

    message: str
    removed: dict[str, int]
    suggestions: list[str]


@dataclass
class Exclusions:
    """What the filters removed: per filter (the first that removed a GPU), and the GPUs
    a filter removed on its own (memory in GB and price in USD of each)."""

    priced: set[str] = field(default_factory=set)
    removed: Counter[str] = field(default_factory=Counter)
    alone: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # The latency targets missed at concurrency 1, per target, over the cards removed.
    missed: Counter[str] = field(default_factory=Counter)

    def add(self, gpu_id: str, failures: Sequence[str], memory_gb: float, usd: float) -> None:
        self.priced.add(gpu_id)
        if not failures:
            return
        self.removed[failures[0]] += 1
        if len(failures) == 1:
            self.alone.setdefault(failures[0], []).append((memory_gb, usd))


def explain_empty(query: RecommendQuery, found: Exclusions) -> EmptyReason:
    if not found.priced:
        return EmptyReason(
            message=f"no GPU has a {query.condition} price for {query.task} at {query.precision}",
            removed={},
            suggestions=["condition=any (new or used, the fresher price)", "another precision"],
        )
    alone = found.alone
    suggestions: list[str] = []
    if MEMORY in alone:
        suggestions += _memory_suggestions(query, max(gb for gb, _ in alone[MEMORY]))
    if BUDGET in alone:
        cheapest = min(usd for _, usd in alone[BUDGET])
        suggestions.append(f"budget_usd >= {cheapest:,.0f} (the cheapest card that fits)")
    if LICENCE in alone:
        suggestions.append("datacenter=false admits GeForce cards (not licensed for datacenters)")
    if STALE_RENTAL in alone:
        suggestions.append(
            "condition=new or used: these rental prices are older than the stale age"
        )
    if found.removed[TARGET]:
        for target, n in found.missed.most_common():
            suggestions.append(
                f"relax {target}: {n} card(s) miss it even serving one user at a time"
            )
    if found.removed[PRECISION]:
        suggestions.append(f"another precision or weight format than {query.precision}")
    if not suggestions:
        suggestions.append("relax more than one filter: each GPU is removed by several")
    parts = [f"{name.replace('_', ' ')} removed {n}" for name, n in found.removed.items() if n]
    return EmptyReason(
        message=f"no GPU left of {len(found.priced)} priced: " + ", ".join(parts),
        removed=dict(found.removed),
        suggestions=suggestions,
    )


def _memory_suggestions(query: RecommendQuery, largest_gb: float) -> list[str]:
    estimate = query.memory_estimate
    if estimate is None:
        return [f"memory_gb <= {largest_gb:g} (the largest card that passes the other filters)"]
    out: list[str] = []
    count = _fewest_gpus(query, estimate.weights, largest_gb)
    if count is not None:
        out.append(f"count={count}: the model split over {count} GPUs fits {largest_gb:g} GB cards")
    for weights in _smaller(estimate.weights):
        need = _per_gpu(query, weights, query.count)
        if fits_memory(largest_gb, need):
            out.append(f"weights={weights}: {need:.1f} GB per GPU")
            break
    return out or ["a smaller model, context or batch"]


def _smaller(weights: str) -> Sequence[WeightPrecision]:
    # The memory sizing's own bytes per weight, so a suggestion is smaller by its measure.
    return [w for w in SMALLER_WEIGHTS if BYTES_PER_WEIGHT[w] < BYTES_PER_WEIGHT[weights]]


def _per_gpu(query: RecommendQuery, weights: WeightPrecision, count: int) -> float:
    estimate = query.memory_estimate
    assert estimate is not None
    return needed_gb(resized(estimate, weights, count))


def _fewest_gpus(query: RecommendQuery, weights: WeightPrecision, largest_gb: float) -> int | None:
    for count in range(query.count + 1, MAX_COUNT + 1):
        if fits_memory(largest_gb, _per_gpu(query, weights, count)):
            return count
    return None
