"""Compute tasks: scores after price changes, and the daily full recompute."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.worker.celery_app import app
from shared.kit.events import RECOMPUTE_SCORES
from shared.quotes.jobs import RECOMPUTE_QUOTES, recompute_standard_quotes_job
from shared.wiring.celery_app import RecordedTask, app_settings, retry_options, task_context
from shared.wiring.jobs import (
    FULL_RECOMPUTE,
    RESEND_UNSENT,
    TransientJobError,
    full_recompute_job,
    recompute_job,
    resend_unsent_job,
)

# Only failures that can pass are retried; a bad GPU id (ValueError) fails at once.
TRANSIENT = (TransientJobError, OperationalError, ConnectionError, TimeoutError)
RETRIES = retry_options(app_settings(app))


@app.task(  # type: ignore[untyped-decorator]
    name=RECOMPUTE_SCORES, base=RecordedTask, autoretry_for=TRANSIENT, **RETRIES
)
def recompute_scores(gpu_ids: list[str] | None = None) -> dict[str, Any]:
    return recompute_job(task_context(app), gpu_ids)


@app.task(  # type: ignore[untyped-decorator]
    name=FULL_RECOMPUTE, base=RecordedTask, autoretry_for=TRANSIENT, **RETRIES
)
def full_recompute() -> dict[str, Any]:
    return full_recompute_job(task_context(app))


@app.task(  # type: ignore[untyped-decorator]
    name=RECOMPUTE_QUOTES, base=RecordedTask, autoretry_for=TRANSIENT, **RETRIES
)
def recompute_standard_quotes(gpu_ids: list[str] | None = None) -> dict[str, Any]:
    return recompute_standard_quotes_job(task_context(app), gpu_ids)


# No retries: the next sweep comes soon, and a failed send stays parked in the table.
@app.task(name=RESEND_UNSENT, base=RecordedTask)  # type: ignore[untyped-decorator]
def resend_unsent() -> dict[str, Any]:
    return resend_unsent_job(task_context(app))
