"""GET /recommend."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from services.api.deps import SessionDep, SettingsDep
from services.api.recommend.schemas import (
    Condition,
    Precision,
    RecommendQuery,
    RecommendResponse,
    Sort,
    Task,
)
from services.api.recommend.service import ResponseCache, ScoreCache, recommend_json
from shared.scoring.tasks import TASKS

router = APIRouter(tags=["recommend"])

# Above any GPU's memory (B200: 180 GB) times the largest count; more is a typo.
MAX_MEMORY_GB = 2048


@router.get("/recommend", response_model=RecommendResponse)
def get_recommendation(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    task: Annotated[Task, Query(description="workload; sets the default minimum memory")],
    memory_gb: Annotated[
        float | None,
        Query(gt=0, le=MAX_MEMORY_GB, description="minimum memory per GPU (GB)"),
    ] = None,
    precision: Annotated[Precision, Query()] = "fp16",
    condition: Annotated[Condition, Query()] = "any",
    budget_usd: Annotated[float | None, Query(gt=0, description="maximum price per GPU")] = None,
    count: Annotated[int, Query(ge=1, le=64, description="GPUs in one build")] = 1,
    datacenter: Annotated[
        bool, Query(description="exclude cards whose licence bars datacenter use")
    ] = False,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    sort: Annotated[Sort, Query()] = "perf_per_dollar",
) -> Response:
    profile = TASKS[task]
    query = RecommendQuery(
        task=task,
        memory_gb=memory_gb if memory_gb is not None else profile.min_memory_gb,
        memory_basis="requested" if memory_gb is not None else profile.memory_basis,
        precision=precision,
        condition=condition,
        budget_usd=budget_usd,
        count=count,
        datacenter=datacenter,
        limit=limit,
        sort=sort,
    )
    cache: ScoreCache = request.app.state.score_cache
    responses: ResponseCache = request.app.state.response_cache
    body = recommend_json(session, cache, responses, query, settings)
    # Pre-serialized (and often cached) JSON; response_model documents its shape.
    return Response(content=body, media_type="application/json")
