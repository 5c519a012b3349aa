"""GET /tco: own `count` x `gpu` versus renting `cloud_gpu`, with every assumption sourced."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from fastapi import APIRouter, Query

from services.api.builds.schemas import Deployment, Network
from services.api.deps import ModelDep, SessionDep, SettingsDep, VaryOnAccept
from services.api.errors import InvalidParameter
from services.api.recommend.schemas import Condition, Precision, Task
from services.api.tco import service
from services.api.tco.schemas import Pricing, TcoResponse
from shared.catalog.aliases import resolve_alias
from shared.catalog.specs import load_catalog
from shared.tco.request import TcoRequest

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
    gpu: Annotated[str, Query(description="GPU to own (id or name)")],
    count: Annotated[int, Query(ge=1, le=512)] = 1,
    cloud_gpu: Annotated[
        str | None, Query(description="GPU to rent; default: the same, else the closest by speed")
    ] = None,
    pricing: Annotated[Pricing, Query()] = "on-demand",
    task: Annotated[Task, Query(description="sets the speed comparison")] = "cv",
    precision: Annotated[Precision, Query()] = "fp16",
    condition: Annotated[Condition, Query(description="market price used")] = "any",
    deployment: Annotated[
        Deployment, Query(description="machines the owned build is priced in")
    ] = "auto",
    network: Annotated[Network, Query(description="between machines")] = "infiniband",
    power_limit_w: Annotated[float | None, Query(gt=0, le=2000)] = None,
    purchase_usd: Annotated[Decimal | None, Query(ge=0, le=100_000_000)] = None,
    gpu_watts: Annotated[float | None, Query(ge=0, le=5000)] = None,
    system_watts: Annotated[float | None, Query(ge=0, le=100_000)] = None,
    utilization: Annotated[float | None, Query(gt=0, le=1)] = None,
    electricity_usd_per_kwh: Annotated[Decimal | None, Query(ge=0, le=10)] = None,
    pue: Annotated[float | None, Query(ge=1, le=3)] = None,
    years: Annotated[float | None, Query(gt=0, le=20)] = None,
    resale_pct: Annotated[float | None, Query(ge=0, lt=1)] = None,
    cloud_usd_per_hour: Annotated[
        Decimal | None, Query(ge=0, le=1000, description="per GPU-hour")
    ] = None,
    spot_interruption_overhead: Annotated[float | None, Query(ge=0, le=5)] = None,
    carbon_kg_per_kwh: Annotated[float | None, Query(ge=0, le=5)] = None,
) -> TcoResponse:
    request = TcoRequest(
        gpu=resolve_gpu("gpu", gpu),
        count=count,
        cloud_gpu=None if cloud_gpu is None else resolve_gpu("cloud_gpu", cloud_gpu),
        pricing=pricing,
        task=task,
        precision=precision,
        condition=condition,
        deployment=deployment,
        network=network,
        power_limit_w=power_limit_w,
        purchase_usd=purchase_usd,
        gpu_watts=gpu_watts,
        system_watts=system_watts,
        utilization=utilization,
        electricity_usd_per_kwh=electricity_usd_per_kwh,
        pue=pue,
        years=years,
        resale_pct=resale_pct,
        cloud_usd_per_hour=cloud_usd_per_hour,
        spot_interruption_overhead=spot_interruption_overhead,
        carbon_kg_per_kwh=carbon_kg_per_kwh,
    )
    return service.tco(session, request, settings, model)
