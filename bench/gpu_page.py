"""How a GPU's own pages grow with the stored prices: the JSON detail, the HTML page and the
price-history chart, for the most-priced card and a datacenter module.

For each size (a year of prices, bench/scale_data.py) on a fresh PostgreSQL database, the
app is served in-process (FastAPI's TestClient: the same request path without a socket)
and each page is requested `--rounds` times again (nothing stored since the last view)
and `--rounds` times right after a new price of the GPU (what is cached is brought up to
date with it, or computed again). The GPU's first price-history page is timed the same
way. Prints p50/p95 of each and their growth between the smallest and the largest size,
measured in one run; never asserts times.

    .venv/bin/python bench/gpu_page.py [--sizes 10000,1000000] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import col

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scale import percentile, scraped_price  # noqa: E402
from bench.scale_data import ScaleSpec, insert_all  # noqa: E402
from services.api.app import create_app  # noqa: E402
from shared.kit.db import make_engine, session_scope  # noqa: E402
from shared.kit.settings import get_settings  # noqa: E402
from shared.models import CloudOffer, PriceObservation  # noqa: E402
from shared.wiring.bootstrap import prepare_database  # noqa: E402
from shared.wiring.runtime import open_context  # noqa: E402
from tests.conftest import _create_postgres_database, _drop_postgres_database  # noqa: E402

GPUS = ("rtx-3090", "h100-sxm5")
PAGES: dict[str, Callable[[str], tuple[str, dict[str, str]]]] = {
    "detail (JSON)": lambda gpu: (f"/gpus/{gpu}", {"accept": "application/json"}),
    "page (HTML)": lambda gpu: (f"/gpus/{gpu}", {"accept": "text/html"}),
    "price chart (SVG)": lambda gpu: (f"/charts/price-history.svg?gpu={gpu}", {}),
    "price history (JSON)": lambda gpu: (f"/gpus/{gpu}/prices", {}),
}
# Per (GPU, page): p50 and p95 in ms again (nothing stored since), then after a new price.
Figures = dict[tuple[str, str], tuple[float, float, float, float]]


def _timed(
    client: TestClient,
    path: str,
    headers: dict[str, str],
    rounds: int,
    before: Callable[[], None] = lambda: None,
) -> tuple[float, float]:
    """p50 and p95 in ms."""
    timings = []
    for _ in range(rounds):
        before()
        start = time.perf_counter()
        response = client.get(path, headers=headers)
        timings.append(time.perf_counter() - start)
        response.raise_for_status()
    return statistics.median(timings) * 1000, percentile(timings, 0.95) * 1000


def _new_price(engine: Engine, gpu_id: str) -> Callable[[], None]:
    """Stores one more price of the GPU: nothing computed before it can be reused."""
    counter = iter(range(1_000_000))

    def store() -> None:
        with session_scope(engine) as session:
            session.add(scraped_price(next(counter), Decimal("900.00"), gpu_id))

    return store


def measure(rows: int, rounds: int, seed: int) -> Figures:
    url, database = _create_postgres_database()
    data_dir = tempfile.mkdtemp(prefix="gpu-page-bench-")
    os.environ.update(
        {
            "GPU_ADVISOR_DATABASE_URL": url,
            "GPU_ADVISOR_PREPARE_ON_START": "false",
            "GPU_ADVISOR_DATA_DIR": data_dir,
            "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
            "GPU_ADVISOR_RATE_LIMIT_PER_MINUTE": "100000",
        }
    )
    get_settings.cache_clear()
    settings = get_settings()
    figures: Figures = {}
    try:
        engine = make_engine(url)
        prepare_database(open_context(settings, engine))
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        insert_all(engine, ScaleSpec(rows, seed=seed, end=end))
        with engine.connect() as conn:
            for gpu in GPUS:
                prices = conn.execute(
                    select(func.count()).where(col(PriceObservation.gpu_id) == gpu)
                ).scalar_one()
                offers = conn.execute(
                    select(func.count()).where(col(CloudOffer.gpu_id) == gpu)
                ).scalar_one()
                print(f"[{rows}] {gpu}: {prices} prices, {offers} cloud offers", flush=True)
        with TestClient(create_app(settings)) as client:
            for gpu in GPUS:
                for name, page in PAGES.items():
                    path, headers = page(gpu)
                    _timed(client, path, headers, 1)  # warm-up
                    again = _timed(client, path, headers, rounds)
                    fresh = _timed(client, path, headers, rounds, _new_price(engine, gpu))
                    figures[(gpu, name)] = (*again, *fresh)
                    print(
                        f"[{rows}] {gpu} {name} p50/p95: {_pair(again)} again, "
                        f"{_pair(fresh)} after a new price",
                        flush=True,
                    )
        engine.dispose()
    finally:
        _drop_postgres_database(database)
    return figures


def _pair(values: tuple[float, float]) -> str:
    return f"{values[0]:.0f}/{values[1]:.0f} ms"


def report(sizes: Sequence[int], all_figures: Sequence[Figures]) -> None:
    """Each cell: p50/p95 of the page again (nothing stored since) | right after a new
    price; then the ratio of the two at the largest size, and the growth."""
    head = " | ".join(f"{n:,} rows: again, after a price" for n in sizes)
    print(f"\n| GPU | page | {head} | after / again at {sizes[-1]:,} (p50, p95) | growth |")
    print("|---|---|" + "---|" * len(sizes) + "---|---|")
    for key in all_figures[0]:
        values = [f[key] for f in all_figures]
        cells = " | ".join(f"{_pair(v[:2])}, {_pair(v[2:])}" for v in values)
        last, first = values[-1], values[0]
        ratio = f"{last[2] / last[0]:.2f}x, {last[3] / last[1]:.2f}x"
        growth = f"{last[1] / first[1]:.2f}x / {last[3] / first[3]:.2f}x"
        print(f"| {key[0]} | {key[1]} | {cells} | {ratio} | {growth} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    report(sizes, [measure(n, args.rounds, args.seed) for n in sizes])


if __name__ == "__main__":
    main()
