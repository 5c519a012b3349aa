"""The in-process dispatcher: work queued in the transaction, coalesced, retried, resumed."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from shared.kit import jobqueue
from shared.kit.db import session_scope
from shared.kit.events import TaskCall, bind_dispatcher, enqueue_after_commit
from shared.kit.inprocess import InProcessDispatcher, RetryPolicy
from shared.models import QueuedJob
from tests.processes import wait_for

RECOMPUTE = "recompute"


class Jobs:
    """Recording jobs; `block` holds the runner until released."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, tuple[Any, ...]]] = []
        self.release = threading.Event()
        self.started = threading.Event()
        self.failures: list[BaseException] = []

    def table(self) -> dict[str, Any]:
        def block(_ctx: object) -> None:
            self.started.set()
            self.release.wait(10)

        def recompute(_ctx: object, gpu_ids: list[str] | None) -> None:
            if self.failures:
                raise self.failures.pop(0)
            self.runs.append((RECOMPUTE, (gpu_ids,)))

        return {"block": block, RECOMPUTE: recompute}


def _dispatcher(engine: Engine, jobs: Jobs, **retry: Any) -> InProcessDispatcher:
    policy = RetryPolicy(transient=(TimeoutError,), backoff_max_s=0.2, **retry)
    dispatcher = InProcessDispatcher(jobs.table(), eager=False, coalesce=[RECOMPUTE], retry=policy)
    dispatcher.attach(SimpleNamespace(engine=engine))
    return dispatcher


def _call(ids: list[str] | None) -> TaskCall:
    return TaskCall(RECOMPUTE, (ids,), "compute")


def _rows(engine: Engine) -> list[QueuedJob]:
    with Session(engine) as session:
        return list(session.exec(select(QueuedJob)).all())


def test_queued_recomputes_of_a_burst_merge_into_one_run(queue: Engine) -> None:
    jobs = Jobs()
    dispatcher = _dispatcher(queue, jobs)
    dispatcher.send(TaskCall("block", (), "compute"))
    assert jobs.started.wait(10)
    for ids in (["rtx-4090"], ["rtx-3090"], ["rtx-4090", "a100-80gb-pcie"]):
        dispatcher.send(_call(ids))
    jobs.release.set()
    dispatcher.drain()
    assert jobs.runs == [(RECOMPUTE, (["a100-80gb-pcie", "rtx-3090", "rtx-4090"],))]
    # Once a run has started, a new call queues a new run; None means every GPU.
    dispatcher.send(_call(["rtx-3090"]))
    dispatcher.drain()
    jobs.release.clear()
    jobs.started.clear()
    dispatcher.send(TaskCall("block", (), "compute"))
    assert jobs.started.wait(10)
    dispatcher.send(_call(["rtx-3090"]))
    dispatcher.send(_call(None))
    jobs.release.set()
    dispatcher.shutdown()
    assert jobs.runs[1:] == [(RECOMPUTE, (["rtx-3090"],)), (RECOMPUTE, (None,))]
    assert _rows(queue) == []


def test_work_is_queued_in_the_writing_transaction(queue: Engine) -> None:
    jobs = Jobs()
    dispatcher = _dispatcher(queue, jobs)
    with session_scope(queue) as session:
        bind_dispatcher(session, dispatcher)
        enqueue_after_commit(session, _call(["rtx-4090"]))
        session.flush()
        # Visible inside the transaction, not outside it before the commit.
        assert session.exec(select(QueuedJob)).one().name == RECOMPUTE
        assert _rows(queue) == []
    dispatcher.drain()
    assert jobs.runs == [(RECOMPUTE, (["rtx-4090"],))]
    with pytest.raises(RuntimeError), session_scope(queue) as session:
        bind_dispatcher(session, dispatcher)
        enqueue_after_commit(session, _call(["rtx-3090"]))
        raise RuntimeError("rolled back")
    dispatcher.shutdown()
    assert jobs.runs == [(RECOMPUTE, (["rtx-4090"],))] and _rows(queue) == []


def test_work_queued_by_a_process_that_stopped_runs_at_the_next_wake(queue: Engine) -> None:
    # Queued and never run: as if the process was killed right after the commit.
    jobqueue.add(queue, _call(["rtx-4090"]))
    jobqueue.add(queue, _call(["rtx-3090"]))
    jobs = Jobs()
    dispatcher = _dispatcher(queue, jobs)
    dispatcher.wake()
    dispatcher.shutdown()
    assert jobs.runs == [(RECOMPUTE, (["rtx-3090", "rtx-4090"],))]
    assert _rows(queue) == []


def test_a_transient_failure_is_retried_and_a_permanent_one_kept(queue: Engine) -> None:
    jobs = Jobs()
    jobs.failures = [TimeoutError("locked"), TimeoutError("locked")]
    dispatcher = _dispatcher(queue, jobs)
    dispatcher.send(_call(["rtx-4090"]))
    wait_for(lambda: jobs.runs or None, 20, "the retried run")
    assert jobs.runs == [(RECOMPUTE, (["rtx-4090"],))]
    wait_for(lambda: _rows(queue) == [] or None, 10, "the finished row to go")
    jobs.failures = [ValueError("no such GPU")]
    dispatcher.send(_call(["nope"]))
    dispatcher.drain()
    [kept] = _rows(queue)
    assert kept.failed_at is not None and kept.last_error == "ValueError: no such GPU"
    dispatcher.shutdown()
    assert jobs.runs == [(RECOMPUTE, (["rtx-4090"],))]


def test_unknown_jobs_are_refused_when_queued(queue: Engine) -> None:
    dispatcher = _dispatcher(queue, Jobs())
    with pytest.raises(KeyError, match="no in-process job"):
        dispatcher.send(TaskCall("no.such", (), "compute"))
    assert _rows(queue) == []


def test_a_claim_left_by_a_failed_finish_is_run_again(
    queue: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish = jobqueue.finish
    calls = {"n": 0}

    def flaky_finish(*args: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise TimeoutError("database is locked")
        finish(*args)

    monkeypatch.setattr(jobqueue, "finish", flaky_finish)
    jobs = Jobs()
    dispatcher = _dispatcher(queue, jobs)
    dispatcher.send(_call(["rtx-4090"]))
    # The first run's row stayed claimed by this process; the next pass releases it.
    wait_for(lambda: len(jobs.runs) == 2 or None, 20, "the second run")
    dispatcher.shutdown()
    assert jobs.runs == [(RECOMPUTE, (["rtx-4090"],))] * 2 and _rows(queue) == []
