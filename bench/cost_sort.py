"""What ranking by dollars per unit of work costs a /recommend answer, measured in one run.

    .venv/bin/python -m bench.cost_sort [--rounds 15] [--data-dir var]

One app on the embedded default (the bundled data, prepared on first use), uncached
answers (the response cache is bypassed by a distinct `limit` per request), rounds
interleaving the orders so machine noise hits both alike. Prints the median time of each
order and the ratio to the perf-per-dollar order: the cost order times every candidate in
the buyer's units (for LLMs the time to first token too) before it sorts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.kit.settings import Settings

QUERIES = {
    "cv, perf per dollar": "task=cv&memory_gb=24&sort=perf_per_dollar",
    "cv, cost per unit": "task=cv&memory_gb=24&sort=cost_per_unit",
    "llm-inference 8B batch 16, perf per dollar": "task=llm-inference&params_b=8&batch=16"
    "&sort=perf_per_dollar",
    "llm-inference 8B batch 16, cost per unit": "task=llm-inference&params_b=8&batch=16"
    "&sort=cost_per_unit",
    "llm-inference 8B, latency targets": "task=llm-inference&params_b=8"
    "&min_tokens_per_s_per_user=15&max_ttft_ms=2000",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--data-dir", type=Path, default=Path("var"))
    args = parser.parse_args(argv)
    settings = Settings(data_dir=args.data_dir)
    print(f"preparing the embedded database in {args.data_dir} ...", file=sys.stderr)
    times: dict[str, list[float]] = {name: [] for name in QUERIES}
    with TestClient(create_app(settings)) as client:
        for round_no in range(args.rounds):
            print(f"round {round_no + 1}/{args.rounds}", file=sys.stderr)
            for name, query in QUERIES.items():
                # A distinct limit per request: the answer is computed, not served cached.
                url = f"/recommend?{query}&limit={50 + round_no}"
                start = time.perf_counter()
                response = client.get(url)
                times[name].append(time.perf_counter() - start)
                assert response.status_code == 200, response.text
    base = {
        "cv": statistics.median(times["cv, perf per dollar"]),
        "llm": statistics.median(times["llm-inference 8B batch 16, perf per dollar"]),
    }
    for name, values in times.items():
        median = statistics.median(values)
        ratio = median / base["cv" if name.startswith("cv") else "llm"]
        print(f"{name:45s} median {median * 1000:7.1f} ms  x{ratio:.2f} of perf per dollar")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
