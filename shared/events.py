"""Background work after a commit: Celery when a broker is configured, in-process otherwise.

Work is enqueued only once the transaction that caused it has committed, so a rolled-back
transaction enqueues nothing, and tasks receive ids, never ORM objects.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select

from shared.settings import Settings, get_settings

log = logging.getLogger(__name__)

RECOMPUTE_SCORES = "compute.recompute_scores"
QUEUES = {"scrape": "scrape", "compute": "compute", "alerts": "alerts"}
_PENDING = "gpu_advisor_pending_tasks"


@dataclass(frozen=True, slots=True)
class TaskCall:
    name: str
    args: tuple[Any, ...]
    queue: str


Job = Callable[..., Any]
_jobs: dict[str, Job] = {}
_jobs_lock = threading.Lock()


def register_job(name: str, job: Job) -> None:
    """Make `job` runnable in-process under the Celery task name `name`."""
    with _jobs_lock:
        _jobs[name] = job


def _known_jobs() -> dict[str, Job]:
    from shared import jobs  # registers the shared jobs on first use

    jobs.register_all()
    with _jobs_lock:
        return dict(_jobs)


class Dispatcher:
    def send(self, call: TaskCall) -> None:
        raise NotImplementedError


class CeleryDispatcher(Dispatcher):
    """Sends by task name, so shared code never imports the worker package."""

    def __init__(self, settings: Settings) -> None:
        from celery import Celery

        self._client = Celery("gpu-advisor-client", broker=settings.broker_url)
        self._client.conf.broker_transport_options = {
            "visibility_timeout": settings.redis_visibility_timeout_s
        }
        self._client.conf.broker_connection_retry_on_startup = True

    def send(self, call: TaskCall) -> None:
        self._client.send_task(call.name, args=list(call.args), queue=call.queue)


class InProcessDispatcher(Dispatcher):
    """One background thread, so in-process recomputes never run concurrently."""

    def __init__(self, eager: bool) -> None:
        self._eager = eager
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-advisor-jobs")
        self.last: Future[Any] | None = None

    def send(self, call: TaskCall) -> None:
        job = _known_jobs()[call.name]
        if self._eager:
            job(*call.args)
            return
        self.last = self._executor.submit(_run_logged, job, call)


def _run_logged(job: Job, call: TaskCall) -> Any:
    try:
        return job(*call.args)
    except Exception:
        log.exception("in-process job %s%s failed", call.name, call.args)
        raise


@lru_cache(maxsize=4)
def _dispatcher_for(broker_url: str, eager: bool) -> Dispatcher:
    # Cached per broker, so every session of a process shares one producer (one pool).
    if broker_url:
        return CeleryDispatcher(get_settings().model_copy(update={"broker_url": broker_url}))
    return InProcessDispatcher(eager)


def get_dispatcher(settings: Settings | None = None) -> Dispatcher:
    settings = settings or get_settings()
    return _dispatcher_for(settings.broker_url, settings.inprocess_mode == "eager")


def enqueue_after_commit(
    session: Session, call: TaskCall, settings: Settings | None = None
) -> None:
    """Send `call` once `session` commits; forget it if the session rolls back."""
    pending: list[TaskCall] = session.info.setdefault(_PENDING, [])
    if not pending and not session.info.get(_PENDING + "_hooked"):
        dispatcher = get_dispatcher(settings)
        event.listen(session, "after_commit", lambda s: _send_pending(s, dispatcher))
        event.listen(session, "after_soft_rollback", lambda s, _t: s.info.pop(_PENDING, None))
        session.info[_PENDING + "_hooked"] = True
    if call not in pending:
        pending.append(call)


def _send_pending(session: Session, dispatcher: Dispatcher) -> None:
    for call in session.info.pop(_PENDING, []):
        try:
            dispatcher.send(call)
        except Exception as exc:
            # The data is committed: park the task for the periodic resend sweep.
            log.warning("could not enqueue %s (%s); parked for resend", call.name, exc)
            park(session.get_bind(), call, exc)


def park(bind: Engine | Connection, call: TaskCall, error: Exception) -> None:
    from shared.models import UnsentTask  # the data model imports nothing from here

    try:
        with Session(bind) as parking:
            parking.add(
                UnsentTask(
                    name=call.name,
                    args=json.dumps(list(call.args)),
                    queue=call.queue,
                    last_error=f"{type(error).__name__}: {error}"[:1000],
                    created_at=datetime.now(UTC),
                )
            )
            parking.commit()
    except Exception:
        # Database gone too: the daily full recompute still catches up.
        log.exception("could not park %s", call.name)


def resend_unsent(bind: Engine, dispatcher: Dispatcher, limit: int = 200) -> dict[str, int]:
    """Send parked tasks; those that fail again stay parked with their attempt count."""
    from shared.models import UnsentTask

    counts = {"sent": 0, "failed": 0}
    with Session(bind) as session:
        query = select(UnsentTask).order_by(col(UnsentTask.id)).limit(limit)
        for row in session.exec(query.with_for_update(skip_locked=True)).all():
            call = TaskCall(row.name, tuple(json.loads(row.args)), row.queue)
            try:
                dispatcher.send(call)
            except Exception as exc:
                row.attempts += 1
                row.last_error = f"{type(exc).__name__}: {exc}"[:1000]
                session.add(row)
                counts["failed"] += 1
                continue
            session.delete(row)
            counts["sent"] += 1
        session.commit()
    return counts


def recompute_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(RECOMPUTE_SCORES, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["compute"])
