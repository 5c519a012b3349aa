"""GET /health: can the service answer, and from how fresh data."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from services.api.deps import SessionDep, SettingsDep
from shared.broker import broker_reachable
from shared.models import ScoreState

router = APIRouter(tags=["health"])


@router.get("/health")
def health(session: SessionDep, settings: SettingsDep) -> JSONResponse:
    """200 while the API can answer (degraded without a broker); 503 without a database."""
    try:
        # The newest price behind the current ranking, stamped by every recompute: a
        # primary-key read, so load balancers can poll this cheaply.
        state = session.get(ScoreState, 1)
        newest = state.prices_as_of if state else None
    except Exception as exc:  # any driver error means the database is unreachable
        body = {"status": "down", "database": f"error: {type(exc).__name__}"}
        return JSONResponse(status_code=503, content=body)
    content: dict[str, Any] = {"status": "ok", "database": "ok"}
    if settings.broker_url:
        content["broker"] = "ok" if broker_reachable(settings.broker_url) else "unreachable"
        if content["broker"] != "ok":
            content["status"] = "degraded"
    else:
        content["broker"] = "in-process"
    content["newest_price_at"] = newest.isoformat() if newest else None
    content["newest_price_age_hours"] = (
        round((datetime.now(UTC) - newest).total_seconds() / 3600, 1) if newest else None
    )
    content["scores"] = (
        {
            "revision": state.revision,
            "model_version": state.model_version,
            "computed_at": state.computed_at.isoformat(),
        }
        if state
        else None
    )
    return JSONResponse(content)
