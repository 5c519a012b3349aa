"""The estimate age limit the product applies is the one the backtest measures."""

from __future__ import annotations

import json
from pathlib import Path

from bench.price_backtest import age_limit, backtest, bundled_points
from shared.pricing.ages import AGE_LIMIT_FILE, too_old


def test_the_stored_age_limit_is_what_the_backtest_measures(tmp_path: Path) -> None:
    measured = age_limit(backtest(bundled_points(tmp_path)))
    stored = json.loads(AGE_LIMIT_FILE.read_text())
    assert measured == stored, "rerun python -m bench.price_backtest --write-params"
    assert [b["months"][0] for b in stored["buckets"]] == [0, 6, 12, 24]
    assert all(b["n"] > 0 for b in stored["buckets"])


def test_an_estimate_at_or_past_the_limit_says_what_the_backtest_measured() -> None:
    limit = json.loads(AGE_LIMIT_FILE.read_text())["max_estimate_months"]
    if limit is None:
        assert too_old(120) is None
        return
    assert too_old(limit - 0.5) is None
    reason = too_old(limit + 1)
    assert reason is not None and f"{limit} months or more" in reason
