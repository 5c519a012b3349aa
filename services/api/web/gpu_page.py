"""The GPU page (/gpus/{id}): specs, price history, cloud offers, predictions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from markupsafe import Markup
from sqlmodel import Session

from services.api.charts import data
from services.api.charts.series_cache import SeriesCache
from services.api.gpus import service as gpus_service
from services.api.gpus.schemas import CloudPrice, GpuDetail
from services.api.prices.cache import PriceCache
from services.api.web import svg
from services.api.web.render import render, usd
from shared.builds.predict import InvalidInputError, predict_full
from shared.catalog.specs import GpuSpec
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel


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
    cloud_section: Markup  # _cloud.html, rendered
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


def gpu_view(
    session: Session,
    spec: GpuSpec,
    settings: Settings,
    model: ClassModel,
    cache: SeriesCache,
    price_cache: PriceCache | None = None,
) -> GpuView:
    """The page's content; its cloud offers' panel from `price_cache` when given, rendered
    once per offer list (a thousand offers' rows took ~13 ms of each of a module's pages)."""
    # Counted before the offers are read: a panel may be newer than its count, never older.
    offers = None if price_cache is None else gpus_service.cloud_version(session, spec.id)
    detail = gpus_service.detail(session, spec, settings, rows=cache.market_rows, cache=price_cache)
    series = cache.get(session, spec.id)
    predictions, version, reference = _predictions(model, spec.id)

    def cloud_section() -> Markup:
        return _cloud_section(detail.cloud)

    cloud = (
        cloud_section()
        if price_cache is None
        else price_cache.get(("cloud-section", spec.id), offers, cloud_section)
    )
    return GpuView(
        spec=spec,
        detail=detail,
        series=series,
        chart=svg.line_chart(series),
        chart_text=data.series_text(spec.name, series),
        predictions=predictions,
        model_version=version,
        reference_gpu=reference,
        cloud_section=cloud,
        key_specs=_key_specs(spec),
    )


def _cloud_section(offers: list[CloudPrice]) -> Markup:
    groups: dict[str, list[CloudPrice]] = defaultdict(list)
    for offer in offers:  # already sorted by pricing, then price
        groups[offer.pricing].append(offer)
    cloud = [CloudGroup(pricing, found) for pricing, found in groups.items()]
    return Markup(render("_cloud.html", cloud=cloud))


def spec_value(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)
