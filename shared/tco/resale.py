"""Default resale value: how much of a card's price the used market pays back per year.

Method (stated in every answer that uses it):
1. the older cards of the same tier (GeForce "xx90", "xx80", ...: the last two digits of
   the model number, released before this card) that have a launch price; for cards
   without a tier (workstation, datacenter, AMD) all older consumer cards with history;
2. their used prices (monthly medians per card) observed after the Ethereum Merge
   (2022-09-15): before it, mining demand pushed used prices above launch prices
   (docs/domain.md section 3: avoid buying in mining booms), which no future resale repeats;
3. retention = used price / launch price at age a (years since release), and a
   geometric decline fitted through the origin: ln(retention) = a x ln(r) by least
   squares, r the share kept per year;
4. resale at the horizon = r ** years (geometric decline is memoryless, so it applies to a
   used purchase as well as a new one).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlmodel import Session, col, select

from shared.catalog.specs import Catalog, GpuSpec
from shared.models import PriceObservation

# Ethereum's switch to proof of stake ended GPU mining demand.
MERGE = datetime(2022, 9, 15, tzinfo=UTC)
# Retention is clamped: a fit on few points must not promise appreciation or total loss.
MIN_ANNUAL_RETENTION = 0.3
MAX_ANNUAL_RETENTION = 0.95
USED = ("used", "refurbished")
_MODEL_NUMBER = re.compile(r"\b(?:RTX|GTX)\s*(\d{3,4})\b")


@dataclass(frozen=True, slots=True)
class ResaleEstimate:
    annual_retention: float
    horizon_pct: float
    cards: tuple[str, ...]
    points: int
    method: str
    as_of: date | None


def tier(gpu: GpuSpec) -> str | None:
    """The class within its generation ("90" for RTX 3090 / 4090); None outside GeForce."""
    if not gpu.geforce_eula:
        return None
    found = _MODEL_NUMBER.search(gpu.name)
    return found.group(1)[-2:] if found else None


def comparable_cards(gpu: GpuSpec, catalog: Catalog) -> tuple[list[GpuSpec], str]:
    """Older cards whose used prices stand in for this card's future, and how chosen."""
    older = [
        g
        for g in catalog.gpus
        if g.release_date < gpu.release_date and g.launch_price_usd and g.geforce_eula
    ]
    own_tier = tier(gpu)
    same = [g for g in older if own_tier is not None and tier(g) == own_tier]
    if same:
        return same, f"older xx{own_tier}-tier GeForce cards"
    return older, "older consumer cards (no same-tier history: all tiers pooled)"


def fit_annual_retention(points: Sequence[tuple[float, float]]) -> float | None:
    """r in retention = r ** age, least squares on logs through the origin."""
    usable = [(age, ret) for age, ret in points if age > 0 and ret > 0]
    if not usable:
        return None
    slope = sum(a * math.log(r) for a, r in usable) / sum(a * a for a, _ in usable)
    return min(MAX_ANNUAL_RETENTION, max(MIN_ANNUAL_RETENTION, math.exp(slope)))


def retention_points(
    cards: Iterable[GpuSpec], observations: Iterable[PriceObservation]
) -> list[tuple[float, float]]:
    """(age in years, used price / launch price), one per card and month (median)."""
    by_card = {g.id: g for g in cards}
    monthly: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    for o in observations:
        if o.gpu_id in by_card and o.observed_at >= MERGE:
            key = (o.gpu_id, o.observed_at.year, o.observed_at.month)
            monthly[key].append(float(o.price_usd))
    points = []
    for (gpu_id, year, month), prices in sorted(monthly.items()):
        card = by_card[gpu_id]
        assert card.launch_price_usd is not None
        age = (date(year, month, 15) - card.release_date).days / 365.25
        points.append((age, statistics.median(prices) / card.launch_price_usd))
    return points


def estimate_resale(
    session: Session,
    gpu: GpuSpec,
    catalog: Catalog,
    years: float,
    before: datetime | None = None,
) -> ResaleEstimate | None:
    """The resale share after `years`, from prices observed before `before` when given (an
    answer as of a past date)."""
    cards, chosen = comparable_cards(gpu, catalog)
    if not cards:
        return None
    query = select(PriceObservation).where(
        col(PriceObservation.gpu_id).in_([g.id for g in cards]),
        col(PriceObservation.condition).in_(USED),
        col(PriceObservation.quarantined).is_(False),
        col(PriceObservation.observed_at) >= MERGE,
    )
    if before is not None:
        query = query.where(col(PriceObservation.observed_at) < before)
    observations = list(session.exec(query))
    points = retention_points(cards, observations)
    retention = fit_annual_retention(points)
    if retention is None:
        return None
    used = sorted({o.gpu_id for o in observations})
    newest = max(o.observed_at for o in observations).date()
    method = (
        f"used/launch price vs age of {len(used)} {chosen} ({', '.join(used)}), "
        f"{len(points)} card-months after the Ethereum Merge (2022-09-15) up to {newest}; "
        f"geometric fit through the origin: {retention:.1%} kept per year, "
        f"{retention:.3f} ** {years:g} years"
    )
    return ResaleEstimate(retention, retention**years, tuple(used), len(points), method, newest)
