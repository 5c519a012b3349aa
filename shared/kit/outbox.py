"""With a broker: work is written in the transaction that caused it (the outbox, table
`unsent_task`) and relayed to Celery after the commit, calls of a coalesced job merged.

Before, the task was sent to Redis after the commit: a process killed in between left the
stored prices with no recompute and no alert evaluation until the daily full recompute
(4 of 3,512 in the fault run). Now the rows commit with the data; the committing process
relays them at once, then at most once per `RELAY_DEBOUNCE_S` (a burst of writes is
relayed together, so a recompute per GPU instead of one per write: the queue once took
79 s to drain after a burst), and beat's resend sweep, or the next process to start,
relays whatever a killed process left. At-least-once, as the embedded default's job
table: every job is safe to repeat.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from shared.kit.events import Dispatcher, TaskCall, error_text
from shared.kit.jobqueue import merge_args
from shared.kit.settings import Settings
from shared.models import UnsentTask

log = logging.getLogger(__name__)


def stage(session: Session, call: TaskCall, now: datetime | None = None) -> None:
    """Write `call` into `session`'s transaction (it exists only if the session commits)."""
    session.add(
        UnsentTask(
            name=call.name,
            args=json.dumps(list(call.args)),
            queue=call.queue,
            attempts=0,
            created_at=now or datetime.now(UTC),
        )
    )


def relay(
    bind: Engine,
    send: Callable[[TaskCall], None],
    coalesce: Collection[str] = (),
    limit: int = 500,
) -> dict[str, int]:
    """Send waiting rows (the oldest `limit`), the calls of a `coalesce` job merged into
    one per queue; delete what was sent, count a failed send on its rows. Counts of calls
    sent and failed, and of rows relayed."""
    counts = {"sent": 0, "failed": 0, "rows": 0}
    with Session(bind) as session:
        query = select(UnsentTask).order_by(col(UnsentTask.id)).limit(limit)
        rows = session.exec(query.with_for_update(skip_locked=True)).all()
        groups: dict[tuple[Any, ...], list[UnsentTask]] = defaultdict(list)
        for row in rows:
            key = (row.name, row.queue) if row.name in coalesce else (row.id,)
            groups[key].append(row)
        for members in groups.values():
            first = members[0]
            args = merge_args([tuple(json.loads(r.args)) for r in members], first.name in coalesce)
            try:
                send(TaskCall(first.name, args, first.queue))
            except Exception as exc:
                for row in members:
                    row.attempts += 1
                    row.last_error = error_text(exc)
                    session.add(row)
                counts["failed"] += 1
                continue
            for row in members:
                session.delete(row)
            counts["sent"] += 1
            counts["rows"] += len(members)
        session.commit()
    return counts


# At most one relay per this many seconds: the commits of a burst that land within it are
# relayed together, which merges their recomputes. The first commit after a quiet spell is
# relayed at once (a lone price waited the whole 0.5 s, half of price -> /recommend once
# the index was fitted once per change: bench/worker_pipeline.py).
RELAY_DEBOUNCE_S = 0.5


class CeleryDispatcher(Dispatcher):
    """Stages work in the outbox and relays it to Celery by task name (shared code never
    imports the worker package), from a thread of the process that committed it."""

    def __init__(
        self,
        settings: Settings,
        coalesce: Collection[str] = (),
        debounce_s: float = RELAY_DEBOUNCE_S,
    ) -> None:
        from celery import Celery

        self._client = Celery("gpu-advisor-client", broker=settings.broker_url)
        self._client.conf.broker_transport_options = {
            "visibility_timeout": settings.redis_visibility_timeout_s
        }
        self._client.conf.broker_connection_retry_on_startup = True
        self.coalesce = frozenset(coalesce)
        self._debounce_s = debounce_s
        self._engine: Engine | None = None
        self._wakeup = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def attach(self, engine: Engine) -> None:
        """The database whose outbox this dispatcher relays."""
        self._engine = engine

    def send(self, call: TaskCall) -> None:
        self._client.send_task(call.name, args=list(call.args), queue=call.queue)

    def stage(self, session: Session, call: TaskCall) -> bool:
        stage(session, call)
        return True

    def wake(self) -> None:
        if self._engine is None or self._stopping:
            return
        with self._lock:
            # A forked child (Celery's prefork pool) inherits no running thread: start one.
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="outbox-relay", daemon=True)
                self._thread.start()
        self._wakeup.set()

    def relay_now(self) -> dict[str, int]:
        """Relay the outbox in this thread (shutdown; tests)."""
        assert self._engine is not None, "attach the dispatcher to an engine first"
        return relay(self._engine, self.send, self.coalesce)

    def _run(self) -> None:
        last_relay = float("-inf")
        while True:
            self._wakeup.wait()
            if self._stopping:
                return
            # Within the window of the last relay, let the rest of a burst commit: its
            # wakes fall into the next relay. Outside it nothing is coming to merge with.
            wait = self._debounce_s - (time.monotonic() - last_relay)
            if wait > 0:
                time.sleep(wait)
            self._wakeup.clear()
            last_relay = time.monotonic()
            try:
                self.relay_now()
            except Exception:
                # The rows stay: the next wake, beat's sweep or the next start relays them.
                log.exception("outbox relay failed; rows kept for the next relay")

    def shutdown(self) -> None:
        """Stop the relay thread after one last relay of what this process committed."""
        self._stopping = True
        self._wakeup.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._engine is not None:
            try:
                self.relay_now()
            except Exception:
                log.exception("outbox relay at shutdown failed; rows kept for the next relay")
