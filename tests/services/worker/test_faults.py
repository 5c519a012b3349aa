"""Fault tests with real processes: a private Redis, real `celery worker`s, PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from celery import Celery
from sqlalchemy import text
from sqlalchemy.engine import Engine

from shared.kit.db import make_engine
from shared.kit.events import QUEUES, RECOMPUTE_SCORES
from tests.conftest import (
    _create_postgres_database,
    _drop_postgres_database,
    make_settings,
    prepare,
)
from tests.processes import RedisServer, Service, free_port, run_once, wait_for

pytestmark = pytest.mark.slow
VISIBILITY_S = 5


@pytest.fixture
def database(tmp_path: Path) -> Iterator[tuple[str, Engine]]:
    url, name = _create_postgres_database()
    engine = make_engine(url)
    prepare(engine, make_settings(url, tmp_path))
    yield url, engine
    engine.dispose()
    _drop_postgres_database(name)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path, persistent=True)
    server.start()
    yield server
    server.stop()


def worker_env(database_url: str, broker_url: str, **extra: str) -> dict[str, str]:
    return {
        "GPU_ADVISOR_DATABASE_URL": database_url,
        "GPU_ADVISOR_BROKER_URL": broker_url,
        "GPU_ADVISOR_REDIS_VISIBILITY_TIMEOUT_S": str(VISIBILITY_S),
        "GPU_ADVISOR_REDIS_RESTORE_INTERVAL_S": "1",
        "GPU_ADVISOR_TASK_RETRY_BACKOFF_MAX_S": "1",
        "GPU_ADVISOR_TASK_MAX_RETRIES": "2",
        **extra,
    }


def start_worker(name: str, env: dict[str, str], logs: Path) -> Service:
    command = (
        "celery -A services.worker.celery_app worker -Q compute --concurrency 1 "
        f"--loglevel INFO -n {name}@%h"
    )
    return Service(name, command, env, logs).start()


def send_recompute(broker_url: str) -> str:
    client = Celery("test-producer", broker=broker_url)
    client.conf.broker_transport_options = {"visibility_timeout": VISIBILITY_S}
    return str(client.send_task(RECOMPUTE_SCORES, args=[None], queue=QUEUES["compute"]).id)


def task_run(engine: Engine, task_id: str) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = (
            conn.execute(
                text("SELECT status, attempts, error FROM task_run WHERE task_id = :id"),
                {"id": task_id},
            )
            .mappings()
            .first()
        )
    return dict(row) if row else None


def score_rows(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text(
                    "SELECT gpu_id, task, precision, condition, relative_performance, price_usd,"
                    " perf_per_dollar, model_version FROM score ORDER BY 1, 2, 3, 4"
                )
            )
        ]


def test_a_worker_killed_mid_recompute_is_redone_with_the_same_result(
    database, redis_server, tmp_path
):
    url, engine = database
    clean = score_rows(engine)
    assert clean
    paused = start_worker(
        "paused",
        worker_env(url, redis_server.url, GPU_ADVISOR_FAULT_INJECTION="recompute-pause:60"),
        tmp_path,
    )
    task_id = send_recompute(redis_server.url)
    wait_for(lambda: (task_run(engine, task_id) or {}).get("status") == "started", 60, "task start")
    # The pause sits between the delete and the insert of one transaction: readers
    # still see the complete old ranking.
    assert score_rows(engine) == clean
    paused.kill()
    rescuer = start_worker("rescuer", worker_env(url, redis_server.url), tmp_path)
    try:
        wait_for(
            lambda: (task_run(engine, task_id) or {}).get("status") == "success", 90, "redelivery"
        )
    finally:
        rescuer.stop()
    assert score_rows(engine) == clean


def test_a_task_that_always_fails_stops_after_its_retries_and_stays_visible(
    database, redis_server, tmp_path
):
    url, engine = database
    env = worker_env(url, redis_server.url, GPU_ADVISOR_FAULT_INJECTION="recompute-transient")
    worker = start_worker("failing", env, tmp_path)
    try:
        task_id = send_recompute(redis_server.url)
        run = wait_for(
            lambda: (r := task_run(engine, task_id)) and r["status"] == "failed" and r,
            60,
            "failure",
        )
    finally:
        worker.stop()
    assert run["attempts"] == 3  # the first try and max_retries=2 retries
    assert "injected transient failure" in run["error"]


def test_redis_down_api_keeps_serving_and_queued_work_resumes(database, redis_server, tmp_path):
    url, engine = database
    port = free_port()
    env = worker_env(url, redis_server.url, GPU_ADVISOR_PREPARE_ON_START="false")
    api = Service(
        "api",
        f"uvicorn --factory services.api.app:create_app --host 127.0.0.1 --port {port}",
        env,
        tmp_path,
    ).start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: httpx.get(f"{base}/health", timeout=2).json()["status"] == "ok", 60, "api")
        before = httpx.get(f"{base}/recommend", params={"task": "cv", "memory_gb": 24}).json()
        task_id = send_recompute(redis_server.url)  # queued: no worker is running yet
        redis_server.stop()
        during = httpx.get(f"{base}/recommend", params={"task": "cv", "memory_gb": 24})
        assert during.status_code == 200 and during.json()["results"] == before["results"]
        # /health caches the broker ping for a second.
        health = wait_for(
            lambda: (h := httpx.get(f"{base}/health").json())["status"] == "degraded" and h,
            10,
            "degraded",
        )
        assert health["broker"] == "unreachable" and health["database"] == "ok"
        redis_server.start()
        worker = start_worker("resumed", env, tmp_path)
        try:
            wait_for(
                lambda: (task_run(engine, task_id) or {}).get("status") == "success", 60, "resume"
            )
        finally:
            worker.stop()
        wait_for(lambda: httpx.get(f"{base}/health").json()["status"] == "ok", 10, "healthy again")
    finally:
        api.stop()


RECOMPUTE_RUNS = text(
    "SELECT count(*) FROM task_run WHERE name = 'compute.recompute_scores' AND status = 'success'"
)


def test_a_price_added_while_redis_is_down_is_kept_and_its_recompute_sent_later(
    database, redis_server, tmp_path
):
    url, engine = database
    env = worker_env(url, redis_server.url, GPU_ADVISOR_UNSENT_RESEND_INTERVAL_S="1")
    redis_server.stop()
    added = run_once(
        "gpu-advisor prices add --gpu rtx-4090 --usd 1234 --condition used --source fault-test", env
    )
    assert added.returncode == 0, added.stderr
    with engine.connect() as conn:
        stored = conn.execute(
            text("SELECT count(*) FROM price_observation WHERE source = 'fault-test'")
        ).scalar_one()
        parked = conn.execute(text("SELECT name FROM unsent_task")).scalars().all()
    assert stored == 1 and parked == [RECOMPUTE_SCORES]
    with engine.connect() as conn:
        runs_before = conn.execute(RECOMPUTE_RUNS).scalar_one()
    redis_server.start()
    beat_command = f"celery -A services.worker.celery_app beat -s {tmp_path}/beat-schedule"
    beat = Service("beat", beat_command, env, tmp_path).start()
    worker = start_worker("after-outage", env, tmp_path)

    def rescored() -> bool:
        # The posted price is a quote (never a score): the resent recompute shows as a run.
        with engine.connect() as conn:
            runs = conn.execute(RECOMPUTE_RUNS).scalar_one()
            left = conn.execute(text("SELECT count(*) FROM unsent_task")).scalar_one()
        return bool(runs > runs_before and left == 0)

    try:
        wait_for(rescored, 60, "the parked recompute")
    finally:
        worker.stop()
        beat.stop()
