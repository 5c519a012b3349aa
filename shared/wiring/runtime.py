"""Composition root: the one place a Context is assembled from settings."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from shared.kit.context import Context
from shared.kit.db import engine_for
from shared.kit.events import Dispatcher
from shared.kit.inprocess import InProcessDispatcher, RetryPolicy
from shared.kit.outbox import CeleryDispatcher
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.registry import get_model
from shared.sources.specs import scrape_intervals
from shared.wiring.blas import one_blas_thread
from shared.wiring.jobs import COALESCED, JOBS, TRANSIENT


def open_context(
    settings: Settings, engine: Engine | None = None, model: ClassModel | None = None
) -> Context:
    """A Context on `settings`' database: Celery when a broker is configured, else an
    in-process dispatcher whose jobs run against this same context. A schedule naming
    an unknown source stops every entry point here, with the valid names."""
    scrape_intervals(settings.scrape_schedule())
    one_blas_thread()
    dispatcher: Dispatcher
    if settings.broker_url:
        dispatcher = CeleryDispatcher(settings, coalesce=COALESCED)
    else:
        dispatcher = InProcessDispatcher(
            JOBS,
            eager=settings.inprocess_mode == "eager",
            coalesce=COALESCED,
            retry=RetryPolicy(
                transient=TRANSIENT,
                max_retries=settings.task_max_retries,
                backoff_max_s=settings.task_retry_backoff_max_s,
                lease_s=settings.job_lease_s,
            ),
        )
    ctx = Context(
        settings=settings,
        engine=engine if engine is not None else engine_for(settings),
        # One model per process: loading its parameters is the slow part of a start.
        model=model if model is not None else get_model(),
        dispatcher=dispatcher,
    )
    if isinstance(dispatcher, InProcessDispatcher):
        dispatcher.attach(ctx)
    elif isinstance(dispatcher, CeleryDispatcher):
        dispatcher.attach(ctx.engine)
    return ctx


def close_context(ctx: Context) -> None:
    """Finish in-process work (relay the broker's outbox), then release the database
    connections."""
    if isinstance(ctx.dispatcher, InProcessDispatcher | CeleryDispatcher):
        ctx.dispatcher.shutdown()
    ctx.engine.dispose()
