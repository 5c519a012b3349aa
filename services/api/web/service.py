"""What the pages show: templates, static assets and the view data built for them."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlmodel import Session

from services.api.charts import data
from services.api.charts.service import observations
from services.api.gpus import service as gpus_service
from services.api.gpus.schemas import CloudPrice, GpuDetail
from services.api.recommend.schemas import RecommendResponse
from services.api.web import svg
from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.predict_api import InvalidInputError, predict_full
from shared.scoring.tasks import PRECISION_NAMES, TASKS

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
STATIC_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}

# The recommendation form: (value, label) choices, in the order of the README.
TASK_LABELS = {
    "cv": "Computer vision",
    "nlp": "NLP / transformers",
    "llm-inference": "LLM inference",
    "image-generation": "Image generation",
    "video": "Video",
    "rl": "Reinforcement learning",
    "kaggle": "Kaggle",
    "prototyping": "Prototyping",
}
CONDITION_LABELS = {"any": "Any (cheaper)", "new": "New", "used": "Used"}
SORT_LABELS = {"perf_per_dollar": "Perf per dollar", "performance": "Speed"}
FORM_FIELDS = (
    "task",
    "precision",
    "memory_gb",
    "condition",
    "budget_usd",
    "count",
    "datacenter",
    "sort",
    "limit",
)


# --- templates and static files -----------------------------------------------------


@lru_cache(maxsize=1)
def environment() -> Environment:
    """Loaded on first render, then reused; autoescape is on for every template."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.globals.update(static_url=static_url, task_labels=TASK_LABELS, short_name=data.short_name)
    env.filters.update(usd=usd, day=day, num=num, short_source=data.short_source)
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


@lru_cache(maxsize=1)
def static_files() -> dict[str, tuple[bytes, str, str]]:
    """name -> (content, media type, short content hash); only these files are served."""
    files = {}
    for path in sorted(STATIC_DIR.iterdir()):
        if path.suffix in STATIC_TYPES:
            content = path.read_bytes()
            digest = hashlib.sha256(content).hexdigest()[:10]
            files[path.name] = (content, STATIC_TYPES[path.suffix], digest)
    return files


def static_url(name: str) -> str:
    """A URL that changes with the file's content, so browsers may cache it for long."""
    return f"/static/{name}?v={static_files()[name][2]}"


def usd(value: Decimal | float | int | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"${float(value):,.{digits}f}"


def day(value: datetime | date | None) -> str:
    if value is None:
        return "—"
    return value.date().isoformat() if isinstance(value, datetime) else value.isoformat()


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


# --- content negotiation ------------------------------------------------------------


def prefers_html(accept: str) -> bool:
    """True when the client ranks text/html above JSON (browsers navigating do; curl,
    fetch() and API clients send */* or application/json and keep getting JSON)."""
    html_q = json_q = 0.0
    for item in accept.split(","):
        media, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        media = media.strip().lower()
        if media in ("text/html", "application/xhtml+xml"):
            html_q = max(html_q, q)
        elif media == "application/json":
            json_q = max(json_q, q)
    return html_q > 0 and html_q >= json_q


# --- the recommendation page --------------------------------------------------------


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
class FieldError:
    field: str
    message: str


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
        "sorts": SORT_LABELS,
        "task_memory": {name: profile.min_memory_gb for name, profile in TASKS.items()},
    }


# --- the GPU page -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prediction:
    value: float
    low: float
    high: float
    basis: str


@dataclass(frozen=True, slots=True)
class TaskPredictions:
    task: str
    family: str
    by_precision: dict[str, Prediction | None]


@dataclass(frozen=True, slots=True)
class CloudGroup:
    pricing: str
    offers: list[CloudPrice]


@dataclass(frozen=True, slots=True)
class GpuView:
    spec: GpuSpec
    detail: GpuDetail
    series: list[data.Series]
    chart: svg.LineChart
    chart_text: str
    predictions: list[TaskPredictions]
    model_version: str
    reference_gpu: str
    cloud: list[CloudGroup]
    key_specs: list[tuple[str, str]] = field(default_factory=list)


def _predictions(gpu_id: str) -> tuple[list[TaskPredictions], str, str]:
    """The model per task and precision; tasks of one family share the family's numbers."""
    by_family: dict[str, dict[str, Prediction | None]] = {}
    version, reference = "", ""
    for family in sorted({p.family for p in TASKS.values()}):
        row: dict[str, Prediction | None] = {}
        for precision in PRECISION_NAMES:
            try:
                answer = predict_full(gpu_id, family, precision)
            except InvalidInputError:
                row[precision] = None  # the GPU cannot run this precision
                continue
            low, high = answer["interval"]
            row[precision] = Prediction(answer["relative_throughput"], low, high, answer["basis"])
            version, reference = answer["model_version"], answer["reference_gpu"]
        by_family[family] = row
    tasks = [TaskPredictions(t.name, t.family, by_family[t.family]) for t in TASKS.values()]
    return tasks, version, reference


def _key_specs(spec: GpuSpec) -> list[tuple[str, str]]:
    specs = [
        ("Memory", f"{spec.memory_gb:g} GB"),
        ("Bandwidth", f"{spec.memory_bandwidth_gbs:,.0f} GB/s"),
        ("TDP", f"{spec.tdp_w} W"),
        ("Released", spec.release_date.isoformat()),
    ]
    if spec.fp16_tensor_tflops:
        specs.insert(2, ("FP16 tensor", f"{spec.fp16_tensor_tflops:,.0f} TFLOPS"))
    if spec.launch_price_usd:
        specs.append(("Launch price", usd(spec.launch_price_usd)))
    return specs


def gpu_view(session: Session, spec: GpuSpec, window_days: int) -> GpuView:
    detail = gpus_service.detail(session, spec, window_days)
    series = data.price_series(observations(session, spec.id))
    predictions, version, reference = _predictions(spec.id)
    groups: dict[str, list[CloudPrice]] = defaultdict(list)
    for offer in detail.cloud:  # already sorted by pricing, then price
        groups[offer.pricing].append(offer)
    return GpuView(
        spec=spec,
        detail=detail,
        series=series,
        chart=svg.line_chart(series),
        chart_text=data.series_text(spec.name, series),
        predictions=predictions,
        model_version=version,
        reference_gpu=reference,
        cloud=[CloudGroup(pricing, offers) for pricing, offers in groups.items()],
        key_specs=_key_specs(spec),
    )


def spec_value(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


# --- own vs rent --------------------------------------------------------------------

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


def gpu_choices() -> list[tuple[str, str]]:
    return [(g.id, data.short_name(g.name)) for g in load_catalog().gpus]


def tco_context(form: Mapping[str, str], answer: Any | None) -> dict[str, Any]:
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
