"""Charts as images for documents and chat tools: /charts/*.svg and /charts/*.png.

The recommendation charts take /recommend's own route function as a dependency, so they
accept exactly its query parameters, with the same defaults, validation and 422 messages,
and draw exactly its answer (cached answers included).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from services.api.auth import KEY_OPTIONAL
from services.api.charts import data, history_svg, render, service
from services.api.charts.render import ChartLayout, ImageFormat
from services.api.deps import SessionDep
from services.api.prices.schemas import ConditionFilter
from services.api.recommend.router import RECOMMEND_INPUTS, get_recommendation
from services.api.recommend.schemas import RecommendResponse

router = APIRouter(tags=["charts"])

RecommendationDep = Annotated[Response, Depends(get_recommendation)]
FormatPath = Annotated[ImageFormat, Path(description="svg or png")]
LayoutQuery = Annotated[
    ChartLayout,
    Query(
        description="wide (default: documents, desktop screens) or narrow (a phone or a chat "
        "preview, about 400 px across: the name, the bar and the price each on a line, so the "
        "text is readable at the size it is shown)"
    ),
]
IMAGE_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"content": {"image/svg+xml": {}, "image/png": {}}, "description": "the chart"}
}
# Images are pure functions of their data; a short lifetime keeps price ages honest.
CACHE_CONTROL = "public, max-age=300"


def recommendation_chart(
    request: Request,
    answer: Response,
    metric: data.Metric,
    fmt: ImageFormat,
    layout: ChartLayout = "wide",
) -> Response:
    body = bytes(answer.body)
    cache = service.image_cache(request.app)
    key = (None, service.content_key("recommend", metric, fmt, layout, body))
    image = cache.get(key)
    if image is None:
        response = RecommendResponse.model_validate_json(body)
        bars = data.bars(response, metric)
        subtitle = data.describe_query(response)
        footnote = (
            f"GPU Advisor · model {response.model_version}, relative to "
            f"{_reference(response)} · prices as of {_date(response.prices_as_of)} · "
            "bars: price, condition, kind and date of the price used"
        )
        desc = f"{subtitle}.\n{data.bars_text(bars, metric)}"
        image = render.bar_chart(bars, metric, subtitle, footnote, fmt, desc, layout)
        cache.put(key, image)
    return Response(
        image, media_type=render.MEDIA_TYPES[fmt], headers={"Cache-Control": CACHE_CONTROL}
    )


def _reference(response: RecommendResponse) -> str:
    return response.results[0].performance.reference_gpu if response.results else "the reference"


def _date(value: datetime | None) -> str:
    return value.date().isoformat() if value else "unknown"


@router.get(
    "/charts/perf-per-dollar.{image_format}",
    response_class=Response,
    # /recommend's answer, which takes an optional key (its quotes; none drawn here).
    openapi_extra={**KEY_OPTIONAL, **RECOMMEND_INPUTS},
    responses=IMAGE_RESPONSES,
    summary="Perf per $1,000 of /recommend's answer as a bar chart (same query parameters)",
)
async def perf_per_dollar_chart(
    request: Request,
    image_format: FormatPath,
    answer: RecommendationDep,
    layout: LayoutQuery = "wide",
) -> Response:
    # Drawing takes tens of ms of CPU: keep it off the event loop.
    return await run_in_threadpool(
        recommendation_chart, request, answer, "perf_per_dollar", image_format, layout
    )


@router.get(
    "/charts/performance.{image_format}",
    response_class=Response,
    # /recommend's answer, which takes an optional key (its quotes; none drawn here).
    openapi_extra={**KEY_OPTIONAL, **RECOMMEND_INPUTS},
    responses=IMAGE_RESPONSES,
    summary="Relative performance of /recommend's answer as a bar chart",
)
async def performance_chart(
    request: Request,
    image_format: FormatPath,
    answer: RecommendationDep,
    layout: LayoutQuery = "wide",
) -> Response:
    return await run_in_threadpool(
        recommendation_chart, request, answer, "performance", image_format, layout
    )


@router.get(
    "/charts/cost-per-unit.{image_format}",
    response_class=Response,
    # /recommend's answer, which takes an optional key (its quotes; none drawn here).
    openapi_extra={**KEY_OPTIONAL, **RECOMMEND_INPUTS},
    responses=IMAGE_RESPONSES,
    summary="Dollars per unit of work of /recommend's answer (per 1M tokens, 1k images or "
    "sequences) as a bar chart, with each cost's 80 % interval",
)
async def cost_per_unit_chart(
    request: Request,
    image_format: FormatPath,
    answer: RecommendationDep,
    layout: LayoutQuery = "wide",
) -> Response:
    return await run_in_threadpool(
        recommendation_chart, request, answer, "cost_per_unit", image_format, layout
    )


@router.get(
    "/charts/price-history.{image_format}",
    response_class=Response,
    responses=IMAGE_RESPONSES,
    summary="A GPU's price history per condition and source, with the spread",
)
def price_history_chart(
    request: Request,
    session: SessionDep,
    image_format: FormatPath,
    gpu: Annotated[
        str, Query(max_length=128, description="catalog id, name or known alias, exactly")
    ],
    condition: Annotated[
        ConditionFilter | None, Query(description="'used' includes refurbished")
    ] = None,
    since: Annotated[datetime | None, Query(description="ISO 8601; UTC when no offset")] = None,
    layout: LayoutQuery = "wide",
) -> Response:
    spec = service.resolve_gpu(gpu)
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    series = request.app.state.series_cache.get(session, spec.id, condition, since)
    title = f"{data.short_name(spec.name)}: price history"
    desc = data.series_text(spec.name, series)
    cache = service.image_cache(request.app)
    key = (None, service.content_key("prices", image_format, layout, title, desc, repr(series)))
    image = cache.get(key)
    if image is None:
        if image_format == "svg" and layout == "wide":
            image = history_svg.line_chart(series, title, desc)
        else:
            # The narrow SVG is matplotlib's, as the PNG: history_svg lays out 1000 units.
            image = render.line_chart(series, title, image_format, desc, layout)
        cache.put(key, image)
    return Response(
        image,
        media_type=render.MEDIA_TYPES[image_format],
        headers={"Cache-Control": CACHE_CONTROL},
    )
