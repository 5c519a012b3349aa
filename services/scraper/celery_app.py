"""The scraper's Celery app: `celery -A services.scraper.celery_app worker -Q scrape`.

Celery's command line needs a module-level app; building it reads settings and opens
no connection (each worker process opens its Context on its first task).
"""

from __future__ import annotations

from shared.kit.settings import get_settings
from shared.wiring.celery_app import make_celery

app = make_celery(
    "gpu_advisor_scraper", include=["services.scraper.worker_tasks"], settings=get_settings()
)
