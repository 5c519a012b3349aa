"""Server time of each page and chart on the embedded default (SQLite, bundled data).

Reads the pages' Server-Timing header (time inside the route, template included) and
also prints the in-process request time and the page size. Nothing is asserted.

    .venv/bin/python bench/pages.py            # builds its own app in a temporary data dir
    .venv/bin/python bench/pages.py --runs 50
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from services.api.app import create_app  # noqa: E402
from shared.kit.settings import Settings  # noqa: E402

BROWSER = {"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}
PAGES = [
    "/",
    "/?task=cv&memory_gb=24",
    "/?task=nlp&condition=used&count=4&limit=25",
    "/fragments/recommendation?task=llm-inference&memory_gb=48",
    "/gpus/rtx-3090",
    "/gpus/h100-sxm5",
    "/tco?gpu=rtx-4090&utilization=0.5",
    "/quotes",
    "/charts/perf-per-dollar.svg?task=cv&memory_gb=24",
    "/charts/perf-per-dollar.png?task=cv&memory_gb=24",
    "/charts/price-history.svg?gpu=rtx-3090",
    "/charts/price-history.png?gpu=rtx-3090",
]


def _server_ms(response_headers: dict[str, str]) -> float | None:
    timing = response_headers.get("server-timing", "")
    if "dur=" not in timing:
        return None
    return float(timing.split("dur=", 1)[1].split(";")[0].split(",")[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(Settings(data_dir=Path(data_dir)))
        with TestClient(app) as client:
            header = (
                f"{'page':60} {'first ms':>9} {'p50 ms':>8} {'p95 ms':>8} {'server':>8} {'KB':>7}"
            )
            print(header)
            for url in PAGES:
                start = time.perf_counter()
                first = client.get(url, headers=BROWSER)
                first_ms = (time.perf_counter() - start) * 1000
                first.raise_for_status()
                times, server = [], []
                # Images are cached by content after the first request: the first
                # column is the cost of drawing, the others of serving.
                for _ in range(args.runs):
                    start = time.perf_counter()
                    response = client.get(url, headers=BROWSER)
                    times.append((time.perf_counter() - start) * 1000)
                    measured = _server_ms(dict(response.headers))
                    if measured is not None:
                        server.append(measured)
                times.sort()
                p95 = times[int(len(times) * 0.95) - 1]
                server_p50 = f"{statistics.median(server):8.1f}" if server else f"{'-':>8}"
                print(
                    f"{url[:60]:60} {first_ms:9.1f} {statistics.median(times):8.1f} "
                    f"{p95:8.1f} {server_p50} {len(first.content) / 1024:7.1f}"
                )


if __name__ == "__main__":
    main()
