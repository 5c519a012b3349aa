"""Every job of the job table (shared/wiring/jobs.py) as a Celery task of the same name.

The worker discovers the domains' jobs from that table: a new job needs no code here.
Each runs with its worker process's Context; task names route to their queues
(shared/wiring/celery_app.py).
"""

from __future__ import annotations

from typing import Any

from celery import Task

from services.worker.celery_app import app
from shared.alerts.jobs import DISPATCH_DUE
from shared.kit.events import Job
from shared.wiring.celery_app import RecordedTask, app_settings, retry_options, task_context
from shared.wiring.jobs import JOBS, RESEND_UNSENT, TRANSIENT

# Sweeps: the next one comes soon, deliveries retry in the outbox and unsent work stays
# parked in its table, so Celery does not retry these.
SWEEPS = frozenset({DISPATCH_DUE, RESEND_UNSENT})


def _register(name: str, job: Job) -> Task:
    def run(*args: Any) -> Any:
        return job(task_context(app), *args)

    run.__name__ = run.__qualname__ = name.replace(".", "_")
    options: dict[str, Any] = {}
    if name not in SWEEPS:
        options = {"autoretry_for": TRANSIENT, **retry_options(app_settings(app))}
    task: Task = app.task(name=name, base=RecordedTask, **options)(run)
    return task


TASKS: dict[str, Task] = {name: _register(name, job) for name, job in JOBS.items()}
