"""Tasks whose enqueue fails after the commit are parked, then resent."""

from __future__ import annotations

from sqlmodel import select

from shared.kit.db import session_scope
from shared.kit.events import (
    Dispatcher,
    TaskCall,
    bind_dispatcher,
    enqueue_after_commit,
)
from shared.kit.outbox import relay
from shared.models import UnsentTask


class Broker(Dispatcher):
    def __init__(self) -> None:
        self.up = False
        self.sent: list[TaskCall] = []

    def send(self, call: TaskCall) -> None:
        if not self.up:
            raise ConnectionError("broker unreachable")
        self.sent.append(call)


CALL = TaskCall("compute.recompute_scores", (["rtx-3090"],), "compute")


def test_a_failed_enqueue_is_parked_and_resent_when_the_broker_is_back(engine):
    broker = Broker()
    with session_scope(engine) as session:
        bind_dispatcher(session, broker)
        enqueue_after_commit(session, CALL)
    with session_scope(engine) as session:
        [parked] = session.exec(select(UnsentTask)).all()
    assert (parked.name, parked.queue, parked.args) == (CALL.name, "compute", '[["rtx-3090"]]')
    assert "unreachable" in (parked.last_error or "")
    assert relay(engine, broker.send) == {"sent": 0, "failed": 1, "rows": 0}
    broker.up = True
    assert relay(engine, broker.send) == {"sent": 1, "failed": 0, "rows": 1}
    assert broker.sent == [CALL]
    with session_scope(engine) as session:
        assert session.exec(select(UnsentTask)).all() == []


def test_a_rolled_back_transaction_parks_and_sends_nothing(engine):
    broker = Broker()
    try:
        with session_scope(engine) as session:
            bind_dispatcher(session, broker)
            enqueue_after_commit(session, CALL)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    broker.up = True
    assert relay(engine, broker.send) == {"sent": 0, "failed": 0, "rows": 0}
    assert broker.sent == []
