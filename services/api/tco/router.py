"""GET /tco: own `count` x `gpu` versus renting `cloud_gpu`, with every assumption sourced."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from services.api.as_of import AS_OF_INPUT, AS_OF_RULE
from services.api.deps import ModelDep, SessionDep, SettingsDep, VaryOnAccept
from services.api.openapi_inputs import inputs, rule
from services.api.tco import service
from services.api.tco.schemas import TcoResponse
from shared.tco.request import with_catalog_ids
from shared.tco.schemas import TcoRequest

router = APIRouter(tags=["tco"])

# What the report takes from today's data when the request does not give it.
TCO_INPUTS = inputs(
    rules=[
        rule("without purchase_usd, gpu has a market price at condition", "purchase_usd"),
        rule(
            "without cloud_gpu, some GPU has a current cloud offer at pricing",
            "cloud_gpu",
        ),
        rule(
            "without cloud_usd_per_hour, the rented GPU has a current offer at pricing",
            "cloud_usd_per_hour",
        ),
        rule("gpu and cloud_gpu can run the precision for the task", "precision", "cloud_gpu"),
        rule("a power limit of at least 30 % of the GPU's TDP", "power_limit_w"),
        AS_OF_RULE,
    ],
    as_of=AS_OF_INPUT,
)


@router.get(
    "/tco", response_model=TcoResponse, dependencies=[VaryOnAccept], openapi_extra=TCO_INPUTS
)
def get_tco(
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    query: Annotated[TcoRequest, Query()],
) -> TcoResponse:
    return service.tco(session, with_catalog_ids(query), settings, model)
