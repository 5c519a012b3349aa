"""How old the prices behind a ranking are: the market's ages, never a posted quote's.

A ranking of stale prices must not look fresh because one quote arrived: "prices as of"
and /health read the observations today's prices rest on (shared/pricing/today.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from shared.models import Score
from shared.pricing.market import age_days

# Prices do not depend on the task or precision: one task's rows hold every GPU's price.
PRICE_TASK, PRICE_PRECISION = "cv", "fp16"


@dataclass(frozen=True, slots=True)
class PriceAges:
    newest_observed_at: datetime | None
    median_age_days: float | None
    stale_share: float
    estimated_share: float
    n: int


def ages_of(scores: Sequence[Score], now: datetime, stale_days: int) -> PriceAges:
    """The ages of the observations behind these ranked prices."""
    if not scores:
        return PriceAges(None, None, 0.0, 0.0, 0)
    seen = [s.price_last_observed_at or s.price_observed_at for s in scores]
    ages = [age_days(at, now) for at in seen]
    return PriceAges(
        newest_observed_at=max(seen),
        median_age_days=round(statistics.median(ages), 1),
        stale_share=round(sum(a > stale_days for a in ages) / len(ages), 3),
        estimated_share=round(sum(s.price_estimated for s in scores) / len(scores), 3),
        n=len(scores),
    )


def ranking_ages(session: Session, now: datetime, stale_days: int) -> dict[str, PriceAges]:
    """Per ranking condition (new, used, any, cloud:on-demand, cloud:spot), the ages of
    the prices the ranking uses (cards left unranked are not counted)."""
    rows = session.exec(
        select(Score).where(
            Score.task == PRICE_TASK,
            Score.precision == PRICE_PRECISION,
            col(Score.unranked_reason).is_(None),
        )
    ).all()
    by_condition: dict[str, list[Score]] = {}
    for row in rows:
        by_condition.setdefault(row.condition, []).append(row)
    return {c: ages_of(group, now, stale_days) for c, group in sorted(by_condition.items())}
