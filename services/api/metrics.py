"""Prometheus metrics: API requests and latency, and task runs and queue depth.

Task metrics are read from the task_run table and the broker at scrape time, so they
cover every worker process without a shared metrics directory. With several uvicorn
workers set PROMETHEUS_MULTIPROC_DIR so request metrics add up across processes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from fastapi import Depends, FastAPI, Request, Response
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
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.api.auth import optional_read_key
from shared.kit.broker import queue_depths
from shared.kit.settings import Settings
from shared.models import TaskRun


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


class RequestMetrics:
    """Plain ASGI middleware: counts and times requests by route template.

    Starlette's BaseHTTPMiddleware would wrap every response in an extra task and
    stream; this only watches the status message go by.
    """

    def __init__(self, app: ASGIApp, requests: Counter, latency: Histogram) -> None:
        self.app = app
        self.requests = requests
        self.latency = latency

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.requests.labels(scope["method"], route, str(status)).inc()
            self.latency.labels(route).observe(time.perf_counter() - start)


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

    app.add_middleware(RequestMetrics, requests=requests, latency=latency)

    # With keyed reads the metrics are a read like any other (request counts by route and
    # status, queue depths): a read key, else 401.
    @app.get("/metrics", include_in_schema=False, dependencies=[Depends(optional_read_key)])
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
