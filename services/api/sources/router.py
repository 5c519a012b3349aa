"""GET /sources: each scraped source's last success, failures and staleness."""

from __future__ import annotations

from fastapi import APIRouter

from services.api.deps import SessionDep
from services.api.sources import service
from services.api.sources.schemas import SourcesOut

router = APIRouter(tags=["sources"])


@router.get("/sources", response_model=SourcesOut)
def get_sources(session: SessionDep) -> SourcesOut:
    return service.list_sources(session)
