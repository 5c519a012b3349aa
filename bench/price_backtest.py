"""Backtest of today's price estimate: hide the newest months, estimate them from older data.

    .venv/bin/python -m bench.price_backtest [--write-params]
    .venv/bin/python bench/price_backtest.py [--write-params]

Loads the bundled prices into a temporary SQLite database, then for each cut-off month:
- **time split**: every price from the cut-off on is hidden; the index and its volatility
  are fitted on what is left, and each hidden monthly price of a card is estimated from
  that card's newest visible price, moved by the index (carried flat past the cut-off);
- **card split**: one card at a time, only that card's prices from the cut-off on are
  hidden, every other card's stay (the situation of a stale card among fresh ones).
Each estimate is scored against the hidden price: its error, whether the 80 % band holds
it, and the error of "last price unchanged". Nothing is tuned on the hidden months: the
band's z is the normal 80 % value and the volatilities are measured on the visible data.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session

# Runnable as a path too (python bench/price_backtest.py), not only as a module.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bundled_db import bundled_database  # noqa: E402
from shared.pricing.ages import AGE_LIMIT_FILE  # noqa: E402
from shared.pricing.index import (  # noqa: E402
    GroupIndex,
    MarketIndex,
    MonthlyPoint,
    build_index,
    load_points,
    memory_tiers,
    month_of,
    month_start,
    peer_classes,
)
from shared.pricing.today import MAX_SUPPORT_GAP_MONTHS, MAX_SUPPORT_LAG_MONTHS, Z_80  # noqa: E402

CUTOFFS = (datetime(2023, 1, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC))
# The gap (months from the newest visible price to the hidden one) buckets reported.
GAP_BUCKETS: tuple[tuple[int, int | None], ...] = ((0, 6), (6, 12), (12, 24), (24, None))
MIN_COVERAGE = 0.8


@dataclass(frozen=True, slots=True)
class Score:
    split: str
    cutoff: str
    error: float  # |estimate / truth - 1|
    naive: float  # |last / truth - 1|
    covered: bool
    months: int


def bundled_points(directory: Path) -> list[MonthlyPoint]:
    engine, _ = bundled_database(directory)
    with Session(engine) as session:
        points = load_points(session)
    engine.dispose()
    return points


def score_hidden(
    index: MarketIndex, visible: Sequence[MonthlyPoint], hidden: Sequence[MonthlyPoint]
) -> list[tuple[float, float, bool, int]]:
    """(error, naive error, band holds, months) of each hidden point with a visible one."""
    newest: dict[tuple[str, str], MonthlyPoint] = {}
    for p in visible:
        key = (p.gpu_id, p.group)
        if key not in newest or p.month > newest[key].month:
            newest[key] = p
    scored = []
    for truth in hidden:
        last = newest.get((truth.gpu_id, truth.group))
        if last is None:
            continue
        group = next(
            (
                g
                for g in index.for_card(truth.gpu_id, truth.group)
                if bridges(g, last.month, truth.gpu_id)
            ),
            None,
        )
        if group is None:
            continue
        change = group.change(last.month, truth.month)
        estimate = last.usd * math.exp(change)
        gap = truth.month - last.month
        spread = index.volatility.spread(gap, group.unsupported(last.month, truth.month), None)
        low, high = estimate * math.exp(-Z_80 * spread), estimate * math.exp(Z_80 * spread)
        scored.append(
            (
                abs(estimate / truth.usd - 1),
                abs(last.usd / truth.usd - 1),
                low <= truth.usd <= high,
                gap,
            )
        )
    return scored


def bridges(group: GroupIndex, month: int, gpu_id: str) -> bool:
    """The product's rule (shared/pricing/today.py): other cards' data around it."""
    return any(
        group.seen_by_others(m, gpu_id)
        for m in range(month - MAX_SUPPORT_GAP_MONTHS, month + MAX_SUPPORT_LAG_MONTHS + 1)
    )


def backtest(points: Sequence[MonthlyPoint]) -> list[Score]:
    segments = peer_classes()
    tiers = memory_tiers()
    scores: list[Score] = []
    for cutoff in CUTOFFS:
        cut = month_of(cutoff)
        label = month_start(cut).strftime("%Y-%m")
        visible = [p for p in points if p.month < cut]
        hidden = [p for p in points if p.month >= cut]
        index = build_index(visible, segments, tiers)
        for row in score_hidden(index, visible, hidden):
            scores.append(Score("time", label, *row))
        by_card: dict[str, list[MonthlyPoint]] = defaultdict(list)
        for p in hidden:
            by_card[p.gpu_id].append(p)
        for gpu_id, card_hidden in sorted(by_card.items()):
            others = [p for p in points if p.gpu_id != gpu_id or p.month < cut]
            card_visible = [p for p in visible if p.gpu_id == gpu_id]
            if not card_visible:
                continue
            card_index = build_index(others, segments, tiers)
            for row in score_hidden(card_index, card_visible, card_hidden):
                scores.append(Score("card", label, *row))
    return scores


def summary(scores: Sequence[Score]) -> str:
    if not scores:
        return "n=   0"
    errors = [s.error for s in scores]
    naive = [s.naive for s in scores]
    covered = sum(s.covered for s in scores)
    return (
        f"n={len(scores):4d}  median error {statistics.median(errors) * 100:5.1f} %  "
        f"(last price unchanged {statistics.median(naive) * 100:5.1f} %, "
        f"ratio {statistics.median(errors) / max(statistics.median(naive), 1e-9):.2f})  "
        f"band coverage {covered / len(scores) * 100:5.1f} %"
    )


def bucket_label(low: int, high: int | None) -> str:
    return f">= {low} months" if high is None else f"{low}-{high} months"


def in_bucket(score: Score, low: int, high: int | None) -> bool:
    return score.months >= low and (high is None or score.months < high)


def age_limit(scores: Sequence[Score]) -> dict[str, object]:
    """The product's rule from the card split (a stale card among fresh ones, both
    cut-offs): estimates are ranked up to the first gap bucket whose band holds fewer
    than 80 % of the hidden prices or whose median error is not below "last price
    unchanged"."""
    card = [s for s in scores if s.split == "card"]
    buckets = []
    limit: int | None = None
    for low, high in GAP_BUCKETS:
        chosen = [s for s in card if in_bucket(s, low, high)]
        error = statistics.median(s.error for s in chosen) if chosen else None
        naive = statistics.median(s.naive for s in chosen) if chosen else None
        coverage = sum(s.covered for s in chosen) / len(chosen) if chosen else None
        passed = (
            error is not None
            and naive is not None
            and coverage is not None
            and coverage >= MIN_COVERAGE
            and error < naive
        )
        if not passed and limit is None:
            limit = low
        buckets.append(
            {
                "months": [low, high],
                "n": len(chosen),
                "median_error": None if error is None else round(error, 4),
                "unchanged_error": None if naive is None else round(naive, 4),
                "coverage": None if coverage is None else round(coverage, 4),
                "ranked": passed and limit is None,
            }
        )
    return {
        "max_estimate_months": limit,
        "rule": (
            "an estimate is ranked only across gaps shorter than the first bucket whose 80 % "
            "band held fewer than 80 % of the hidden prices or whose median error was not "
            "below the last price unchanged (bench/price_backtest.py, card split, both "
            "cut-offs)"
        ),
        "buckets": buckets,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    print("loading the bundled prices into a temporary database ...", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        points = bundled_points(Path(directory))
    print(f"{len(points)} monthly points; fitting one index per cut-off and card ...", flush=True)
    scores = backtest(points)
    for split in ("time", "card"):
        for cutoff in [*sorted({s.cutoff for s in scores}), "both"]:
            chosen = [s for s in scores if s.split == split and cutoff in (s.cutoff, "both")]
            print(f"{split} split, hidden from {cutoff}: {summary(chosen)}")
            for low, high in GAP_BUCKETS:
                bucket = [s for s in chosen if in_bucket(s, low, high)]
                print(f"    {bucket_label(low, high):>15s}: {summary(bucket)}")
    limit = age_limit(scores)
    print(f"estimates ranked up to: {limit['max_estimate_months']} months (None: every age)")
    if "--write-params" in args:
        AGE_LIMIT_FILE.write_text(json.dumps(limit, indent=1) + "\n")
        print(f"wrote {AGE_LIMIT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
