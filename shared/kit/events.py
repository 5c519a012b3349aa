"""Background work after a commit: Celery when a broker is configured, in-process otherwise.

Work is enqueued only once the transaction that caused it has committed, so a rolled-back
transaction enqueues nothing, and tasks receive ids, never ORM objects.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select

from shared.kit.settings import Settings

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
_DISPATCHER = "gpu_advisor_dispatcher"


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


@dataclass
class _Waiting:
    """A queued call of a coalesced job, not started yet: later calls merge into it."""

    arity: int
    gpu_ids: set[str] | None  # None: every GPU

    @classmethod
    def of(cls, args: tuple[Any, ...]) -> _Waiting:
        ids = args[0] if args else None
        return cls(len(args), None if ids is None else set(ids))

    def merge(self, args: tuple[Any, ...]) -> None:
        more = args[0] if args else None
        self.gpu_ids = None if self.gpu_ids is None or more is None else self.gpu_ids | set(more)

    def args(self) -> tuple[Any, ...]:
        if self.arity == 0:
            return ()
        return (None if self.gpu_ids is None else sorted(self.gpu_ids),)


class InProcessDispatcher(Dispatcher):
    """Runs jobs from `jobs` in one background thread (so in-process recomputes never run
    concurrently), each given the context the dispatcher was attached to.

    Calls of a `coalesce` job (its one argument: GPU ids, or None for all) that arrive
    while one is still queued merge into it: a burst of price writes costs one recompute
    of their GPUs, not one per write.
    """

    def __init__(
        self, jobs: Mapping[str, Job], eager: bool, coalesce: Collection[str] = ()
    ) -> None:
        self._jobs = dict(jobs)
        self._eager = eager
        self._coalesce = frozenset(coalesce)
        self._waiting: dict[str, _Waiting] = {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-advisor-jobs")
        self._context: Any = None
        self._lock = threading.Lock()
        self._pending: set[Future[Any]] = set()

    def attach(self, context: Any) -> None:
        """The first argument of every job this dispatcher runs (a shared.kit.context.Context)."""
        self._context = context

    def send(self, call: TaskCall) -> None:
        if self._context is None:
            raise RuntimeError("in-process dispatcher used before a context was attached")
        job = self._jobs[call.name]
        if self._eager:
            job(self._context, *call.args)
            return
        with self._lock:
            waiting = self._waiting.get(call.name)
            if waiting is not None:
                waiting.merge(call.args)
                return
            if call.name in self._coalesce:
                waiting = self._waiting[call.name] = _Waiting.of(call.args)
            future = self._executor.submit(self._run, job, call, waiting)
            self._pending.add(future)
        future.add_done_callback(self._done)

    def _run(self, job: Job, call: TaskCall, waiting: _Waiting | None) -> Any:
        if waiting is not None:
            with self._lock:  # from now on, new calls queue a new run
                if self._waiting.get(call.name) is waiting:
                    del self._waiting[call.name]
                call = TaskCall(call.name, waiting.args(), call.queue)
        return _run_logged(job, self._context, call)

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    def drain(self) -> None:
        """Wait until no job is queued or running, including the jobs that jobs enqueue
        (a recompute enqueues alert evaluation, which enqueues delivery)."""
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return
            wait(pending)

    def shutdown(self) -> None:
        self.drain()
        self._executor.shutdown(wait=True)


def _run_logged(job: Job, context: Any, call: TaskCall) -> Any:
    try:
        return job(context, *call.args)
    except Exception:
        log.exception("in-process job %s%s failed", call.name, call.args)
        raise


def bind_dispatcher(session: Session, dispatcher: Dispatcher) -> None:
    """Work `session` enqueues goes to `dispatcher` (set where the session is opened)."""
    session.info[_DISPATCHER] = dispatcher


def enqueue_after_commit(session: Session, call: TaskCall) -> None:
    """Send `call` once `session` commits; forget it if the session rolls back.

    The session must have been opened with a dispatcher (Context.session(), the API's
    request session): work is never sent to a process-wide default.
    """
    dispatcher = session.info.get(_DISPATCHER)
    if dispatcher is None:
        raise RuntimeError(
            f"{call.name}: this session has no dispatcher; open it with Context.session()"
        )
    pending: list[TaskCall] = session.info.setdefault(_PENDING, [])
    if not pending and not session.info.get(_PENDING + "_hooked"):
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
