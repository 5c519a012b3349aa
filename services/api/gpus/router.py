"""GET /gpus and GET /gpus/{id}."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request

from services.api.as_of import AS_OF_INPUT, AS_OF_RULE
from services.api.auth import KEY_OPTIONAL, OptionalKey
from services.api.deps import (
    MAX_OFFSET,
    ModelDep,
    SessionDep,
    SettingsDep,
    VaryOnAccept,
    catalog_gpu,
)
from services.api.gpus import service
from services.api.gpus.schemas import GpuDetail, GpuPage
from services.api.openapi_inputs import inputs
from shared.alerts.keys import quote_viewer
from shared.builds.schemas import AS_OF_DESCRIPTION
from shared.catalog.specs import GpuSpec, load_catalog
from shared.scoring.as_of import parse_as_of

router = APIRouter(tags=["gpus"])


def _matches(
    gpu: GpuSpec,
    vendor: str | None,
    segment: str | None,
    min_memory_gb: float | None,
    datacenter: bool,
    q: str | None,
) -> bool:
    return (
        (vendor is None or gpu.vendor.lower() == vendor.lower())
        and (segment is None or gpu.segment == segment)
        and (min_memory_gb is None or gpu.memory_gb >= min_memory_gb)
        and not (datacenter and gpu.geforce_eula)
        and (q is None or q.lower() in gpu.name.lower() or q.lower() in gpu.id)
    )


@router.get("/gpus", response_model=GpuPage)
def list_gpus(
    vendor: Annotated[Literal["NVIDIA", "AMD", "nvidia", "amd"] | None, Query()] = None,
    segment: Annotated[Literal["consumer", "workstation", "datacenter"] | None, Query()] = None,
    min_memory_gb: Annotated[float | None, Query(gt=0, le=2048)] = None,
    datacenter: Annotated[bool, Query(description="only cards allowed in datacenters")] = False,
    q: Annotated[str | None, Query(max_length=64, description="text in name or id")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> GpuPage:
    found = [
        g for g in load_catalog().gpus if _matches(g, vendor, segment, min_memory_gb, datacenter, q)
    ]
    return GpuPage(
        total=len(found),
        limit=limit,
        offset=offset,
        items=[service.summary(g) for g in found[offset : offset + limit]],
    )


@router.get(
    "/gpus/{gpu_id}",
    response_model=GpuDetail,
    dependencies=[VaryOnAccept],
    openapi_extra={**KEY_OPTIONAL, **inputs([AS_OF_RULE], as_of=AS_OF_INPUT)},
)
def get_gpu(
    gpu_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
    key: OptionalKey,
    as_of: Annotated[str | None, Query(description=AS_OF_DESCRIPTION)] = None,
) -> GpuDetail:
    """A GPU's specs and prices; `best_quote` shows the caller's key's quotes only."""
    spec = catalog_gpu(gpu_id)
    past = parse_as_of(session, as_of, datetime.now(UTC))
    if past is not None:
        return service.detail_as_of(session, spec, settings, model, past, quote_viewer(key))
    # The app's market rows (charts/series_cache.py) and cloud prices (its price cache),
    # shared with the page and the history.
    state = request.app.state
    return service.detail(
        session,
        spec,
        settings,
        quote_viewer(key),
        state.series_cache.market_rows,
        state.price_cache,
    )
