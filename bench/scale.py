"""How the full recompute, price -> /recommend and price history grow with the data.

For each size (price observations of a year, bench/scale_data.py) on a fresh PostgreSQL
database: the full recompute (the real job function), price -> updated /recommend
through a real API and a real Celery worker (a quote POSTed with a write key, and a
scraped price committed as the scraper does), and GET /gpus/{id}/prices with paging.
Prints growth ratios between the smallest and the largest size, never asserts times.

    .venv/bin/python bench/scale.py [--sizes 10000,100000,1000000] [--changes 20]
        [--paths recompute,recommend,history]

The history's first page after a price is printed against the same page requested again
(nothing stored since), both measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scale_data import ScaleSpec, insert_all  # noqa: E402
from shared.alerts.keys import create_key  # noqa: E402
from shared.kit.context import Context  # noqa: E402
from shared.kit.db import make_engine, session_scope  # noqa: E402
from shared.kit.events import Dispatcher, TaskCall, enqueue_after_commit, recompute_call  # noqa: E402
from shared.kit.settings import Settings, get_settings  # noqa: E402
from shared.models import PriceObservation  # noqa: E402
from shared.perfmodel.registry import get_model  # noqa: E402
from shared.wiring.bootstrap import prepare_database  # noqa: E402
from shared.wiring.jobs import recompute_job  # noqa: E402
from shared.wiring.runtime import open_context  # noqa: E402
from tests.conftest import _create_postgres_database, _drop_postgres_database  # noqa: E402
from tests.processes import RedisServer, Service, free_port, wait_for  # noqa: E402

GPU = "rtx-3090"
RECOMMEND: dict[str, str | int] = {"task": "cv", "memory_gb": 24, "condition": "new", "limit": 100}
HISTORY_GPUS = ("rtx-3090", "rtx-4090", "rtx-3060-12gb", "h100-sxm5")
PAGES = 5


@dataclass
class Figures:
    rows: int
    recompute_s: float = 0.0
    quote: tuple[float, float] = (0.0, 0.0)
    scraped: tuple[float, float] = (0.0, 0.0)
    history: tuple[float, float] = (0.0, 0.0)
    # The first page right after a price was stored (its total and market window brought
    # up to date, services/api/prices/), and the same page again with nothing stored since.
    history_new: tuple[float, float] = (0.0, 0.0)
    history_again: tuple[float, float] = (0.0, 0.0)


class _Discard(Dispatcher):
    """The recompute's follow-up tasks (alerts, quotes) are not part of its time."""

    def send(self, call: TaskCall) -> None:
        return None


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def p50_p95_ms(values: Sequence[float]) -> tuple[float, float]:
    return statistics.median(values) * 1000, percentile(values, 0.95) * 1000


def full_recompute_seconds(settings: Settings, runs: int) -> float:
    engine = make_engine(settings.database_url)
    ctx = Context(settings=settings, engine=engine, model=get_model(), dispatcher=_Discard())
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        recompute_job(ctx, None)
        timings.append(time.perf_counter() - start)
    engine.dispose()
    return statistics.median(timings)


def _recommend(client: httpx.Client) -> dict[str, object]:
    response = client.get("/recommend", params=RECOMMEND)
    response.raise_for_status()
    body: dict[str, object] = response.json()
    return body


def _gpu_price(body: dict[str, object]) -> dict[str, object]:
    results = body["results"]
    assert isinstance(results, list)
    price: dict[str, object] = next(r["price"] for r in results if r["gpu"]["id"] == GPU)
    return price


def _recomputed(client: httpx.Client, before: object) -> bool:
    return _recommend(client)["computed_at"] != before


def _market_key(client: httpx.Client) -> tuple[object, ...]:
    body = _recommend(client)
    unranked = body["unranked"]
    assert isinstance(unranked, list)
    # A card whose window holds too few asks is unranked: its last price still moves.
    for card in unranked:
        if card["gpu"]["id"] == GPU:
            return card["last_usd"], card["reason"], card["last_observed_at"]
    price = _gpu_price(body)
    return price["usd"], price["n"], price["observed_at"]


def _market_moved(client: httpx.Client, before: tuple[object, ...]) -> bool:
    return _market_key(client) != before


def quote_to_recommend(client: httpx.Client, key: str, changes: int) -> list[float]:
    """POST /prices stores a quote (never the market price, shared/pricing/intake.py) and
    enqueues the GPU's recompute: the answer is updated when its computed_at moves.
    Timed from before the POST (its quarantine check reads the market too)."""
    latencies = []
    for i in range(changes):
        before = _recommend(client)["computed_at"]
        posted = time.perf_counter()
        response = client.post(
            "/prices",
            json={"gpu_id": GPU, "usd": str(900 + i), "condition": "new", "source": "bench"},
            headers={"Authorization": f"Bearer {key}"},
        )
        response.raise_for_status()
        wait_for(partial(_recomputed, client, before), 60, "recomputed answer", interval=0.005)
        latencies.append(time.perf_counter() - posted)
    return latencies


def scraped_to_recommend(client: httpx.Client, settings: Settings, changes: int) -> list[float]:
    """A scraped listing committed as the scraper does, at the market price: the newest
    offer of the window, so the price's observed_at (and n) move."""
    ctx = open_context(settings)
    latencies = []
    for i in range(changes):
        before = _market_key(client)
        usd = Decimal(str(before[0]))
        with ctx.session() as session:
            session.add(scraped_price(i, usd))
            session.flush()
            enqueue_after_commit(session, recompute_call([GPU]))
        committed = time.perf_counter()
        wait_for(partial(_market_moved, client, before), 60, "updated price", interval=0.005)
        latencies.append(time.perf_counter() - committed)
    ctx.engine.dispose()
    return latencies


def scraped_price(i: int, usd: Decimal, gpu_id: str = GPU) -> PriceObservation:
    """A scraped asking price of now, as the scraper stores one (listing `bench-{i}`)."""
    return PriceObservation(
        gpu_id=gpu_id,
        condition="new",
        price=usd,
        price_usd=usd,
        kind="scraped",
        source="newegg",
        listing_id=f"bench-{i}",
        observed_at=datetime.now(UTC),
        measure="ask",
    )


def history_after_a_price(
    client: httpx.Client, settings: Settings, samples: int
) -> tuple[list[float], list[float]]:
    """The first history page of the most listed card right after a price was stored, and
    the same page requested again at once (nothing stored since): (after, again)."""
    ctx = open_context(settings)
    after: list[float] = []
    again: list[float] = []
    url = f"/gpus/{GPU}/prices"
    client.get(url).raise_for_status()
    for i in range(samples):
        with ctx.session() as session:
            session.add(scraped_price(10_000 + i, Decimal("1000")))
        for latencies in (after, again):
            start = time.perf_counter()
            client.get(url).raise_for_status()
            latencies.append(time.perf_counter() - start)
    ctx.engine.dispose()
    return after, again


def history_latencies(client: httpx.Client, rounds: int) -> list[float]:
    """First pages and deeper pages (offset paging), all and used-only, of a few GPUs."""
    for gpu in HISTORY_GPUS:  # warm: the first request of a process loads modules
        client.get(f"/gpus/{gpu}/prices", params={"limit": 1}).raise_for_status()
    latencies = []
    for _ in range(rounds):
        for gpu in HISTORY_GPUS:
            for condition in (None, "used"):
                for page in range(PAGES):
                    params: dict[str, str | int] = {"limit": 100, "offset": page * 100}
                    if condition:
                        params["condition"] = condition
                    start = time.perf_counter()
                    client.get(f"/gpus/{gpu}/prices", params=params).raise_for_status()
                    latencies.append(time.perf_counter() - start)
    return latencies


@contextmanager
def services(env: dict[str, str], logs: Path) -> Iterator[str]:
    port = free_port()
    started = [
        Service("api", f"uvicorn --factory services.api.app:create_app --port {port}", env, logs),
        Service(
            "worker",
            # As docker-compose.yml runs the compute worker.
            "celery -A services.worker.celery_app worker -Q compute --concurrency 2 -n w@%h",
            env,
            logs,
        ),
    ]
    try:
        for service in started:
            service.start()
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: httpx.get(f"{base}/health").json()["broker"] == "ok", 120, "api")
        time.sleep(3)  # the worker connects after the API answers
        yield base
    finally:
        for service in started:
            service.stop()


def measure(rows: int, redis_url: str, args: argparse.Namespace, logs: Path) -> Figures:
    figures = Figures(rows)
    url, database = _create_postgres_database()
    env = {
        "GPU_ADVISOR_DATABASE_URL": url,
        "GPU_ADVISOR_BROKER_URL": redis_url,
        "GPU_ADVISOR_PREPARE_ON_START": "false",
        "GPU_ADVISOR_DATA_DIR": str(logs),
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
        "GPU_ADVISOR_RATE_LIMIT_PER_MINUTE": "100000",
    }
    os.environ.update(env)
    get_settings.cache_clear()
    settings = get_settings()
    try:
        engine = make_engine(url)
        prepare_database(open_context(settings, engine))
        start = time.perf_counter()
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        prices, offers = insert_all(engine, ScaleSpec(rows, seed=args.seed, end=end))
        print(
            f"[{rows}] inserted {prices} prices and {offers} cloud offers "
            f"in {time.perf_counter() - start:.1f} s",
            flush=True,
        )
        with session_scope(engine) as session:
            key = create_key(session, "scale-bench", "write").key
        engine.dispose()
        paths = set(args.paths.split(","))
        if "recompute" in paths:
            figures.recompute_s = full_recompute_seconds(settings, args.recompute_runs)
            print(f"[{rows}] full recompute {figures.recompute_s:.2f} s", flush=True)
        with services(env, logs) as base, httpx.Client(base_url=base, timeout=60) as client:
            if "history" in paths:
                figures.history = p50_p95_ms(history_latencies(client, args.history_rounds))
                print(f"[{rows}] history p50/p95 {_pair(figures.history)}", flush=True)
            if "recommend" in paths:
                figures.quote = p50_p95_ms(quote_to_recommend(client, key, args.changes))
                print(f"[{rows}] quote -> /recommend p50/p95 {_pair(figures.quote)}", flush=True)
                scraped = scraped_to_recommend(client, settings, args.changes)
                figures.scraped = p50_p95_ms(scraped)
                print(
                    f"[{rows}] scraped -> /recommend p50/p95 {_pair(figures.scraped)}", flush=True
                )
            if "history" not in paths:
                return figures
            # Last: these prices get no recompute.
            after, again = history_after_a_price(client, settings, args.changes)
            figures.history_new, figures.history_again = p50_p95_ms(after), p50_p95_ms(again)
            print(
                f"[{rows}] {GPU} first history page after a price p50/p95 "
                f"{_pair(figures.history_new)}, again {_pair(figures.history_again)} "
                f"({_ratio(figures.history_new[1], figures.history_again[1])} at p95)",
                flush=True,
            )
    finally:
        _drop_postgres_database(database)
    return figures


def _pair(values: tuple[float, float]) -> str:
    return f"{values[0]:.0f} / {values[1]:.0f} ms"


def report(all_figures: Sequence[Figures]) -> None:
    print()
    print(
        f"{'rows':>9} {'recompute':>10} {'quote->rec p50/p95':>20} "
        f"{'scraped->rec p50/p95':>22} {'history p50/p95':>18} {'after a price':>16} "
        f"{'again':>16}"
    )
    for f in all_figures:
        print(
            f"{f.rows:>9} {f.recompute_s:>9.2f}s {_pair(f.quote):>20} "
            f"{_pair(f.scraped):>22} {_pair(f.history):>18} {_pair(f.history_new):>16} "
            f"{_pair(f.history_again):>16}"
        )
    for f in all_figures:
        print(
            f"{f.rows} rows: first history page after a price / again: "
            f"p50 {_ratio(f.history_new[0], f.history_again[0])}, "
            f"p95 {_ratio(f.history_new[1], f.history_again[1])}"
        )
    if len(all_figures) > 1:
        first, last = all_figures[0], all_figures[-1]
        print(
            f"growth {first.rows} -> {last.rows} rows ({last.rows / first.rows:.0f}x data): "
            f"recompute {_ratio(last.recompute_s, first.recompute_s)}, "
            f"quote->recommend p95 {_ratio(last.quote[1], first.quote[1])}, "
            f"scraped->recommend p95 {_ratio(last.scraped[1], first.scraped[1])}, "
            f"history p95 {_ratio(last.history[1], first.history[1])}, "
            f"history after a price p95 {_ratio(last.history_new[1], first.history_new[1])}"
        )


def _ratio(last: float, first: float) -> str:
    return f"{last / first:.2f}x" if first else "n/a"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--changes", type=int, default=20, help="price changes per path")
    parser.add_argument("--history-rounds", type=int, default=3)
    parser.add_argument("--recompute-runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--paths",
        default="recompute,recommend,history",
        help="what to measure: the full recompute, price -> /recommend, the history pages",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> list[Figures]:
    args = parse_args(argv)
    # A terminated run still stops its services and drops its databases.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sizes = [int(s) for s in args.sizes.split(",")]
    logs = Path(tempfile.mkdtemp(prefix="gpu-advisor-scale-"))
    redis_server = RedisServer(logs)
    redis_server.start()
    try:
        figures = [measure(rows, redis_server.url, args, logs) for rows in sizes]
    finally:
        redis_server.stop()
    report(figures)
    print(f"logs: {logs}")
    return figures


if __name__ == "__main__":
    main()
