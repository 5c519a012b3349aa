"""How old a price an estimate may rest on: measured by bench/price_backtest.py.

The backtest hides prices and estimates them from older ones; by the gap between the
two (under 6, 6-12, 12-24, 24 or more months) it scores the median error, that of "last
price unchanged", and how often the 80 % band held the hidden price. Estimates across a
gap at or beyond the first bucket that fails (coverage under 80 %, or no better than the
unchanged price) are not ranked: such a card needs a current price.
`python -m bench.price_backtest --write-params` rewrites the file; a test reruns it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

AGE_LIMIT_FILE = Path(__file__).with_name("params") / "estimate_ages.json"


@cache
def age_limit() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(AGE_LIMIT_FILE.read_text())
    return loaded


def max_estimate_months() -> int | None:
    """Estimates across this many months or more are not ranked (None: any age is)."""
    limit = age_limit()["max_estimate_months"]
    return None if limit is None else int(limit)


def too_old(months: float) -> str | None:
    """Why an estimate across `months` is not ranked, or None."""
    limit = max_estimate_months()
    if limit is None or months < limit:
        return None
    bucket = next(b for b in age_limit()["buckets"] if b["months"][0] == limit)
    return (
        f"moved across {months:.0f} months: in the backtest, estimates across {limit} months "
        f"or more were off by {bucket['median_error'] * 100:.0f} % (median; the last price "
        f"unchanged: {bucket['unchanged_error'] * 100:.0f} %) and their band held "
        f"{bucket['coverage'] * 100:.0f} % of the prices"
    )
