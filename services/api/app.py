"""The FastAPI application."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool

from services.api import (
    errors,
    metrics,
    openapi_errors,
    openapi_inputs,
    openapi_security,
    process_lock,
)
from services.api.alerts.inflight import TestsInFlight
from services.api.alerts.router import router as alerts_router
from services.api.charts.router import router as charts_router
from services.api.charts.series_cache import SeriesCache
from services.api.decisions.router import router as decisions_router
from services.api.forwarded import ForwardedClient
from services.api.gpus.router import router as gpus_router
from services.api.guard import InputGuard
from services.api.health.router import FreshnessCache
from services.api.health.router import router as health_router
from services.api.model.router import router as model_router
from services.api.prices.cache import PriceCache
from services.api.prices.router import router as prices_router
from services.api.quotes.router import router as quotes_router
from services.api.ratelimit import RateLimiter
from services.api.recommend.cache import ResponseCache
from services.api.recommend.router import router as recommend_router
from services.api.security_headers import SecurityHeaders
from services.api.sources.router import router as sources_router
from services.api.strict import reject_unknown_query
from services.api.tco.router import router as tco_router
from services.api.web.router import router as web_router
from shared.kit.settings import Settings, get_settings
from shared.recommend.scores import ScoreCache
from shared.wiring.bootstrap import prepare_database
from shared.wiring.runtime import close_context, open_context
from shared.wiring.scheduler import InProcessScheduler

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; with `prepare_on_start` it migrates and loads bundled data first."""
    settings = settings or get_settings()
    prepare = settings.prepare_on_start

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Without a broker this process's scheduler, jobs and limits are the only ones.
        single = settings.in_process_tasks and settings.inprocess_scheduler
        lock = process_lock.hold(settings.data_dir) if single else None
        # Requests and background jobs share this one context: its database, settings,
        # model and dispatcher.
        ctx = open_context(settings)
        app.state.context = ctx
        app.state.engine = ctx.engine
        app.state.model = ctx.model
        if prepare:
            await run_in_threadpool(prepare_database, ctx)
        # Work queued in the database by a process that was killed runs now.
        ctx.dispatcher.wake()
        scheduler = None
        if settings.in_process_tasks and settings.inprocess_scheduler:
            scheduler = InProcessScheduler(ctx)
            scheduler.start()
        yield
        if scheduler is not None:
            scheduler.stop()
        close_context(ctx)
        if lock is not None:
            process_lock.release(lock)

    # Swagger UI and ReDoc from fastapi-offline's packaged assets, not a CDN: /docs and
    # /redoc must work on closed procurement networks.
    app = FastAPIOffline(
        title="GPU Advisor",
        version="0.1.0",
        summary="Which GPUs to buy or rent for deep learning, and what they will cost.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.score_cache = ScoreCache()
    app.state.response_cache = ResponseCache()
    app.state.freshness_cache = FreshnessCache()
    app.state.price_cache = PriceCache()
    app.state.series_cache = SeriesCache()
    app.state.webhook_tests = TestsInFlight(settings.webhook_tests_per_key)
    errors.install(app)
    # Bad input is refused before routes and the database; inside the request metrics,
    # which count the refusals (route "unmatched").
    app.add_middleware(InputGuard, max_bytes=settings.max_request_bytes)
    metrics.install(app)
    # Outermost: refusals and errors carry the headers too; the client is known before
    # anything counts it.
    app.add_middleware(SecurityHeaders)
    app.add_middleware(ForwardedClient, trusted_proxies=settings.trusted_proxies)
    app.state.rate_limiter = RateLimiter(settings.rate_limit_per_minute, settings.broker_url)
    reads = openapi_security.read_dependencies(settings)
    # JSON routes refuse unknown query parameters; pages keep their own error pages.
    api = [Depends(reject_unknown_query)]
    # First: browsers asking for HTML on /gpus/{id} and /tco get the pages; API clients
    # fall through to the JSON routes on the same paths.
    app.include_router(web_router, dependencies=reads)
    app.include_router(health_router, dependencies=api)
    for router in (
        recommend_router,
        gpus_router,
        model_router,
        prices_router,
        sources_router,
        tco_router,
        quotes_router,
        charts_router,
    ):
        app.include_router(router, dependencies=[*reads, *api])
    app.include_router(alerts_router, dependencies=api)
    app.include_router(decisions_router, dependencies=api)
    openapi_security.install(app, settings)
    openapi_inputs.install(app)
    openapi_errors.install(app)
    return app
