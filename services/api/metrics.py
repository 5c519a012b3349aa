"""Prometheus metrics: API requests and latency, and task runs and queue depth.

Task metrics are read from the task_run table and the broker at scrape time, so they
cover every worker process without a shared metrics directory. With several uvicorn
workers set PROMETHEUS_MULTIPROC_DIR so request metrics add up across processes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterator

from fastapi import FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from shared.broker import queue_depths
from shared.models import TaskRun
from shared.settings import Settings


class TaskCollector(Collector):
    def __init__(self, engine: Engine, settings: Settings) -> None:
        self._engine = engine
        self._settings = settings

    def collect(self) -> Iterator[Metric]:
        runs = GaugeMetricFamily(
            "gpu_advisor_task_runs",
            "Task runs recorded, by task and status",
            labels=["task", "status"],
        )
        durations = GaugeMetricFamily(
            "gpu_advisor_task_mean_duration_seconds",
            "Mean duration of finished task runs",
            labels=["task"],
        )
        with Session(self._engine) as session:
            counted = session.exec(
                select(TaskRun.name, TaskRun.status, func.count()).group_by(
                    TaskRun.name, TaskRun.status
                )
            ).all()
            finished = session.exec(
                select(TaskRun).where(TaskRun.finished_at != None).limit(5000)  # noqa: E711
            ).all()
        for name, status, count in counted:
            runs.add_metric([name, status], float(count))
        totals: dict[str, list[float]] = {}
        for run in finished:
            assert run.finished_at is not None
            totals.setdefault(run.name, []).append(
                (run.finished_at - run.started_at).total_seconds()
            )
        for name, values in totals.items():
            durations.add_metric([name], sum(values) / len(values))
        yield runs
        yield durations
        if self._settings.broker_url:
            yield from self._queues()

    def _queues(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("gpu_advisor_queue_depth", "Messages waiting", labels=["queue"])
        try:
            for queue, size in queue_depths(self._settings.broker_url).items():
                depth.add_metric([queue], float(size))
        except Exception:  # the broker being down must not break /metrics
            return
        yield depth


def install(app: FastAPI) -> None:
    registry = CollectorRegistry()
    requests = Counter(
        "gpu_advisor_http_requests",
        "HTTP requests",
        ["method", "route", "status"],
        registry=registry,
    )
    latency = Histogram(
        "gpu_advisor_http_request_seconds", "HTTP request latency", ["route"], registry=registry
    )

    @app.middleware("http")
    async def measure(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        start = time.perf_counter()
        response = await call_next(request)
        route = getattr(request.scope.get("route"), "path", "unmatched")
        requests.labels(request.method, route, str(response.status_code)).inc()
        latency.labels(route).observe(time.perf_counter() - start)
        return response

    @app.get("/metrics", include_in_schema=False)
    def metrics(request: Request) -> Response:
        exposition = CollectorRegistry()
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            multiprocess.MultiProcessCollector(exposition)  # type: ignore[no-untyped-call]
        else:
            exposition = registry
        body = generate_latest(exposition)
        tasks = CollectorRegistry()
        tasks.register(TaskCollector(request.app.state.engine, request.app.state.settings))
        return Response(body + generate_latest(tasks), media_type=CONTENT_TYPE_LATEST)
