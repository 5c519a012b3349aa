"""One /tco right after a new price, and a burst of 10 concurrent /tco after another,
through a real API process (uvicorn) on the bundled data, on SQLite and PostgreSQL.

A new market price moves the index's watermark, so the first request after it needs a
refitted market index: the single request shows what that costs, the burst whether ten
requests share one fit or each fit it again. The same burst with unchanged prices is the
floor: what ten requests cost with nothing to fit. The price
is committed straight to the database, without a recompute, so the requests are the only
work on the index. The PostgreSQL database is a temporary one, dropped at the end.

Prints times and ratios measured in one run (the machine is shared and noisy); asserts
nothing. Run: .venv/bin/python -m bench.index_burst [--burst 10] [--backend sqlite]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared.kit.db import make_engine, session_scope  # noqa: E402
from shared.kit.settings import Settings  # noqa: E402
from shared.models import PriceObservation  # noqa: E402
from shared.wiring.bootstrap import prepare_database  # noqa: E402
from shared.wiring.runtime import open_context  # noqa: E402
from tests.conftest import _create_postgres_database, _drop_postgres_database  # noqa: E402
from tests.processes import Service, free_port, wait_for  # noqa: E402

# The README's /tco example: a purchase price from the market, a rental from the offers.
TCO: dict[str, str | int | float] = {
    "gpu": "rtx-4090",
    "count": 1,
    "cloud_gpu": "h100-sxm5",
    "pricing": "spot",
    "utilization": 0.35,
    "years": 3,
}
# A request still running after this is counted as timed out (the before numbers had some).
TIMEOUT_S = 600.0


def add_price(url: str, i: int) -> None:
    """A scraped sale of an RTX 3090: a row the market index reads."""
    engine = make_engine(url)
    usd = Decimal(700 + i)
    with session_scope(engine) as session:
        session.add(
            PriceObservation(
                gpu_id="rtx-3090",
                condition="used",
                price=usd,
                price_usd=usd,
                kind="scraped",
                source="bench",
                listing_id=f"bench-burst-{i}",
                observed_at=datetime.now(UTC),
                measure="sale",
            )
        )
    engine.dispose()


def tco_seconds(base: str) -> float:
    """One request's time; TIMEOUT_S for one that did not answer within it."""
    start = time.perf_counter()
    try:
        response = httpx.get(f"{base}/tco", params=TCO, timeout=TIMEOUT_S)
    except httpx.TimeoutException:
        return TIMEOUT_S
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed


def burst_seconds(base: str, n: int) -> tuple[float, list[float]]:
    """Wall time until all `n` concurrent requests answered, and each one's time."""
    with ThreadPoolExecutor(n) as pool:
        start = time.perf_counter()
        each = list(pool.map(lambda _: tco_seconds(base), range(n)))
        return time.perf_counter() - start, each


def _seconds(value: float) -> str:
    return f"> {TIMEOUT_S:.0f} s (timed out)" if value >= TIMEOUT_S else f"{value:.2f} s"


def run(backend: str, burst: int, logs: Path) -> None:
    pg_name: str | None = None
    if backend == "postgresql":
        url, pg_name = _create_postgres_database()
    else:
        url = f"sqlite:///{logs / 'bench.db'}"
    env = {
        "GPU_ADVISOR_DATABASE_URL": url,
        "GPU_ADVISOR_DATA_DIR": str(logs),
        "GPU_ADVISOR_BROKER_URL": "",
        "GPU_ADVISOR_PREPARE_ON_START": "false",
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
    }
    api: Service | None = None
    try:
        engine = make_engine(url)
        prepare_database(open_context(Settings(database_url=url, data_dir=logs), engine))
        engine.dispose()
        port = free_port()
        command = f"uvicorn --factory services.api.app:create_app --port {port}"
        api = Service(f"api-{backend}", command, env, logs).start()
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: httpx.get(f"{base}/health").status_code == 200, 120, "api")
        first = tco_seconds(base)  # the process's first fit (or load) and warm caches
        warm = statistics.median(tco_seconds(base) for _ in range(3))
        # The floor of a burst: the same requests with nothing to fit.
        warm_burst, _ = burst_seconds(base, burst)
        add_price(url, 0)
        single = tco_seconds(base)
        add_price(url, 1)
        wall, each = burst_seconds(base, burst)
    finally:
        if api is not None:
            api.stop()
        if pg_name is not None:
            _drop_postgres_database(pg_name)
    print(
        f"{backend}: first /tco of the process {_seconds(first)}, "
        f"unchanged prices {warm * 1000:.0f} ms; "
        f"one /tco after a new price {_seconds(single)}; {burst} concurrent after another "
        f"{_seconds(wall)} (slowest {_seconds(max(each))}, "
        f"median {_seconds(statistics.median(each))}); burst / single = {wall / single:.1f}x; "
        f"{burst} concurrent with unchanged prices {_seconds(warm_burst)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=10)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), action="append")
    args = parser.parse_args()
    for backend in args.backend or ["sqlite", "postgresql"]:
        with tempfile.TemporaryDirectory(prefix="gpu-advisor-burst-") as tmp:
            run(backend, args.burst, Path(tmp))


if __name__ == "__main__":
    main()
