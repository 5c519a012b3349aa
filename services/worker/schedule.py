"""Celery beat: periodic work, sent by task name to its queue."""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

from shared.alerts.jobs import DISPATCH_DUE
from shared.kit.events import QUEUES
from shared.kit.settings import Settings
from shared.sources.specs import scrape_intervals
from shared.wiring.jobs import FULL_RECOMPUTE, RESEND_UNSENT

SCRAPE_SOURCE = "scrape.run_source"
STALENESS_SWEEP = "scrape.staleness_sweep"


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    schedule: dict[str, dict[str, Any]] = {
        "full-recompute-daily": {
            "task": FULL_RECOMPUTE,
            "schedule": crontab(hour=settings.full_recompute_hour_utc, minute=0),
            "options": {"queue": QUEUES["compute"]},
        },
        "webhook-dispatch": {
            "task": DISPATCH_DUE,
            "schedule": settings.alert_dispatch_interval_s,
            "options": {
                "queue": QUEUES["alerts"],
                "expires": settings.alert_dispatch_interval_s * 4,
            },
        },
        "resend-unsent": {
            "task": RESEND_UNSENT,
            "schedule": settings.unsent_resend_interval_s,
            "options": {
                "queue": QUEUES["compute"],
                "expires": settings.unsent_resend_interval_s * 4,
            },
        },
        "staleness-sweep": {
            "task": STALENESS_SWEEP,
            "schedule": float(settings.staleness_sweep_interval_s),
            "options": {"queue": QUEUES["scrape"]},
        },
    }
    for source, interval in scrape_intervals(settings.scrape_schedule()).items():
        schedule[f"scrape-{source}"] = {
            "task": SCRAPE_SOURCE,
            "schedule": float(interval),
            "args": [source],
            "options": {"queue": QUEUES["scrape"]},
        }
    return schedule
