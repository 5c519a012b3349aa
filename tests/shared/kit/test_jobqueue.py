"""The durable job queue: claims, coalescing, retries and the takeover of dead claims."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from shared.kit import jobqueue
from shared.kit.events import TaskCall
from shared.models import QueuedJob


def _rows(engine: Engine) -> list[QueuedJob]:
    with Session(engine) as session:
        return list(session.exec(select(QueuedJob).order_by(QueuedJob.id)).all())  # type: ignore[arg-type]


def _recompute(ids: list[str] | None) -> TaskCall:
    return TaskCall("compute.recompute_scores", (ids,), "compute")


def _dead_owner() -> str:
    """The owner string of a process that has exited."""
    code = "from shared.kit.jobqueue import process_owner; print(process_owner())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_waiting_calls_of_a_coalesced_job_are_claimed_as_one(queue: Engine) -> None:
    for ids in (["rtx-4090"], ["rtx-3090"], ["rtx-4090", "a100-80gb-pcie"]):
        jobqueue.add(queue, _recompute(ids))
    jobqueue.add(queue, TaskCall("alerts.dispatch_due", (), "alerts"))
    claimed = jobqueue.claim(queue, "me", {"compute.recompute_scores"})
    assert claimed is not None
    assert claimed.call == _recompute(["a100-80gb-pcie", "rtx-3090", "rtx-4090"])
    assert len(claimed.ids) == 3
    # The other job is still there for the next claim; nothing is claimed twice.
    other = jobqueue.claim(queue, "me", {"compute.recompute_scores"})
    assert other is not None and other.call.name == "alerts.dispatch_due"
    assert jobqueue.claim(queue, "me", {"compute.recompute_scores"}) is None
    jobqueue.finish(queue, claimed, "me")
    assert [r.name for r in _rows(queue)] == ["alerts.dispatch_due"]


def test_a_call_for_every_gpu_absorbs_the_others(queue: Engine) -> None:
    jobqueue.add(queue, _recompute(["rtx-4090"]))
    jobqueue.add(queue, _recompute(None))
    claimed = jobqueue.claim(queue, "me", {"compute.recompute_scores"})
    assert claimed is not None and claimed.call == _recompute(None)


def test_rows_another_process_claimed_are_not_taken(queue: Engine) -> None:
    jobqueue.add(queue, _recompute(["rtx-4090"]))
    assert jobqueue.claim(queue, "first", set()) is not None
    assert jobqueue.claim(queue, "second", set()) is None
    # Finishing needs the claim: another owner's finish deletes nothing.
    [row] = _rows(queue)
    assert row.claimed_by == "first"
    stolen = jobqueue.Claimed((row.id or 0,), _recompute(["rtx-4090"]), 0)
    jobqueue.finish(queue, stolen, "second")
    assert len(_rows(queue)) == 1


def test_a_failure_waits_its_backoff_then_gives_up_and_keeps_the_row(queue: Engine) -> None:
    jobqueue.add(queue, _recompute(["rtx-4090"]))
    now = datetime.now(UTC)
    claimed = jobqueue.claim(queue, "me", set(), now)
    assert claimed is not None
    jobqueue.fail(queue, claimed, "me", TimeoutError("db busy"), 30, now)
    [row] = _rows(queue)
    assert (row.attempts, row.claimed_by, row.last_error) == (1, None, "TimeoutError: db busy")
    assert jobqueue.claim(queue, "me", set(), now + timedelta(seconds=29)) is None
    due = jobqueue.next_due(queue)
    assert due is not None and abs((due - now).total_seconds() - 30) < 1
    again = jobqueue.claim(queue, "me", set(), now + timedelta(seconds=31))
    assert again is not None and again.attempts == 1
    jobqueue.fail(queue, again, "me", ValueError("bad id"), None, now)
    [row] = _rows(queue)
    assert row.failed_at is not None and row.attempts == 2
    assert jobqueue.claim(queue, "me", set(), now + timedelta(days=1)) is None
    with Session(queue) as session:
        assert jobqueue.counts(session) == {"waiting": 0, "running": 0, "failed": 1}


def test_the_claims_of_a_dead_process_are_released_at_once(queue: Engine) -> None:
    jobqueue.add(queue, _recompute(["rtx-4090"]))
    dead = _dead_owner()
    assert jobqueue.claim(queue, dead, set()) is not None
    me = jobqueue.process_owner()
    assert jobqueue.claim(queue, me, set()) is None
    assert jobqueue.release_stale(queue, me, lease_s=900) == 1
    claimed = jobqueue.claim(queue, me, set())
    assert claimed is not None and claimed.call == _recompute(["rtx-4090"])


def test_a_live_process_keeps_its_claims_until_the_lease_runs_out(queue: Engine) -> None:
    jobqueue.add(queue, _recompute(["rtx-4090"]))
    live = jobqueue.process_owner()  # this process: alive
    start = datetime.now(UTC)
    assert jobqueue.claim(queue, live, set(), start) is not None
    other = "elsewhere:1:1:abcd"  # another host: never judged dead from here
    assert jobqueue.release_stale(queue, other, lease_s=900, now=start) == 0
    later = start + timedelta(seconds=901)
    assert jobqueue.release_stale(queue, other, lease_s=900, now=later) == 1


def test_owner_dead_is_judged_only_on_this_host() -> None:
    import socket

    host = socket.gethostname()
    assert jobqueue.owner_dead(_dead_owner(), host)
    assert not jobqueue.owner_dead(jobqueue.process_owner(), host)
    assert not jobqueue.owner_dead(_dead_owner(), "another-host")
    assert not jobqueue.owner_dead("not an owner", host)


def test_sweeps_waiting_together_are_claimed_once(queue: Engine) -> None:
    for _ in range(3):
        jobqueue.add(queue, TaskCall("alerts.dispatch_due", (), "alerts"))
    claimed = jobqueue.claim(queue, "me", {"alerts.dispatch_due"})
    assert claimed is not None and len(claimed.ids) == 3 and claimed.call.args == ()
    assert jobqueue.claim(queue, "me", {"alerts.dispatch_due"}) is None
    # The in-process dispatcher merges them: the job table lists the sweeps as coalesced.
    from shared.wiring.jobs import COALESCED

    assert "alerts.dispatch_due" in COALESCED
