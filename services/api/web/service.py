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
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlmodel import Session

from services.api.charts import data
from services.api.charts.service import observations
from services.api.gpus import service as gpus_service
from services.api.gpus.schemas import CloudPrice, GpuDetail
from services.api.quotes import service as quotes_service
from services.api.quotes.schemas import ClusterIn, QuoteOut
from services.api.recommend.schemas import RecommendResponse
from services.api.tco.schemas import TcoResponse
from services.api.web import svg
from shared.builds.predict import InvalidInputError, predict_full
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel

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
CONDITION_LABELS = {
    "any": "Any (fresher, then cheaper)",
    "new": "New",
    "used": "Used",
    "cloud": "Rent (cloud, per GPU-hour)",
}
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
        "pricings": PRICING_LABELS,
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


def _predictions(model: ClassModel, gpu_id: str) -> tuple[list[TaskPredictions], str, str]:
    """The model per task and precision; tasks of one family share the family's numbers."""
    by_family: dict[str, dict[str, Prediction | None]] = {}
    version, reference = "", ""
    for family in sorted({p.family for p in TASKS.values()}):
        row: dict[str, Prediction | None] = {}
        for precision in PRECISION_NAMES:
            try:
                answer = predict_full(model, gpu_id, family, precision)
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


def gpu_view(session: Session, spec: GpuSpec, settings: Settings, model: ClassModel) -> GpuView:
    detail = gpus_service.detail(session, spec, settings)
    series = data.price_series(observations(session, spec.id))
    predictions, version, reference = _predictions(model, spec.id)
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


# --- quotes -------------------------------------------------------------------------

# The form's fields, in the order shown; every one is a ClusterIn field of the same name,
# so a page URL is also a valid POST /quotes/cluster body.
QUOTE_FIELDS = (
    "gpu",
    "count",
    "condition",
    "task",
    "deployment",
    "network",
    "power_limit_w",
    "budget_usd",
    "gpu_price_usd",
    "allow_geforce",
)
DEFAULT_QUOTE_GPU = "rtx-3090"
# Keys: the API's Deployment and Network values (a test keeps them in step).
DEPLOYMENT_LABELS = {
    "auto": "Auto (as /recommend)",
    "workstation": "Workstation",
    "datacenter": "Datacenter",
}
NETWORK_LABELS = {"infiniband": "InfiniBand", "ethernet": "10 GbE"}
STANDARD_QUOTES_SHOWN = 100  # GET /quotes's largest page; there are far fewer standard builds
TRUE_TEXTS = ("true", "1", "on", "yes")


def cluster_body(query: Mapping[str, str]) -> ClusterIn:
    """The form as POST /quotes/cluster's body: the same model, so the same validation
    (unknown fields and values are refused); raises pydantic's ValidationError."""
    return ClusterIn.model_validate(dict(query))


@dataclass(frozen=True, slots=True)
class BomLine:
    category: str
    item: str
    quantity: int
    unit_usd: Decimal
    total_usd: Decimal
    basis: str
    source: str
    as_of: date | None


@dataclass(frozen=True, slots=True)
class QuoteWarning:
    topic: str
    text: str


@dataclass(frozen=True, slots=True)
class PowerLimit:
    """The highest power limit that keeps a workstation on one US outlet, and its cost."""

    cap_w: float
    speed_cost_pct: float
    node_watts: float


@dataclass(frozen=True, slots=True)
class YearlyPower:
    usd: Decimal
    kwh: float
    co2_kg: float
    utilization: float
    pue: float
    usd_per_kwh: Decimal
    sources: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class QuoteView:
    """A stored cluster quote as the page shows it (the API's JSON, typed back)."""

    id: str
    standard_key: str | None
    title: str
    deployment: str
    updated_at: datetime
    prices_as_of: datetime | None
    lines: list[BomLine]
    warnings: list[QuoteWarning]
    notes: list[str]
    suggested_power_limit: PowerLimit | None
    power_limit_w: float | None
    layout: str
    psu: str
    relative_throughput: float
    interval: tuple[float, float]
    reference_gpu: str
    basis: str
    model_version: str
    total_usd: Decimal
    perf_per_1000_usd: float
    yearly: YearlyPower
    within_budget: bool | None
    with_suggested_limit_url: str | None = None

    @property
    def url(self) -> str:
        return f"/quotes/{self.id}"

    @property
    def csv_url(self) -> str:
        return f"/quotes/{self.id}?format=csv"


def _gpu_name(gpu_id: str) -> str:
    spec = load_catalog().get(gpu_id)
    return data.short_name(spec.name) if spec else gpu_id


def _warning(text: str) -> QuoteWarning:
    """'power: ...' -> topic 'power'; warnings without a one-word prefix are about the build."""
    head, sep, rest = text.partition(": ")
    if sep and head.isalpha() and head.islower():
        return QuoteWarning(head, rest)
    return QuoteWarning("build", text)


def _as_of(value: str | None) -> date | None:
    return None if value is None else date.fromisoformat(value)


def quote_view(quote: QuoteOut) -> QuoteView:
    result = quote.result
    lay, power, perf, yearly = (
        result["layout"],
        result["power"],
        result["performance"],
        result["yearly_power"],
    )
    gpus = " + ".join(
        f"{g['count']}× {_gpu_name(g['gpu_id'])} ({g['condition']})" for g in result["gpus"]
    )
    suggested = power["suggested_power_limit"]
    nodes = lay["nodes"]
    limited_url = None
    if suggested is not None and not quote.request.get("additional_gpus"):
        # The same build at the suggested limit; the resolved count stands in for a target.
        params = {k: v for k, v in quote_form(quote.request).items() if v}
        params |= {
            "count": str(result["gpus"][0]["count"]),
            "power_limit_w": f"{suggested['cap_w']:g}",
        }
        limited_url = "/quotes?" + urlencode(params)
    return QuoteView(
        id=quote.id,
        standard_key=quote.standard_key,
        title=f"{gpus}, {lay['deployment']}",
        deployment=lay["deployment"],
        updated_at=quote.updated_at,
        prices_as_of=quote.prices_as_of,
        lines=[
            BomLine(
                category=line["category"],
                item=line["item"],
                quantity=line["quantity"],
                unit_usd=Decimal(line["unit_usd"]),
                total_usd=Decimal(line["total_usd"]),
                basis=line["basis"],
                source=line["source"],
                as_of=_as_of(line["as_of"]),
            )
            for line in result["line_items"]
        ],
        warnings=[_warning(w) for w in result["warnings"]],
        notes=list(result["notes"]),
        suggested_power_limit=None
        if suggested is None
        else PowerLimit(suggested["cap_w"], suggested["speed_cost_pct"], suggested["node_watts"]),
        power_limit_w=quote.request.get("power_limit_w"),
        layout=f"{nodes} {lay['node_kind']} node{'s' if nodes != 1 else ''}, "
        f"{lay['gpus_per_node']} GPUs per node",
        psu=f"{power['node_watts']:,.0f} W per node → {power['psu_watts']:,} W PSU "
        f"({power['headroom'] * 100:.0f} % headroom); {power['total_kw']:g} kW in total",
        relative_throughput=perf["relative_throughput"],
        interval=(perf["interval"][0], perf["interval"][1]),
        reference_gpu=_gpu_name(perf["reference_gpu"]),
        basis=perf["basis"],
        model_version=perf["model_version"],
        total_usd=quote.total_usd,
        perf_per_1000_usd=result["perf_per_1000_usd"],
        yearly=YearlyPower(
            usd=Decimal(yearly["usd"]),
            kwh=yearly["kwh"],
            co2_kg=yearly["co2_kg"],
            utilization=yearly["utilization"],
            pue=yearly["pue"],
            usd_per_kwh=Decimal(yearly["electricity_usd_per_kwh"]),
            sources=[
                (name, yearly[f"{name}_source"])
                for name in ("utilization", "pue", "electricity", "carbon")
                if yearly.get(f"{name}_source")
            ],
        ),
        within_budget=result["within_budget"],
        with_suggested_limit_url=limited_url,
    )


def quote_form(values: Mapping[str, object]) -> dict[str, str]:
    """The form's fields as text: a query as typed, or a stored quote's request."""
    form = {}
    for name in QUOTE_FIELDS:
        value = values.get(name)
        if isinstance(value, bool):
            value = "true" if value else ""
        form[name] = "" if value is None else str(value)
    return form


def standard_quotes(session: Session) -> list[QuoteView]:
    """GET /quotes?standard=true's builds (the cluster ones: comparisons have no page)."""
    listing = quotes_service.listing(session, True, STANDARD_QUOTES_SHOWN, 0)
    return [quote_view(q) for q in listing.items if q.kind == "cluster"]


def quotes_context(
    form: Mapping[str, object], quote: QuoteView | None, standard: list[QuoteView] | None
) -> dict[str, Any]:
    """`standard` None: not shown (the 422 page has no database session to list them)."""
    fields = quote_form(form)
    return {
        "form": fields,
        "allow_geforce": fields["allow_geforce"].lower() in TRUE_TEXTS,
        "gpus": gpu_choices(),
        "default_gpu": DEFAULT_QUOTE_GPU,
        "tasks": TASK_LABELS,
        "conditions": CONDITION_LABELS,
        "deployments": DEPLOYMENT_LABELS,
        "networks": NETWORK_LABELS,
        "quote": quote,
        "standard": standard,
    }
