"""GET /tco: own `count` x `gpu` versus renting `cloud_gpu`, with every assumption sourced."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from services.api.deps import ModelDep, SessionDep, SettingsDep, VaryOnAccept
from services.api.errors import InvalidParameter
from services.api.tco import service
from services.api.tco.schemas import TcoResponse
from shared.catalog.aliases import resolve_alias
from shared.catalog.specs import load_catalog
from shared.tco.schemas import TcoRequest

router = APIRouter(tags=["tco"])


def resolve_gpu(field: str, text: str) -> str:
    gpu_id = resolve_alias(text)
    if gpu_id is None:
        raise InvalidParameter(field, f"unknown GPU {text!r}", load_catalog().ids)
    return gpu_id


@router.get("/tco", response_model=TcoResponse, dependencies=[VaryOnAccept])
def get_tco(
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    query: Annotated[TcoRequest, Query()],
) -> TcoResponse:
    cloud_gpu = query.cloud_gpu
    request = query.model_copy(
        update={
            "gpu": resolve_gpu("gpu", query.gpu),
            "cloud_gpu": None if cloud_gpu is None else resolve_gpu("cloud_gpu", cloud_gpu),
        }
    )
    return service.tco(session, request, settings, model)
