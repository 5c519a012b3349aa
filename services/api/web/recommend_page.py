"""The recommendation page (/ and its results fragment): form state and view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.api.charts import data
from services.api.recommend.schemas import RecommendResponse, RecommendResult
from services.api.web import svg
from services.api.web.render import CONDITION_LABELS, TASK_LABELS
from shared.catalog.tasks import PRECISION_NAMES, TASKS

PRICING_LABELS = {"on-demand": "On-demand", "spot": "Spot"}
# An empty value is the task's default order (cost per unit for the LLM tasks).
SORT_LABELS = {
    "": "The task's default",
    "cost_per_unit": "Cost per unit of work",
    "perf_per_dollar": "Perf per dollar",
    "performance": "Speed",
}
FORM_FIELDS = (
    "task",
    "precision",
    "memory_gb",
    "condition",
    "pricing",
    "budget_usd",
    "count",
    "datacenter",
    "sort",
    "limit",
)


@dataclass(frozen=True, slots=True)
class FormState:
    """The form as the user filled it: raw strings, re-shown as typed (and escaped)."""

    values: dict[str, str]

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> FormState:
        return cls({name: query.get(name, "") for name in FORM_FIELDS})

    def get(self, name: str) -> str:
        return self.values.get(name, "")

    @property
    def checked(self) -> bool:
        return self.get("datacenter").lower() in ("true", "1", "on", "yes")


@dataclass(frozen=True, slots=True)
class RankedBy:
    """The number the ranking is ordered by, shown first in each row (the default orders
    by an interval's worst end: shown as such, not the central value beside it)."""

    sort: str

    @property
    def label(self) -> str:
        return {
            "perf_per_dollar": "performance per dollar at its worst (the low end of its 80 % "
            "interval)",
            "perf_per_dollar_expected": "performance per dollar, central value",
            "performance": "speed",
            "cost_per_unit": "dollars per unit of work at its worst (the high end of its 80 % "
            "interval)",
        }[self.sort]

    @property
    def heading(self) -> str:
        return {
            "perf_per_dollar": "Perf / $1k, worst case",
            "perf_per_dollar_expected": "Perf / $1k",
            "performance": "Relative perf",
            "cost_per_unit": "$ per unit, worst case",
        }[self.sort]

    def value(self, result: RecommendResult) -> str:
        if self.sort == "perf_per_dollar":
            return f"{result.perf_per_1000_usd_interval[0]:.3f}"
        if self.sort == "perf_per_dollar_expected":
            return f"{result.perf_per_1000_usd:.3f}"
        if self.sort == "performance":
            return f"{result.relative_performance:.2f}×"
        cost = result.cost_per_unit
        return "–" if cost is None else self.cost(cost.interval[1])

    @staticmethod
    def cost(usd: float) -> str:
        """Dollars to three significant figures (a cost per 1k images is a fraction of a
        cent)."""
        return f"${usd:,.2f}" if usd >= 100 else f"${usd:.3g}"


@dataclass(frozen=True, slots=True)
class RecommendationView:
    response: RecommendResponse
    per_dollar: svg.BarChart
    performance: svg.BarChart
    per_dollar_text: str
    performance_text: str
    cost: svg.BarChart
    cost_text: str
    summary: str
    query_string: str

    @property
    def ranked_by(self) -> RankedBy:
        return RankedBy(self.response.query.sort)

    @property
    def reference(self) -> str:
        results = self.response.results
        return results[0].performance.reference_gpu if results else "rtx-3090"


def recommendation_view(body: bytes, query_string: str) -> RecommendationView:
    response = RecommendResponse.model_validate_json(body)
    per_dollar = data.bars(response, "perf_per_dollar")
    performance = data.bars(response, "performance")
    cost = data.bars(response, "cost_per_unit")
    return RecommendationView(
        response=response,
        per_dollar=svg.bar_chart(per_dollar, "perf_per_dollar"),
        performance=svg.bar_chart(performance, "performance"),
        per_dollar_text=data.bars_text(per_dollar, "perf_per_dollar"),
        performance_text=data.bars_text(performance, "performance"),
        cost=svg.bar_chart(cost, "cost_per_unit"),
        cost_text=data.bars_text(cost, "cost_per_unit"),
        summary=data.describe_query(response),
        query_string=query_string,
    )


def form_context(form: FormState) -> dict[str, Any]:
    return {
        "form": form,
        "tasks": TASK_LABELS,
        "precisions": PRECISION_NAMES,
        "conditions": CONDITION_LABELS,
        "pricings": PRICING_LABELS,
        "sorts": SORT_LABELS,
        "task_memory": {name: profile.min_memory_gb for name, profile in TASKS.items()},
    }
