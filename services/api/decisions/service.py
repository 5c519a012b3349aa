"""Decision endpoints: answer the query as GET /recommend does, keep it, read it back to
its key alone, re-ask it today."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from fastapi import HTTPException, Request
from pydantic import ValidationError
from sqlmodel import Session

from services.api.decisions.schemas import DecisionIn, DecisionQuery, ReplayOut
from services.api.errors import InvalidParameter
from services.api.recommend.service import recommend_answer
from shared.alerts.models import ApiKey
from shared.decisions import store
from shared.decisions.models import Decision
from shared.decisions.prices import prices_used
from shared.decisions.replay import what_moved
from shared.kit.errors import InputError
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel


def answer(
    request: Request,
    session: Session,
    settings: Settings,
    model: ClassModel,
    key: ApiKey,
    query: DecisionQuery,
) -> bytes:
    """GET /recommend's body for `query`, as the key gets it there; a parameter the
    route refuses is refused here under `query.`."""
    try:
        return recommend_answer(
            session,
            request.app.state.score_cache,
            request.app.state.response_cache,
            query,
            settings,
            model,
            key,
        )
    except InputError as exc:
        raise InvalidParameter(f"query.{exc.field}", exc.message, exc.valid) from exc


def create(
    request: Request,
    session: Session,
    settings: Settings,
    model: ClassModel,
    key: ApiKey,
    body: DecisionIn,
) -> str:
    """Answer, keep and return the decision document (JSON text)."""
    assert key.id is not None
    now = datetime.now(UTC)
    body_bytes = answer(request, session, settings, model, key, body.query)
    prices = prices_used(session, json.loads(body_bytes), settings, now)
    # The query as the caller gave it: replay re-asks that, defaults of the day included.
    query = body.query.model_dump(mode="json", exclude_unset=True)
    decision = store.store_decision(session, key.id, query, body.note, body_bytes, prices, now)
    return store.document_json(decision)


def find(session: Session, decision_id: str, key: ApiKey) -> Decision:
    assert key.id is not None
    decision = store.owned_decision(session, decision_id, key.id)
    if decision is None:
        raise HTTPException(
            status_code=404,
            detail={
                "message": f"decision_id: unknown decision {decision_id!r} (or another key's)",
                "field": "decision_id",
            },
        )
    return decision


def replay(
    request: Request,
    session: Session,
    settings: Settings,
    model: ClassModel,
    key: ApiKey,
    decision: Decision,
) -> ReplayOut:
    """The decision's query answered now, and what moved since it was kept."""
    try:
        query = DecisionQuery.model_validate(store.query_of(decision))
    except ValidationError as exc:  # a query valid then that today's parameters refuse
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise InvalidParameter(f"query.{field}", str(first["msg"])) from None
    today = json.loads(answer(request, session, settings, model, key, query))
    moved = what_moved(store.answer_of(decision), today)
    return ReplayOut.model_validate(
        {
            **moved,
            "decision_id": decision.id,
            "decided_at": decision.created_at,
            "replayed_at": datetime.now(UTC),
            "answer": today,
        }
    )
