"""The recommendation page (/ and its results fragment): form state and view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.api.charts import data
from services.api.recommend.schemas import RecommendResponse
from services.api.web import svg
from services.api.web.render import CONDITION_LABELS, TASK_LABELS
from shared.catalog.tasks import PRECISION_NAMES, TASKS

PRICING_LABELS = {"on-demand": "On-demand", "spot": "Spot"}
SORT_LABELS = {"perf_per_dollar": "Perf per dollar", "performance": "Speed"}
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
class RecommendationView:
    response: RecommendResponse
    per_dollar: svg.BarChart
    performance: svg.BarChart
    per_dollar_text: str
    performance_text: str
    summary: str
    query_string: str

    @property
    def reference(self) -> str:
        results = self.response.results
        return results[0].performance.reference_gpu if results else "rtx-3090"


def recommendation_view(body: bytes, query_string: str) -> RecommendationView:
    response = RecommendResponse.model_validate_json(body)
    per_dollar = data.bars(response, "perf_per_dollar")
    performance = data.bars(response, "performance")
    return RecommendationView(
        response=response,
        per_dollar=svg.bar_chart(per_dollar, "perf_per_dollar"),
        performance=svg.bar_chart(performance, "performance"),
        per_dollar_text=data.bars_text(per_dollar, "perf_per_dollar"),
        performance_text=data.bars_text(performance, "performance"),
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
