"""GET /health: is the service able to answer, and from what data."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from services.api.deps import SessionDep

router = APIRouter(tags=["health"])


@router.get("/health")
def health(session: SessionDep) -> JSONResponse:
    try:
        session.execute(text("SELECT 1"))
    except Exception as exc:  # any driver error means the database is unreachable
        return JSONResponse(
            status_code=503, content={"status": "down", "database": f"error: {type(exc).__name__}"}
        )
    return JSONResponse({"status": "ok", "database": "ok"})
