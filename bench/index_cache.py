"""What the index cache saves: today's prices of one GPU with the market index refitted
against reused, on the bundled data (a fresh SQLite database, seeded as on first start).

Prints ratios measured in one run (the machine is shared and noisy); asserts nothing.
Run: .venv/bin/python -m bench.index_cache [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlmodel import Session

from bench.bundled_db import bundled_database
from shared.perfmodel.registry import get_model
from shared.pricing.index import INDEXES, market_index
from shared.scoring.compute import recompute_scores

GPU = "rtx-3090"


def median_s(runs: int, call: Callable[[], object], before: Callable[[], None]) -> float:
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        engine, settings = bundled_database(directory)
        model = get_model()
        with Session(engine) as session:

            def nothing() -> None:
                pass

            fit = median_s(args.runs, lambda: market_index(session), INDEXES.clear)
            hit = median_s(args.runs, lambda: market_index(session), nothing)

            def recompute() -> object:
                result = recompute_scores(session, [GPU], model=model, settings=settings)
                session.rollback()
                return result

            cold = median_s(args.runs, recompute, INDEXES.clear)
            warm = median_s(args.runs, recompute, nothing)
        engine.dispose()
    print(
        f"market index: refit {fit * 1000:.0f} ms, reused {hit * 1000:.1f} ms "
        f"(refit / reused = {fit / hit:.0f}x)"
    )
    print(
        f"one-GPU recompute ({GPU}): refit {cold * 1000:.0f} ms, reused {warm * 1000:.0f} ms "
        f"(refit / reused = {cold / warm:.1f}x)"
    )


if __name__ == "__main__":
    main()
