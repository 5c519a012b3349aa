"""GET /sources: every source the scraper has, with its last success, failures and
staleness, or `never_run`."""

from __future__ import annotations

from fastapi import APIRouter

from services.api.deps import SessionDep, SettingsDep
from services.api.sources import service
from services.api.sources.schemas import SourcesOut

router = APIRouter(tags=["sources"])


@router.get("/sources", response_model=SourcesOut)
def get_sources(session: SessionDep, settings: SettingsDep) -> SourcesOut:
    return service.list_sources(session, settings)
