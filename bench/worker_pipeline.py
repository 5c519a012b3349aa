"""Price change -> updated /recommend through a real worker, full recompute time, and
recompute_scores throughput with 1 and 2 worker processes. Needs local PostgreSQL and
redis-server; starts its own Redis, API and workers.

    .venv/bin/python bench/worker_pipeline.py [--changes 50] [--tasks 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from functools import partial
from pathlib import Path

import httpx
from celery import Celery
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared.catalog.specs import load_catalog  # noqa: E402
from shared.kit.db import make_engine, session_scope  # noqa: E402
from shared.kit.events import QUEUES, RECOMPUTE_SCORES  # noqa: E402
from shared.kit.settings import Settings, get_settings  # noqa: E402
from shared.perfmodel.registry import get_model  # noqa: E402
from shared.scoring.compute import recompute_scores  # noqa: E402
from shared.wiring.bootstrap import prepare_database  # noqa: E402
from shared.wiring.runtime import open_context  # noqa: E402
from tests.conftest import _create_postgres_database, _drop_postgres_database  # noqa: E402
from tests.processes import RedisServer, Service, free_port, wait_for  # noqa: E402

# The number of one source's asks that makes a market price (shared/pricing/market.py).
MARKET_FROM = 3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rtx_3090_used_n(base: str) -> int:
    body = httpx.get(
        f"{base}/recommend",
        params={"task": "cv", "memory_gb": 24, "condition": "used", "limit": 100},
    ).json()
    return int(next(r["price"]["n"] for r in body["results"] if r["gpu"]["id"] == "rtx-3090"))


def _shows_n(base: str, n: int) -> bool:
    return rtx_3090_used_n(base) == n


def price_to_recommend(base: str, changes: int) -> list[float]:
    """A scraped market price committed as the scraper does (recompute after the commit)."""
    from datetime import UTC, datetime

    from shared.kit.events import enqueue_after_commit, recompute_call
    from shared.models import PriceObservation
    from shared.wiring.runtime import open_context

    # Sent to the broker of the environment the benchmark set up, as the scraper does.
    ctx = open_context(get_settings())
    latencies = []
    # A source's prices make a market from the third on (the minimum of asks): the first
    # two only set it up, the changes are timed from the third price.
    for i in range(changes + MARKET_FROM - 1):
        usd = Decimal(600 + i)
        with ctx.session() as session:
            session.add(
                PriceObservation(
                    gpu_id="rtx-3090",
                    condition="used",
                    price=usd,
                    price_usd=usd,
                    kind="scraped",
                    source="bench",
                    listing_id=f"bench-{i}",
                    observed_at=datetime.now(UTC),
                    measure="ask",
                )
            )
            session.flush()
            enqueue_after_commit(session, recompute_call(["rtx-3090"]))
        committed = time.perf_counter()
        if i + 1 < MARKET_FROM:
            continue
        # The market price is the median of the newest window: n counts the new price in.
        wait_for(partial(_shows_n, base, i + 1), 30, "updated answer", interval=0.005)
        latencies.append(time.perf_counter() - committed)
    return latencies


def full_recompute_seconds(url: str, runs: int = 3) -> float:
    engine = make_engine(url)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        with session_scope(engine) as session:
            recompute_scores(session, model=get_model(), settings=get_settings())
        timings.append(time.perf_counter() - start)
    engine.dispose()
    return statistics.median(timings)


def recompute_throughput(
    url: str, env: dict[str, str], logs: Path, concurrency: int, tasks: int
) -> float:
    command = (
        "celery -A services.worker.celery_app worker -Q compute "
        f"--concurrency {concurrency} -n b{concurrency}@%h"
    )
    worker = Service(f"bench-worker-{concurrency}", command, env, logs).start()
    engine = make_engine(url)
    client = Celery("bench", broker=env["GPU_ADVISOR_BROKER_URL"])
    ids = load_catalog().ids
    try:
        time.sleep(3)  # let the worker processes boot before the clock starts
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM task_run"))
        start = time.perf_counter()
        for i in range(tasks):
            batch = ids[(i * 3) % len(ids) : (i * 3) % len(ids) + 3]
            client.send_task(RECOMPUTE_SCORES, args=[batch], queue=QUEUES["compute"])

        def done() -> bool:
            with engine.connect() as conn:
                return bool(
                    conn.execute(
                        text("SELECT count(*) FROM task_run WHERE status = 'success'")
                    ).scalar_one()
                    >= tasks
                )

        wait_for(done, 600, "all tasks", interval=0.05)
        return tasks / (time.perf_counter() - start)
    finally:
        worker.stop()
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=200)
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    url, database = _create_postgres_database()
    redis_server = RedisServer(logs)
    redis_server.start()
    env = {
        "GPU_ADVISOR_DATABASE_URL": url,
        "GPU_ADVISOR_BROKER_URL": redis_server.url,
        "GPU_ADVISOR_PREPARE_ON_START": "false",
    }
    os.environ.update(env)
    get_settings.cache_clear()
    port = free_port()
    services: list[Service] = []
    try:
        engine = make_engine(url)
        prepare_database(open_context(Settings(database_url=url, data_dir=logs), engine))
        engine.dispose()
        services.append(
            Service(
                "api", f"uvicorn --factory services.api.app:create_app --port {port}", env, logs
            ).start()
        )
        services.append(
            Service(
                "worker",
                "celery -A services.worker.celery_app worker -Q compute --concurrency 2 -n w@%h",
                env,
                logs,
            ).start()
        )
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: httpx.get(f"{base}/health").json()["broker"] == "ok", 60, "api")
        time.sleep(3)
        latencies = price_to_recommend(base, args.changes)
        p50, p95 = statistics.median(latencies) * 1000, percentile(latencies, 0.95) * 1000
        print(
            f"price -> /recommend over {len(latencies)} changes: p50 {p50:.0f} ms, "
            f"p95 {p95:.0f} ms, max {max(latencies) * 1000:.0f} ms"
        )
        for service in services[1:]:
            service.stop()
        seconds = full_recompute_seconds(url)
        print(f"full recompute of the catalog (PostgreSQL, median of 3): {seconds:.2f} s")
        one = recompute_throughput(url, env, logs, 1, args.tasks)
        two = recompute_throughput(url, env, logs, 2, args.tasks)
        print(
            f"recompute_scores (3 GPUs each): 1 process {one:.1f} tasks/s, "
            f"2 processes {two:.1f} tasks/s, ratio {two / one:.2f}"
        )
    finally:
        for service in services:
            service.stop()
        redis_server.stop()
        _drop_postgres_database(database)


if __name__ == "__main__":
    main()
