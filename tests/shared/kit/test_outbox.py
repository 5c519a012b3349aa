"""With a broker, work commits with the data that caused it and is relayed to Redis
afterwards, calls of a coalesced job merged (shared/kit/outbox.py)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlmodel import select

from shared.kit.db import session_scope
from shared.kit.events import (
    RECOMPUTE_SCORES,
    bind_dispatcher,
    enqueue_after_commit,
    recompute_call,
)
from shared.kit.outbox import CeleryDispatcher
from shared.models import UnsentTask
from shared.wiring.jobs import COALESCED
from tests.conftest import make_settings
from tests.processes import RedisServer, wait_for


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("outbox-redis"))
    server.start()
    yield server.url
    server.stop()


@pytest.fixture
def outbox(engine: Engine, broker: str) -> Iterator[Engine]:
    """The test database with an empty outbox, and an empty broker, before and after."""
    for _ in (0, 1):
        with session_scope(engine) as session:
            session.execute(delete(UnsentTask))
        redis.Redis.from_url(broker).flushdb()
        if _ == 0:
            yield engine


def _dispatcher(
    broker: str, tmp_path: Path, engine: Engine | None, debounce_s: float = 0.05
) -> CeleryDispatcher:
    settings = make_settings("sqlite://", tmp_path, broker_url=broker)
    dispatcher = CeleryDispatcher(settings, coalesce=COALESCED, debounce_s=debounce_s)
    if engine is not None:
        dispatcher.attach(engine)
    return dispatcher


def _queued(broker: str, queue: str = "compute") -> list[tuple[str, list[Any]]]:
    """(task name, args) of the messages waiting in a Celery queue on Redis."""
    out = []
    for raw in redis.Redis.from_url(broker).lrange(queue, 0, -1):
        message = json.loads(raw)
        args = json.loads(base64.b64decode(message["body"]))[0]
        out.append((message["headers"]["task"], args))
    return out


def _write(engine: Engine, dispatcher: CeleryDispatcher, gpu_ids: list[str]) -> None:
    with session_scope(engine) as session:
        bind_dispatcher(session, dispatcher)
        enqueue_after_commit(session, recompute_call(gpu_ids))


def test_work_commits_with_the_data_and_survives_a_process_that_never_sent_it(
    outbox: Engine, broker: str, tmp_path: Path
) -> None:
    # A process killed right after its commit: nothing relays (no engine attached).
    killed = _dispatcher(broker, tmp_path, None)
    _write(outbox, killed, ["rtx-3090"])
    with session_scope(outbox) as session:
        [row] = session.exec(select(UnsentTask)).all()
    assert (row.name, row.attempts) == (RECOMPUTE_SCORES, 0)
    assert _queued(broker) == []
    # The next process (or beat's sweep) relays it.
    later = _dispatcher(broker, tmp_path, outbox)
    assert later.relay_now() == {"sent": 1, "failed": 0, "rows": 1}
    assert _queued(broker) == [(RECOMPUTE_SCORES, [["rtx-3090"]])]
    with session_scope(outbox) as session:
        assert session.exec(select(UnsentTask)).all() == []


def test_a_rolled_back_write_leaves_no_work(outbox: Engine, broker: str, tmp_path: Path) -> None:
    dispatcher = _dispatcher(broker, tmp_path, outbox)
    with pytest.raises(RuntimeError), session_scope(outbox) as session:
        bind_dispatcher(session, dispatcher)
        enqueue_after_commit(session, recompute_call(["rtx-3090"]))
        raise RuntimeError("rolled back")
    assert dispatcher.relay_now() == {"sent": 0, "failed": 0, "rows": 0}
    assert _queued(broker) == []


def test_a_burst_of_writes_becomes_one_recompute(
    outbox: Engine, broker: str, tmp_path: Path
) -> None:
    killed = _dispatcher(broker, tmp_path, None)
    gpus = ["rtx-3090", "rtx-4090", "a100-80gb-sxm4"]
    for i in range(60):
        _write(outbox, killed, [gpus[i % 3]])
    relayed = _dispatcher(broker, tmp_path, outbox).relay_now()
    assert relayed == {"sent": 1, "failed": 0, "rows": 60}
    assert _queued(broker) == [(RECOMPUTE_SCORES, [sorted(gpus)])]


def test_the_committing_process_relays_on_its_own(
    outbox: Engine, broker: str, tmp_path: Path
) -> None:
    dispatcher = _dispatcher(broker, tmp_path, outbox)
    try:
        for gpu in ("rtx-3090", "rtx-4090"):
            _write(outbox, dispatcher, [gpu])
        wait_for(lambda: _queued(broker), 30, "the relay thread to send")
    finally:
        dispatcher.shutdown()
    sent = [args[0] for _, args in _queued(broker)]
    assert sorted(g for ids in sent for g in ids) == ["rtx-3090", "rtx-4090"]
    with session_scope(outbox) as session:
        assert session.exec(select(UnsentTask)).all() == []


def test_a_lone_write_is_relayed_without_waiting_for_the_window(
    outbox: Engine, broker: str, tmp_path: Path
) -> None:
    # The window only spaces relays apart: the first write after a quiet spell has no
    # burst to merge with, so it is not held back (here it would wait ten minutes).
    dispatcher = _dispatcher(broker, tmp_path, outbox, debounce_s=600)
    try:
        _write(outbox, dispatcher, ["rtx-3090"])
        wait_for(lambda: _queued(broker), 30, "the lone write's relay")
    finally:
        dispatcher.shutdown()
    assert _queued(broker) == [(RECOMPUTE_SCORES, [["rtx-3090"]])]


def test_a_broker_outage_keeps_the_rows(outbox: Engine, tmp_path: Path, broker: str) -> None:
    down = _dispatcher("redis://127.0.0.1:1/0", tmp_path, outbox)
    _write(outbox, _dispatcher(broker, tmp_path, None), ["rtx-3090"])
    assert down.relay_now()["failed"] == 1
    with session_scope(outbox) as session:
        [row] = session.exec(select(UnsentTask)).all()
    assert row.attempts == 1 and row.last_error
    assert _dispatcher(broker, tmp_path, outbox).relay_now()["sent"] == 1
