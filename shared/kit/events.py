"""Background work after a commit: Celery when a broker is configured, in-process otherwise.

Work is enqueued only once the transaction that caused it has committed, so a rolled-back
transaction enqueues nothing, and tasks receive ids, never ORM objects. Both dispatchers
write the work into that transaction (the job table, `jobqueue.py`; the broker's outbox,
`outbox.py`) and pick it up after the commit.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

log = logging.getLogger(__name__)

RECOMPUTE_SCORES = "compute.recompute_scores"
QUEUES = {"scrape": "scrape", "compute": "compute", "alerts": "alerts"}
_PENDING = "gpu_advisor_pending_tasks"
_STAGED = "gpu_advisor_staged_tasks"


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

    def stage(self, session: Session, call: TaskCall) -> bool:
        """Write `call` into `session`'s transaction if this dispatcher queues in the
        database (then it is sent by the commit itself); False: send after the commit."""
        return False

    def wake(self) -> None:
        """Look for queued work now (a dispatcher that queues in the database)."""


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
        event.listen(session, "after_soft_rollback", _forget_pending)
        session.info[_PENDING + "_hooked"] = True
    if call in pending:
        return
    pending.append(call)
    if dispatcher.stage(session, call):
        # In this transaction's outbox: the commit queues it, a rollback drops it.
        session.info.setdefault(_STAGED, []).append(call)


def _forget_pending(session: Session, _transaction: object) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_STAGED, None)


def _send_pending(session: Session, dispatcher: Dispatcher) -> None:
    staged: list[TaskCall] = session.info.pop(_STAGED, [])
    for call in session.info.pop(_PENDING, []):
        if call in staged:
            dispatcher.wake()
            continue
        try:
            dispatcher.send(call)
        except Exception as exc:
            # The data is committed: park the task for the periodic resend sweep.
            log.warning("could not enqueue %s (%s); parked for resend", call.name, exc)
            park(session.get_bind(), call, exc)


def error_text(error: BaseException) -> str:
    """A failure as stored beside queued work: its type and message, within the column."""
    return f"{type(error).__name__}: {error}"[:1000]


def park(bind: Engine | Connection, call: TaskCall, error: Exception) -> None:
    from shared.models import UnsentTask  # the data model imports nothing from here

    try:
        with Session(bind) as parking:
            parking.add(
                UnsentTask(
                    name=call.name,
                    args=json.dumps(list(call.args)),
                    queue=call.queue,
                    last_error=error_text(error),
                    created_at=datetime.now(UTC),
                )
            )
            parking.commit()
    except Exception:
        # Database gone too: the daily full recompute still catches up.
        log.exception("could not park %s", call.name)


def recompute_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(RECOMPUTE_SCORES, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["compute"])
