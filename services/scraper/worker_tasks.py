"""Scrape tasks, sent by beat by name (scrape.run_source, scrape.staleness_sweep)."""

from __future__ import annotations

from typing import Any

from services.scraper.celery_app import app
from services.scraper.errors import TransientFetchError
from shared.wiring.celery_app import RecordedTask, app_settings, retry_options, task_context

SCRAPE_SOURCE = "scrape.run_source"
STALENESS_SWEEP = "scrape.staleness_sweep"


@app.task(  # type: ignore[untyped-decorator]
    name=SCRAPE_SOURCE,
    base=RecordedTask,
    autoretry_for=(TransientFetchError, ConnectionError, TimeoutError),
    **retry_options(app_settings(app)),
)
def run_source(source: str) -> dict[str, Any]:
    from services.scraper.jobs import scrape_job
    from services.scraper.settings import get_scraper_settings

    return scrape_job(task_context(app), source, get_scraper_settings())


@app.task(name=STALENESS_SWEEP, base=RecordedTask)  # type: ignore[untyped-decorator]
def staleness_sweep() -> dict[str, Any]:
    from services.scraper.jobs import staleness_sweep_job

    return staleness_sweep_job(task_context(app))
