"""Background work without a broker: jobs run by one thread of this process, from the
durable queue in the database (`shared/kit/jobqueue.py`), or inline ("eager", for tests)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from shared.kit import jobqueue
from shared.kit.events import Dispatcher, Job, TaskCall

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Which failures are retried, how often, and how long to wait (doubling, capped)."""

    transient: tuple[type[BaseException], ...] = ()
    max_retries: int = 5
    backoff_max_s: float = 600.0
    # Claims of a live process older than this are taken over (a hung job).
    lease_s: float = 900.0

    def retry_in(self, error: BaseException, attempts: int) -> float | None:
        """Seconds until the next try after `attempts` failed runs; None: give up."""
        if not isinstance(error, self.transient) or attempts > self.max_retries:
            return None
        return float(min(self.backoff_max_s, 2 ** (attempts - 1)))


class InProcessDispatcher(Dispatcher):
    """Runs jobs from `jobs`, each given the context the dispatcher was attached to.

    Queued work is rows in the database, written in the transaction that caused it, so a
    killed process loses none: the next start runs it. One thread runs the jobs, so
    in-process recomputes never run concurrently; calls of a `coalesce` job that wait
    together run once, for the union of their GPUs.
    """

    def __init__(
        self,
        jobs: Mapping[str, Job],
        eager: bool,
        coalesce: Collection[str] = (),
        retry: RetryPolicy | None = None,
    ) -> None:
        self._jobs = dict(jobs)
        self._eager = eager
        self._coalesce = frozenset(coalesce)
        self._retry = retry or RetryPolicy()
        self._context: Any = None
        self._owner = jobqueue.process_owner()
        self._cond = threading.Condition()
        self._woken = 0  # wake() calls so far
        self._idle_at = -1  # the wake count seen by the last pass that found nothing
        self._stopping = False
        self._thread: threading.Thread | None = None

    def attach(self, context: Any) -> None:
        """The first argument of every job (a shared.kit.context.Context, whose engine
        holds the queue)."""
        self._context = context

    def _attached(self) -> Any:
        if self._context is None:
            raise RuntimeError("in-process dispatcher used before a context was attached")
        return self._context

    def _engine(self) -> Engine:
        engine: Engine = self._attached().engine
        return engine

    def stage(self, session: Session, call: TaskCall) -> bool:
        if self._eager:
            return False
        self._known(call)
        jobqueue.stage(session, call)
        return True

    def _known(self, call: TaskCall) -> None:
        # An unknown job fails the write that queues it, not the runner later.
        if call.name not in self._jobs:
            raise KeyError(f"no in-process job named {call.name!r}")

    def send(self, call: TaskCall) -> None:
        if self._eager:
            self._jobs[call.name](self._attached(), *call.args)
            return
        self._known(call)
        jobqueue.add(self._engine(), call)
        self.wake()

    def wake(self) -> None:
        if self._eager:
            return
        self._engine()
        with self._cond:
            if self._stopping:
                return
            self._woken += 1
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="gpu-advisor-jobs", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def drain(self) -> None:
        """Wait until no job this process could run is queued or running, including the
        jobs that jobs enqueue (a recompute enqueues alert evaluation, which enqueues
        delivery). Jobs waiting for a retry later are not waited for."""
        if self._eager:
            return
        self.wake()
        with self._cond:
            target = self._woken
            while self._idle_at < target and self._thread is not None:
                if not self._thread.is_alive():
                    return
                self._cond.wait(timeout=1.0)

    def shutdown(self) -> None:
        with self._cond:
            started = self._thread is not None
        if started:
            self.drain()
        with self._cond:
            self._stopping = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None:
            thread.join(timeout=30)

    def _loop(self) -> None:
        while True:
            with self._cond:
                if self._stopping:
                    return
                seen = self._woken
            try:
                wait_s = self._step()
            except Exception:
                # The database is unreachable or locked: the rows stay; try again later.
                log.exception("in-process job queue pass failed")
                wait_s = 5.0
            if wait_s == 0:
                continue
            with self._cond:
                self._idle_at = max(self._idle_at, seen)
                self._cond.notify_all()
                if self._woken == seen and not self._stopping:
                    self._cond.wait(timeout=wait_s)

    def _step(self) -> float:
        """Run one claimed job (0: look again at once), or how long to wait for the next
        retry to fall due. Rows of other live processes are found at the next wake (the
        scheduler's resume sweep) or within a minute."""
        engine = self._engine()
        claimed = jobqueue.claim(engine, self._owner, self._coalesce)
        if claimed is None:
            # Rows of a process that died (or hung) are this process's to run, and so are
            # its own left claimed by a failed finish or retry (nothing of it runs now).
            if jobqueue.release_stale(engine, self._owner, self._retry.lease_s) > 0:
                return 0
            due = jobqueue.next_due(engine)
            if due is None:
                return 60.0
            return min(60.0, max(0.05, (due - datetime.now(UTC)).total_seconds()))
        call = claimed.call
        try:
            self._jobs[call.name](self._context, *call.args)
        except Exception as exc:
            attempts = claimed.attempts + 1
            retry_in = self._retry.retry_in(exc, attempts)
            log.exception(
                "in-process job %s%s failed (attempt %d)%s",
                call.name,
                call.args,
                attempts,
                "" if retry_in is None else f"; retrying in {retry_in:.0f} s",
            )
            jobqueue.fail(engine, claimed, self._owner, exc, retry_in)
            return 0
        jobqueue.finish(engine, claimed, self._owner)
        return 0
