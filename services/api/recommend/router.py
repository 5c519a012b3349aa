"""GET /recommend."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from services.api.as_of import AS_OF_INPUT, AS_OF_RULE
from services.api.auth import KEY_OPTIONAL, OptionalKey
from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.openapi_inputs import (
    LLM_SERVING_RULE,
    LLM_SHAPE_RULE,
    PHASE_RULE,
    SOFTWARE_RULE,
    inputs,
    one_of,
    rule,
)
from services.api.recommend.schemas import RecommendResponse
from services.api.recommend.service import recommend_answer
from shared.perfmodel.llm_shapes import MODEL_NAMES
from shared.recommend.request import RecommendRequest

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
        AS_OF_RULE,
    ],
    model=one_of(MODEL_NAMES),
    as_of=AS_OF_INPUT,
)


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
    body = recommend_answer(
        session,
        request.app.state.score_cache,
        request.app.state.response_cache,
        params,
        settings,
        model,
        key,
    )
    # Pre-serialized (and often cached) JSON; response_model documents its shape.
    return Response(content=body, media_type="application/json")
