"""The app with the pages and chart routers, wired as app.py will wire them.

app.py is the lead's file: until it includes these routers, the tests (and the browser
tests' uvicorn server) build the same app here. The page router must come before the
JSON catalog routes so /gpus/{id} can serve HTML to browsers, hence the re-ordering.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from services.api.app import create_app
from services.api.charts.router import router as charts_router
from services.api.web.router import router as web_router
from shared.settings import Settings


def build_app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    if any(getattr(r, "path", None) == "/fragments/recommendation" for r in app.routes):
        return app  # app.py already includes the pages
    before = len(app.router.routes)
    app.include_router(web_router)
    added = app.router.routes[before:]
    # Same effect as `app.include_router(web_router)` placed first in create_app.
    app.router.routes[:] = added + app.router.routes[:before]
    app.include_router(charts_router)
    return app


def from_env() -> FastAPI:
    """uvicorn --factory entry point: settings from GPU_ADVISOR_* variables."""
    assert os.environ.get("GPU_ADVISOR_DATA_DIR"), "set GPU_ADVISOR_DATA_DIR"
    return build_app(Settings())
