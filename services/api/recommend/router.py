"""GET /recommend."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from services.api.auth import KEY_OPTIONAL, OptionalKey
from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.errors import InvalidParameter
from services.api.openapi_inputs import (
    LLM_SERVING_RULE,
    LLM_SHAPE_RULE,
    PHASE_RULE,
    SOFTWARE_RULE,
    inputs,
    one_of,
    rule,
)
from services.api.recommend.cache import ResponseCache
from services.api.recommend.schemas import RecommendResponse
from services.api.recommend.service import recommend_json
from shared.alerts.keys import quote_viewer
from shared.builds.predict import InvalidInputError, checked_phase
from shared.catalog.tasks import TASKS
from shared.perfmodel.llm_shapes import MODEL_NAMES
from shared.perfmodel.units import UnknownSoftware, software_for
from shared.perfmodel.workloads import LlmWorkload, implied_phase, task_class
from shared.pricing.quotes import sees_recent_quotes, show_quotes_to
from shared.recommend.memory import default_weights, llm_memory_estimate, needed_gb
from shared.recommend.request import RecommendRequest
from shared.recommend.schemas import MemoryEstimateOut, RecommendQuery, default_sort
from shared.recommend.scores import ScoreCache

router = APIRouter(tags=["recommend"])

# What the document cannot say with types (services/api/openapi_inputs.py): the shape
# table's model names, and the rules that join parameters. The charts of this answer take
# the same query and declare the same.
RECOMMEND_INPUTS = inputs(
    [
        rule("give memory_gb or an LLM (params_b or model), not both", "memory_gb"),
        rule("only with params_b or model", "kv_heads", "active_params_b"),
        LLM_SERVING_RULE,
        SOFTWARE_RULE,
        PHASE_RULE,
        LLM_SHAPE_RULE,
    ],
    model=one_of(MODEL_NAMES),
)


def _check_units(params: RecommendRequest) -> None:
    """software and prompt_tokens belong to some tasks only: a 422 names the field."""
    for name in ("prompt_tokens", "min_tokens_per_s_per_user", "max_ttft_ms"):
        if getattr(params, name) is not None and params.task != "llm-inference":
            raise InvalidParameter(name, "only with task llm-inference", ["task=llm-inference"])
    if params.software is None:
        return
    llm = params.batch if params.params_b is not None or params.model is not None else 1
    phase = implied_phase(params.task, params.precision, params.phase)
    klass = task_class(params.task, LlmWorkload(8.0, batch=llm), phase)
    try:
        software_for(klass, params.software)
    except UnknownSoftware as exc:
        raise InvalidParameter(
            "software", f"{exc}: for {params.task} ({klass})", list(exc.valid)
        ) from exc


@router.get(
    "/recommend",
    response_model=RecommendResponse,
    openapi_extra={**KEY_OPTIONAL, **RECOMMEND_INPUTS},
)
def get_recommendation(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    key: OptionalKey,
    # One schema for these parameters and `gpu-advisor recommend`'s options; the pages and
    # charts that take this route as their dependency accept exactly them too.
    params: Annotated[RecommendRequest, Query()],
) -> Response:
    profile = TASKS[params.task]
    try:
        checked_phase(params.task, params.phase)
    except InvalidInputError as exc:
        raise InvalidParameter("phase", str(exc), exc.valid) from exc
    _check_units(params)
    estimate: MemoryEstimateOut | None = None
    described = params.params_b is not None or params.model is not None
    if not described and (params.kv_heads is not None or params.active_params_b is not None):
        given = "kv_heads" if params.kv_heads is not None else "active_params_b"
        raise InvalidParameter(given, "only with params_b or model", ["params_b", "model"])
    if described:
        if params.memory_gb is not None:
            raise InvalidParameter(
                "memory_gb", "give memory_gb or params_b, not both", ["memory_gb", "params_b"]
            )
        estimate = llm_memory_estimate(
            params.params_b,
            params.weights or default_weights(params.precision),
            params.mode,
            params.context,
            params.batch,
            params.count,
            model=params.model,
            kv_heads=params.kv_heads,
            active_params_b=params.active_params_b,
        )
    if estimate is not None:
        needed, basis = needed_gb(estimate), f"estimated for an LLM: {estimate.formula}"
    elif params.memory_gb is not None:
        needed, basis = params.memory_gb, "requested"
    else:
        needed, basis = profile.min_memory_gb, profile.memory_basis
    query = RecommendQuery(
        task=params.task,
        memory_gb=needed,
        memory_basis=basis,
        memory_estimate=estimate,
        precision=params.precision,
        condition=params.condition,
        pricing=params.pricing,
        budget_usd=params.budget_usd,
        count=params.count,
        datacenter=params.datacenter,
        deployment=params.deployment,
        network=params.network,
        limit=params.limit,
        sort=params.sort or default_sort(params.task),
        phase=params.phase,
        software=params.software,
        prompt_tokens=params.prompt_tokens,
        min_tokens_per_s_per_user=params.min_tokens_per_s_per_user,
        max_ttft_ms=params.max_ttft_ms,
        utilization=params.utilization,
        years=params.years,
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
