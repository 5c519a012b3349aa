"""The quote pages (/quotes, /quotes/{id}): the form, a stored quote as shown, and the
price check's form (check_page.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from sqlmodel import Session

from services.api.charts import data
from services.api.quotes import service as quotes_service
from services.api.quotes.schemas import QuoteOut
from services.api.web.check_page import check_context
from services.api.web.render import CONDITION_LABELS, TASK_LABELS, gpu_choices
from shared.catalog.specs import load_catalog
from shared.quotes.schemas import ClusterRequest

# The form's fields, in the order shown; every one is a ClusterRequest field of the same name,
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


def cluster_body(query: Mapping[str, str]) -> ClusterRequest:
    """The form as POST /quotes/cluster's body: the same model, so the same validation
    (unknown fields and values are refused); raises pydantic's ValidationError."""
    return ClusterRequest.model_validate(dict(query))


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
    form: Mapping[str, object],
    quote: QuoteView | None,
    standard: list[QuoteView] | None,
    check: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`standard` None: not shown (the 422 page has no database session to list them).
    `check`: the price check's part (check_page.check_context); an empty form when None."""
    fields = quote_form(form)
    return {
        **(check if check is not None else check_context({})),
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
