"""GET /tco: own `count` x `gpu` versus renting `cloud_gpu`, with every assumption sourced."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from services.api.deps import ModelDep, SessionDep, SettingsDep, VaryOnAccept
from services.api.tco import service
from services.api.tco.schemas import TcoResponse
from shared.tco.request import with_catalog_ids
from shared.tco.schemas import TcoRequest

router = APIRouter(tags=["tco"])


@router.get("/tco", response_model=TcoResponse, dependencies=[VaryOnAccept])
def get_tco(
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    query: Annotated[TcoRequest, Query()],
) -> TcoResponse:
    return service.tco(session, with_catalog_ids(query), settings, model)
