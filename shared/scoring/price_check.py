"""Check a vendor's quote against the market: where it sits in today's band, a verdict, the
evidence, and what the same money buys elsewhere.

Read only: it stores nothing and fires no alert (a procurement tool calls it before it
signs). It reads the ranking's own Score rows, so the band and the alternatives are the
ones `/recommend` ranks on: today's price (shared/pricing/today.py) of the card in the
quoted condition, and the best perf per dollar (at the low end of its interval) among used,
new and rented cards for the task.
"""

from __future__ import annotations

import math
from datetime import datetime
from decimal import Decimal
from statistics import NormalDist

from sqlmodel import Session, col, select

from shared.builds.build import perf_per_dollar
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import load_catalog
from shared.models import Score
from shared.pricing.quarantine import QuarantineRules, reference_details
from shared.pricing.today import Z_80
from shared.scoring.schemas import (
    AlternativeKind,
    AlternativeOut,
    EvidenceOut,
    PriceCheckOut,
    PriceCheckRequest,
    Verdict,
)
from shared.scoring.value import per_dollar_interval, price_band

# The band is the 80 % interval: below its low end is cheaper than 9 in 10 market prices.
BELOW, ABOVE = 10.0, 90.0
PRECISION = "fp16"
ALTERNATIVE_CONDITIONS: dict[AlternativeKind, str] = {
    "used": "used",
    "new": "new",
    "cloud": "cloud:on-demand",
}


def check_price(
    session: Session, req: PriceCheckRequest, rules: QuarantineRules, now: datetime
) -> PriceCheckOut:
    """The check (see the module docstring); UnknownGpu (422) for a name not in the catalog."""
    gpu_id = catalog_id("gpu", req.gpu)
    spec = load_catalog().by_id[gpu_id]
    group = "used" if req.condition == "refurbished" else req.condition
    market = _score(session, gpu_id, req.task, group)
    total = req.usd * req.count
    evidence, percentile = _evidence(market, req.usd)
    reference = None
    if percentile is None:
        found = reference_details(session, {(gpu_id, group)}, now, rules).get((gpu_id, group))
        if found is not None:
            reference = f"${found.usd:,.0f}: {found.basis}"
    memory = req.memory_gb if req.memory_gb is not None else spec.memory_gb
    return PriceCheckOut(
        gpu=gpu_id,
        gpu_name=spec.name,
        usd=req.usd,
        condition=req.condition,
        count=req.count,
        total_usd=total,
        task=req.task,
        percentile=percentile,
        verdict=_verdict(percentile),
        evidence=evidence,
        quote_perf_per_1000_usd=(
            round(perf_per_dollar(market.relative_performance, req.usd) * 1000, 4)
            if market is not None
            else None
        ),
        reference=reference,
        alternatives_memory_gb=memory,
        alternatives=_alternatives(session, req.task, total, memory),
    )


def _score(session: Session, gpu_id: str, task: str, condition: str) -> Score | None:
    query = select(Score).where(
        Score.gpu_id == gpu_id,
        Score.task == task,
        Score.precision == PRECISION,
        Score.condition == condition,
    )
    return session.exec(query).first()


def percentile_in_band(usd: Decimal, center: Decimal, band_high: Decimal) -> float:
    """The quote's percentile under today's price as a log-normal whose 10th-90th
    percentiles are the band."""
    sigma = math.log(float(band_high) / float(center)) / Z_80
    z = math.log(float(usd) / float(center))
    if sigma <= 0:
        return 50.0 if z == 0 else (0.0 if z < 0 else 100.0)
    return round(NormalDist().cdf(z / sigma) * 100, 1)


def _evidence(market: Score | None, usd: Decimal) -> tuple[EvidenceOut, float | None]:
    if market is None or market.unranked_reason is not None or market.price_band_high is None:
        reason = (
            market.unranked_reason
            if market is not None and market.unranked_reason
            else "no market price of this card in this condition"
        )
        return (
            EvidenceOut(
                series=market.price_source if market else "",
                measure=market.price_measure if market else "",
                n=market.price_n if market else 0,
                observed_at=market.price_last_observed_at if market else None,
                today_usd=None,
                band_usd=None,
                estimated=False,
                basis=reason,
            ),
            None,
        )
    evidence = EvidenceOut(
        series=market.price_source,
        measure=market.price_measure,
        n=market.price_n,
        observed_at=market.price_last_observed_at or market.price_observed_at,
        today_usd=market.price_usd,
        band_usd=price_band(market),
        estimated=market.price_estimated,
        basis=market.price_basis or "",
    )
    return evidence, percentile_in_band(usd, market.price_usd, market.price_band_high)


def _verdict(percentile: float | None) -> Verdict:
    if percentile is None:
        return "no_market"
    if percentile < BELOW:
        return "below_market"
    if percentile > ABOVE:
        return "above_market"
    return "fair"


def _alternatives(
    session: Session, task: str, total: Decimal, memory_gb: float
) -> list[AlternativeOut]:
    """The best card per kind with `memory_gb` or more, by perf per dollar at the low end
    of its interval."""
    catalog = load_catalog().by_id
    found = []
    for kind, condition in ALTERNATIVE_CONDITIONS.items():
        rows = [
            s
            for s in session.exec(
                select(Score).where(
                    Score.task == task,
                    Score.precision == PRECISION,
                    Score.condition == condition,
                    col(Score.unranked_reason).is_(None),
                )
            )
            if catalog[s.gpu_id].memory_gb >= memory_gb
        ]
        if not rows:
            continue
        best = max(rows, key=lambda s: (_interval(s)[0], s.gpu_id))
        low, high = _interval(best)
        rental = kind == "cloud"
        found.append(
            AlternativeOut(
                kind=kind,
                gpu=best.gpu_id,
                gpu_name=catalog[best.gpu_id].name,
                usd=best.price_usd,
                unit="usd_per_gpu_hour" if rental else "usd",
                perf_per_1000_usd=round(best.perf_per_dollar * 1000, 4),
                perf_per_1000_usd_interval=(round(low * 1000, 4), round(high * 1000, 4)),
                same_money_buys=round(float(total / (best.price_usd + best.system_cost_usd)), 2),
            )
        )
    return found


def _interval(score: Score) -> tuple[float, float]:
    """A single GPU's perf per dollar at (low performance, high price) and the reverse."""
    performance = (score.interval_low, score.interval_high)
    return per_dollar_interval(performance, price_band(score), 1, score.system_cost_usd)
