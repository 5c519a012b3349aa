"""Alert tasks: rule evaluation after changes, and the webhook outbox sweep."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.worker.celery_app import app
from shared.alerts.jobs import DISPATCH_DUE, EVALUATE, dispatch_due_job, evaluate_job
from shared.wiring.celery_app import RecordedTask, app_settings, retry_options, task_context

TRANSIENT = (OperationalError, ConnectionError, TimeoutError)


@app.task(  # type: ignore[untyped-decorator]
    name=EVALUATE,
    base=RecordedTask,
    autoretry_for=TRANSIENT,
    **retry_options(app_settings(app)),
)
def evaluate(gpu_ids: list[str] | None = None) -> dict[str, Any]:
    return evaluate_job(task_context(app), gpu_ids)


# Not retried by Celery: delivery retries live in the outbox, and the next sweep runs soon.
@app.task(name=DISPATCH_DUE, base=RecordedTask)  # type: ignore[untyped-decorator]
def dispatch_due() -> dict[str, Any]:
    return dispatch_due_job(task_context(app))
