"""One Celery configuration for every service that runs tasks.

Each service builds its own app from this (the worker for compute and alerts, the
scraper for scrape), so no service imports another; beat and producers send tasks by
name. Reliability settings follow the conventions: declared queues only, late acks,
redelivery when a worker dies, prefetch 1, time limits on every task.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from celery import Celery, Task
from kombu import Queue  # type: ignore[attr-defined]

from shared.kit.context import Context
from shared.kit.events import QUEUES
from shared.kit.settings import Settings
from shared.kit.taskruns import record
from shared.wiring.runtime import open_context

TASK_LOG_FORMAT = (
    '{"time": "%(asctime)s", "level": "%(levelname)s", "process": "%(processName)s", '
    '"task": "%(task_name)s", "task_id": "%(task_id)s", "message": "%(message)s"}'
)
WORKER_LOG_FORMAT = (
    '{"time": "%(asctime)s", "level": "%(levelname)s", "process": "%(processName)s", '
    '"message": "%(message)s"}'
)


_contexts: dict[int, Context] = {}
_contexts_lock = threading.Lock()


def app_settings(app: Celery) -> Settings:
    """The settings `app` was made with (make_celery)."""
    settings: Settings = app.conf.gpu_advisor_settings
    return settings


def task_context(app: Celery) -> Context:
    """The Context tasks of `app` run with, opened on first use in each worker process (a
    prefork child opens its own engine instead of sharing the parent's connections)."""
    with _contexts_lock:
        ctx = _contexts.get(id(app))
        if ctx is None:
            ctx = _contexts[id(app)] = open_context(app_settings(app))
        return ctx


class RecordedTask(Task):  # type: ignore[misc]
    """Keeps a task_run row per task id: started, retrying, success or failed."""

    @property
    def context(self) -> Context:
        return task_context(self.app)

    def _args(self, args: Any) -> str:
        return json.dumps(list(args or []), default=str)

    def before_start(self, task_id: str, args: Any, kwargs: Any) -> None:
        attempts = int(getattr(self.request, "retries", 0)) + 1
        record(
            self.context.engine,
            task_id,
            self.name,
            "started",
            args=self._args(args),
            attempts=attempts,
        )

    def on_success(self, retval: Any, task_id: str, args: Any, kwargs: Any) -> None:
        record(self.context.engine, task_id, self.name, "success", args=self._args(args))

    def on_retry(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        attempts = int(getattr(self.request, "retries", 0)) + 1
        record(
            self.context.engine, task_id, self.name, "retrying", attempts=attempts, error=repr(exc)
        )

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        attempts = int(getattr(self.request, "retries", 0)) + 1
        record(
            self.context.engine, task_id, self.name, "failed", attempts=attempts, error=repr(exc)
        )


def make_celery(main: str, include: list[str], settings: Settings) -> Celery:
    app = Celery(main, broker=settings.broker_url or "redis://127.0.0.1:6379/0", include=include)
    app.conf.update(
        task_queues=[Queue(name) for name in QUEUES.values()],  # type: ignore[no-untyped-call]
        task_default_queue=QUEUES["compute"],
        task_create_missing_queues=False,
        task_routes={f"{name}.*": {"queue": queue} for name, queue in QUEUES.items()},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=settings.task_soft_time_limit_s,
        task_time_limit=settings.task_time_limit_s,
        task_ignore_result=True,
        broker_transport_options={
            "visibility_timeout": settings.redis_visibility_timeout_s,
            "unacked_restore_interval": settings.redis_restore_interval_s,
            # Every sweep scans, so the interval alone sets how fast a dead worker's
            # task comes back.
            "unacked_restore_throttle": 1,
        },
        broker_connection_retry_on_startup=True,
        worker_task_log_format=TASK_LOG_FORMAT,
        worker_log_format=WORKER_LOG_FORMAT,
        timezone="UTC",
        enable_utc=True,
        gpu_advisor_settings=settings,
    )
    return app


def retry_options(settings: Settings) -> dict[str, Any]:
    """Jittered exponential backoff, capped below the visibility timeout."""
    return {
        "retry_backoff": True,
        "retry_backoff_max": settings.task_retry_backoff_max_s,
        "retry_jitter": True,
        "max_retries": settings.task_max_retries,
    }
