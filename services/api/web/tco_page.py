"""The own-vs-rent page (/tco): the form and the cumulative cost chart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.api.tco.schemas import TcoResponse
from services.api.web import svg
from services.api.web.render import CONDITION_LABELS, TASK_LABELS, gpu_choices
from shared.catalog.tasks import PRECISION_NAMES

TCO_FIELDS = (
    "gpu",
    "count",
    "cloud_gpu",
    "pricing",
    "task",
    "precision",
    "condition",
    "utilization",
    "years",
    "electricity_usd_per_kwh",
)
DEFAULT_TCO_GPU = "rtx-4090"


def tco_context(form: Mapping[str, str], answer: TcoResponse | None) -> dict[str, Any]:
    """The form, and the chart of cumulative cost when there is an answer."""
    chart = None
    if answer is not None:
        months = [(m.month, float(m.own_usd), float(m.cloud_usd)) for m in answer.monthly]
        chart = svg.cost_chart(months, answer.break_even_days)
    return {
        "form": {name: form.get(name, "") for name in TCO_FIELDS},
        "gpus": gpu_choices(),
        "tasks": TASK_LABELS,
        "precisions": PRECISION_NAMES,
        "conditions": CONDITION_LABELS,
        "answer": answer,
        "chart": chart,
        "default_gpu": DEFAULT_TCO_GPU,
    }
