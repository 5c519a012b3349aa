"""The worker's Celery app: `celery -A services.worker.celery_app worker -Q compute,alerts`.

Celery's command line needs a module-level app; building it reads settings and opens
no connection (each worker process opens its Context on its first task).
"""

from __future__ import annotations

from services.worker.schedule import beat_schedule
from shared.kit.settings import get_settings
from shared.wiring.celery_app import make_celery

settings = get_settings()
app = make_celery(
    "gpu_advisor_worker",
    include=["services.worker.tasks.jobs"],
    settings=settings,
)
app.conf.beat_schedule = beat_schedule(settings)
