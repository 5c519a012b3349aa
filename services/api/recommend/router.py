"""GET /recommend."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from services.api.auth import KEY_OPTIONAL, OptionalKey
from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.errors import InvalidParameter
from services.api.recommend.cache import ResponseCache
from services.api.recommend.schemas import RecommendResponse
from services.api.recommend.service import recommend_json
from shared.alerts.keys import quote_viewer
from shared.builds.predict import InvalidInputError, checked_phase
from shared.builds.schemas import Condition, Deployment, Network, Precision, Pricing, Task
from shared.catalog.tasks import TASKS
from shared.pricing.quotes import sees_recent_quotes, show_quotes_to
from shared.recommend.memory import default_weights, llm_memory_estimate, needed_gb
from shared.recommend.schemas import (
    LlmMode,
    MemoryEstimateOut,
    Phase,
    RecommendQuery,
    Sort,
    WeightPrecision,
)
from shared.recommend.scores import ScoreCache

router = APIRouter(tags=["recommend"])

# Above any GPU's memory (B200: 180 GB) times the largest count; more is a typo.
MAX_MEMORY_GB = 2048


@router.get("/recommend", response_model=RecommendResponse, openapi_extra=KEY_OPTIONAL)
def get_recommendation(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    key: OptionalKey,
    task: Annotated[Task, Query(description="workload; sets the default minimum memory")],
    memory_gb: Annotated[
        float | None,
        Query(gt=0, le=MAX_MEMORY_GB, description="minimum memory per GPU (GB)"),
    ] = None,
    precision: Annotated[Precision, Query()] = "fp16",
    condition: Annotated[
        Condition,
        Query(description="new, used, any (the fresher, then cheaper) or cloud (rent)"),
    ] = "any",
    pricing: Annotated[
        Pricing, Query(description="with condition=cloud: on-demand or spot prices")
    ] = "on-demand",
    budget_usd: Annotated[
        float | None,
        Query(gt=0, description="maximum price per GPU (per GPU-hour with condition=cloud)"),
    ] = None,
    count: Annotated[int, Query(ge=1, le=64, description="GPUs in one build")] = 1,
    datacenter: Annotated[
        bool, Query(description="exclude cards whose licence bars datacenter use")
    ] = False,
    deployment: Annotated[
        Deployment,
        Query(description="machines to price a build of count GPUs in; auto: see the layout"),
    ] = "auto",
    network: Annotated[
        Network, Query(description="between machines, when a build needs several")
    ] = "infiniband",
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    sort: Annotated[Sort, Query()] = "perf_per_dollar",
    params_b: Annotated[
        float | None,
        Query(
            gt=0, le=10000, description="LLM size in billions: sizes memory instead of memory_gb"
        ),
    ] = None,
    mode: Annotated[LlmMode, Query(description="with params_b")] = "inference",
    context: Annotated[int, Query(ge=1, le=2_000_000, description="tokens, with params_b")] = 4096,
    batch: Annotated[int, Query(ge=1, le=4096, description="sequences, with params_b")] = 1,
    weights: Annotated[
        WeightPrecision | None,
        Query(description="weight storage with params_b; default follows precision"),
    ] = None,
    llm_model: Annotated[
        str | None,
        Query(
            alias="model",
            max_length=64,
            description="an LLM family of the shape table (e.g. llama-3-70b, mixtral-8x7b): "
            "its layers, KV heads and sizes; params_b may then be left out",
        ),
    ] = None,
    kv_heads: Annotated[
        int | None,
        Query(
            ge=1,
            le=1024,
            description="with params_b: heads that keep K and V (default 8 from 7B up, "
            "grouped-query attention; all heads below)",
        ),
    ] = None,
    active_params_b: Annotated[
        float | None,
        Query(
            gt=0, le=10000, description="with params_b: parameters per token (mixture of experts)"
        ),
    ] = None,
    phase: Annotated[
        Phase | None,
        Query(
            description="training or inference: task=cv with phase=inference ranks CNN "
            "inference (MLPerf ResNet-50, RetinaNet, 3D U-Net), as precision=int8 does"
        ),
    ] = None,
) -> Response:
    profile = TASKS[task]
    try:
        checked_phase(task, phase)
    except InvalidInputError as exc:
        raise InvalidParameter("phase", str(exc), exc.valid) from exc
    estimate: MemoryEstimateOut | None = None
    described = params_b is not None or llm_model is not None
    if not described and (kv_heads is not None or active_params_b is not None):
        given = "kv_heads" if kv_heads is not None else "active_params_b"
        raise InvalidParameter(given, "only with params_b or model", ["params_b", "model"])
    if described:
        if memory_gb is not None:
            raise InvalidParameter(
                "memory_gb", "give memory_gb or params_b, not both", ["memory_gb", "params_b"]
            )
        stored = weights or default_weights(precision)
        estimate = llm_memory_estimate(
            params_b,
            stored,
            mode,
            context,
            batch,
            count,
            model=llm_model,
            kv_heads=kv_heads,
            active_params_b=active_params_b,
        )
    if estimate is not None:
        needed, basis = needed_gb(estimate), f"estimated for an LLM: {estimate.formula}"
    elif memory_gb is not None:
        needed, basis = memory_gb, "requested"
    else:
        needed, basis = profile.min_memory_gb, profile.memory_basis
    query = RecommendQuery(
        task=task,
        memory_gb=needed,
        memory_basis=basis,
        memory_estimate=estimate,
        precision=precision,
        condition=condition,
        pricing=pricing,
        budget_usd=budget_usd,
        count=count,
        datacenter=datacenter,
        deployment=deployment,
        network=network,
        limit=limit,
        sort=sort,
        phase=phase,
    )
    cache: ScoreCache = request.app.state.score_cache
    responses: ResponseCache = request.app.state.response_cache
    # best_quote shows the caller's quotes only (read from the session by the ranking).
    # The shared answer cache, keyed by the query, holds answers without quotes; a caller
    # who may see recent quotes gets an answer of its own, never cached for others.
    viewer = quote_viewer(key)
    if sees_recent_quotes(session, viewer, datetime.now(UTC), settings.price_stale_days):
        show_quotes_to(session, viewer)
        responses = ResponseCache(max_entries=0)
    body = recommend_json(session, cache, responses, query, settings, model)
    # Pre-serialized (and often cached) JSON; response_model documents its shape.
    return Response(content=body, media_type="application/json")
