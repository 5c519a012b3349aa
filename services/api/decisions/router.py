"""Decisions: a /recommend answer kept with its query and the prices behind it.

Made with a write key and read back by that key alone (401 without a key, 404 for
another key's, as for an unknown id). Procurement keeps the record; finance re-prices it
later with the replay.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response

from services.api.auth import WriteKey
from services.api.decisions import service
from services.api.decisions.schemas import DecisionIn, DecisionOut, ExportFormat, ReplayOut
from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.recommend.router import RECOMMEND_INPUTS
from shared.decisions.store import decision_csv, document_json

router = APIRouter(prefix="/decisions", tags=["decisions"])

DecisionId = Annotated[str, Path(max_length=64)]
JSON = "application/json"
CSV_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/csv": {"schema": {"type": "string"}}}}
}


# The query's rules are /recommend's (its fields, named `query.<field>` in a 422).
@router.post("", response_model=DecisionOut, status_code=201, openapi_extra=RECOMMEND_INPUTS)
def post_decision(
    body: DecisionIn,
    request: Request,
    key: WriteKey,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
) -> Response:
    """Answer a /recommend query and keep it: the answer as given, the query, the model
    version and the price observations (or cloud offers) each ranked price used, by id."""
    document = service.create(request, session, settings, model, key, body)
    return Response(content=document, status_code=201, media_type=JSON)


@router.get("/{decision_id}", response_model=DecisionOut, responses=CSV_RESPONSE)
def get_decision(
    decision_id: DecisionId,
    key: WriteKey,
    session: SessionDep,
    format: Annotated[
        ExportFormat, Query(description="csv: one line per ranked result with its prices")
    ] = "json",
) -> Response:
    """The decision as it was answered, unchanged; only to the key that made it."""
    decision = service.find(session, decision_id, key)
    if format == "csv":
        return Response(
            content=decision_csv(decision),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="decision-{decision.id}.csv"'},
        )
    return Response(content=document_json(decision), media_type=JSON)


@router.get("/{decision_id}/replay", response_model=ReplayOut)
def replay_decision(
    decision_id: DecisionId,
    request: Request,
    key: WriteKey,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
) -> ReplayOut:
    """The decision's query asked again today: per card, what moved (rank, price, perf per
    $1,000, cost), cards that entered or left, and the model version then and now."""
    decision = service.find(session, decision_id, key)
    return service.replay(request, session, settings, model, key, decision)
