"""Request-scoped dependencies: one database session per request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Response
from sqlalchemy.engine import Engine
from sqlmodel import Session

from shared.catalog.aliases import UnknownGpu, exact_alias
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.context import Context
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel

# The largest `offset` of any list: past any history we keep; larger values are typos
# (and 2^63 overflows SQLite's and PostgreSQL's integers).
MAX_OFFSET = 1_000_000


# Attribute reads are `async def` so FastAPI calls them inline instead of handing each
# one to the thread pool (measurable per request on the hot /recommend path).
async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_context(request: Request) -> Context:
    ctx: Context = request.app.state.context
    return ctx


async def get_app_model(request: Request) -> ClassModel:
    model: ClassModel = request.app.state.model
    return model


def get_session(ctx: Annotated[Context, Depends(get_context)]) -> Iterator[Session]:
    # Commit once, at the boundary: services only flush. Work the request enqueues goes
    # to the app's dispatcher after that commit.
    with ctx.session() as session:
        yield session


# scope="function": the commit runs before the response is sent, so a 201 means stored
# (with FastAPI's default the code after `yield` runs once the client has its answer).
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
ModelDep = Annotated[ClassModel, Depends(get_app_model)]
ContextDep = Annotated[Context, Depends(get_context)]


def catalog_gpu(gpu_id: str) -> GpuSpec:
    """The catalog GPU a path names (an id, catalog name or known alias, exactly), or 404
    naming the field and the closest ids."""
    resolved = exact_alias(gpu_id)
    if resolved is None:
        error = UnknownGpu("gpu_id", gpu_id)
        # Only the close ids: every id would make a 404 for a typo a page long.
        detail = {"message": str(error), "field": "gpu_id", "valid": error.close}
        raise HTTPException(status_code=404, detail=detail)
    return load_catalog().by_id[resolved]


async def vary_on_accept(response: Response) -> None:
    """Paths that also serve an HTML page to browsers answer per Accept header: say so,
    so a shared cache never hands JSON to a browser or a page to an API client."""
    response.headers["Vary"] = "Accept"


VaryOnAccept = Depends(vary_on_accept)
