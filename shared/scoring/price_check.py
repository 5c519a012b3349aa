"""Check a vendor's quote against the market: where it sits in today's band, a verdict
with its reason, the evidence, how much market stands behind the price, and what the same
money buys elsewhere.

Read only: it stores nothing and fires no alert (a procurement tool calls it before it
signs). It reads the ranking's own Score rows, so the band and the alternatives are the
ones `/recommend` ranks on: today's price (shared/pricing/today.py) of the card in the
quoted condition, or its rental today for a cloud quote (`rented_today`, Score rows
"cloud:on-demand" / "cloud:spot"), and the best perf per dollar (at the low end of its
interval) among used, new and rented cards for the task.

Like with like: the quote is a price of GPUs, so its figures and the alternatives' are
for GPUs alone, without the system around them (`includes_system_cost` false).

`suspicious` reuses the rule that holds back an implausible posted price
(shared/pricing/quarantine.py: below its reference divided by the quarantine factor) with
the lowest of the card's price bands as the reference, or its quarantine reference where
it has no band; for a cloud quote, the rental rule's factor (an offer that far below the
others is held back: shared/pricing/cloud.py) against the lowest rental band.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from statistics import NormalDist

from sqlalchemy import func
from sqlmodel import Session, select

from shared.builds.build import perf_per_dollar
from shared.builds.schemas import Pricing
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import load_catalog
from shared.kit.errors import InputError
from shared.kit.settings import Settings
from shared.models import CloudOffer, Score
from shared.pricing.availability import SupplyKey, availability_of, supply_key
from shared.pricing.cloud import Currency
from shared.pricing.quarantine import (
    QuarantineRules,
    Reference,
    quarantine_reason,
    reference_details,
)
from shared.pricing.today import Z_80
from shared.scoring.schemas import (
    AlternativeKind,
    AlternativeOut,
    EvidenceOut,
    PriceCheckOut,
    PriceCheckRequest,
    Verdict,
    availability_out,
)
from shared.scoring.score_rows import ScoreRows
from shared.scoring.value import per_dollar_interval, price_band

# The band is the 80 % interval: below its low end is cheaper than 9 in 10 market prices.
BELOW, ABOVE = 10.0, 90.0
PRECISION = "fp16"
PURCHASE_GROUPS = ("new", "used")
RENTALS = ("cloud:on-demand", "cloud:spot")
ALTERNATIVE_CONDITIONS: dict[AlternativeKind, str] = {
    "used": "used",
    "new": "new",
    "cloud": "cloud:on-demand",
}
RENTAL_PRICING: dict[str, Pricing] = {"cloud:on-demand": "on-demand", "cloud:spot": "spot"}
PER_HOUR_HINT = "a per-hour figure sent as a purchase"


@dataclass(frozen=True, slots=True)
class MarketRules:
    """What the check reads besides the quarantine rule: the rental rule's factor and the
    market window and stale age (availability)."""

    cloud_factor: Decimal = Settings.model_fields["cloud_quarantine_factor"].default
    window_days: int = Settings.model_fields["market_window_days"].default
    stale_days: int = Settings.model_fields["price_stale_days"].default

    @classmethod
    def from_settings(cls, settings: Settings) -> MarketRules:
        return cls(
            settings.cloud_quarantine_factor,
            settings.market_window_days,
            settings.price_stale_days,
        )


@dataclass(frozen=True, slots=True)
class _Quote:
    usd: Decimal
    rental: bool
    condition: str  # the Score condition compared with: "new", "used", "cloud:<pricing>"
    pricing: Pricing | None


def quoted(req: PriceCheckRequest) -> _Quote:
    """The quote's price and the market it is checked against; a 422 (InputError) naming
    the field where the price does not fit the condition."""
    if req.condition == "cloud":
        if req.usd_per_hour is None:
            message = "a cloud quote is per GPU-hour: give usd_per_hour" + (
                ", not usd" if req.usd is not None else ""
            )
            raise InputError("usd_per_hour", message, ["usd_per_hour"])
        if req.usd is not None:
            raise InputError("usd", "a cloud quote gives usd_per_hour, not usd", ["usd_per_hour"])
        pricing: Pricing = req.pricing or "on-demand"
        return _Quote(req.usd_per_hour, True, f"cloud:{pricing}", pricing)
    if req.usd_per_hour is not None:
        raise InputError("usd_per_hour", "only with condition cloud", ["condition=cloud"])
    if req.pricing is not None:
        raise InputError("pricing", "only with condition cloud", ["condition=cloud"])
    if req.usd is None:
        raise InputError("usd", "a purchase quote gives usd per GPU", ["usd"])
    group = "used" if req.condition == "refurbished" else req.condition
    return _Quote(req.usd, False, group, None)


def check_price(
    session: Session,
    req: PriceCheckRequest,
    rules: QuarantineRules,
    now: datetime,
    *,
    market_rules: MarketRules | None = None,
    score_rows: ScoreRows | None = None,
) -> PriceCheckOut:
    """The check (see the module docstring); UnknownGpu (422) for a name not in the
    catalog, InputError (422) for a price that does not fit the condition."""
    gpu_id = catalog_id("gpu", req.gpu)
    quote = quoted(req)
    market_rules = market_rules or MarketRules()
    spec = load_catalog().by_id[gpu_id]
    # The stored rows, or as of a past date rows computed from the prices seen by then.
    rows = score_rows or ScoreRows(session)
    scores = _scores(rows, gpu_id, req.task)
    market = scores.get(quote.condition)
    total = quote.usd * req.count
    evidence, percentile = _evidence(market, quote, session, gpu_id)
    reference = None
    references = {}
    if not quote.rental and not _bands(scores, PURCHASE_GROUPS):
        keys = {(gpu_id, group) for group in PURCHASE_GROUPS}
        references = reference_details(session, keys, now, rules)
    if percentile is None and (found := references.get((gpu_id, quote.condition))):
        reference = f"${found.usd:,.0f}: {found.basis}"
    suspicion = (
        _rental_suspicion(quote, scores, market_rules.cloud_factor)
        if quote.rental
        else _purchase_suspicion(quote, scores, references, rules.factor)
    )
    verdict: Verdict = "suspicious" if suspicion else _verdict(percentile)
    memory = req.memory_gb if req.memory_gb is not None else spec.memory_gb
    alternatives = _alternatives(rows, req.task, total, memory, quote)
    # As of a past date: only the offers seen by then are current.
    seen_before = rows.as_of.before if rows.as_of is not None else None
    currency = Currency(now, market_rules.window_days, market_rules.stale_days, seen_before)
    keys = {supply_key(gpu_id, quote.condition)} | {
        supply_key(a.gpu, _alternative_condition(a)) for a in alternatives
    }
    supply = availability_of(session, keys, currency)
    for a in alternatives:
        a.availability = availability_out(supply.get(supply_key(a.gpu, _alternative_condition(a))))
    return PriceCheckOut(
        gpu=gpu_id,
        gpu_name=spec.name,
        usd=quote.usd,
        unit="usd_per_gpu_hour" if quote.rental else "usd",
        condition=req.condition,
        pricing=quote.pricing,
        count=req.count,
        total_usd=total,
        task=req.task,
        percentile=percentile,
        verdict=verdict,
        reason=suspicion or _reason(verdict, percentile, market, quote, evidence),
        evidence=evidence,
        availability=availability_out(supply.get(supply_key(gpu_id, quote.condition))),
        quote_perf_per_1000_usd=(
            round(perf_per_dollar(market.relative_performance, quote.usd) * 1000, 4)
            if market is not None
            else None
        ),
        reference=reference,
        alternatives_memory_gb=memory,
        alternatives=alternatives,
    )


def _scores(rows: ScoreRows, gpu_id: str, task: str) -> dict[str, Score]:
    """The card's Score rows of the task, purchases and rentals, by condition."""
    found = rows.select_any(task, PRECISION, [*PURCHASE_GROUPS, *RENTALS], gpu_id)
    return {s.condition: s for s in found}


def _banded(score: Score | None) -> bool:
    return (
        score is not None
        and score.unranked_reason is None
        and score.price_band_low is not None
        and score.price_band_high is not None
    )


def _bands(scores: dict[str, Score], conditions: tuple[str, ...]) -> list[Score]:
    return [s for c in conditions if (s := scores.get(c)) is not None and _banded(s)]


def percentile_in_band(usd: Decimal, low: Decimal, center: Decimal, high: Decimal) -> float:
    """The quote's percentile under today's price as a log-normal whose median is
    `center` and whose 10th and 90th percentiles are the band's ends (one sigma each side:
    a band need not be symmetric)."""
    z = math.log(float(usd) / float(center))
    end = low if z < 0 else high
    sigma = abs(math.log(float(end) / float(center))) / Z_80
    if sigma <= 0:
        return 50.0 if z == 0 else (0.0 if z < 0 else 100.0)
    return round(NormalDist().cdf(z / sigma) * 100, 1)


def _center(score: Score, rental: bool) -> Decimal:
    """Where the band's median is: today's price, or for a current rental (banded from
    its cheapest to its median offer) the band's geometric middle."""
    low, high = price_band(score)
    if rental and low == score.price_usd and high > low:
        return Decimal(str(math.sqrt(float(low) * float(high))))
    return score.price_usd


def _evidence(
    market: Score | None, quote: _Quote, session: Session, gpu_id: str
) -> tuple[EvidenceOut, float | None]:
    if market is None or not _banded(market):
        if market is not None and market.unranked_reason:
            reason = market.unranked_reason
        elif quote.rental:
            reason = _no_rental(session, gpu_id, quote)
        else:
            reason = "no market price of this card in this condition"
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
    low, high = price_band(market)
    evidence = EvidenceOut(
        series=market.price_source,
        measure=market.price_measure,
        n=market.price_n,
        observed_at=market.price_last_observed_at or market.price_observed_at,
        today_usd=market.price_usd,
        band_usd=(low, high),
        estimated=market.price_estimated,
        basis=market.price_basis or "",
    )
    center = _center(market, quote.rental)
    return evidence, percentile_in_band(quote.usd, low, center, high)


def _no_rental(session: Session, gpu_id: str, quote: _Quote) -> str:
    """Why a cloud quote has nothing to compare with."""
    offers = session.exec(
        select(func.count()).select_from(CloudOffer).where(CloudOffer.gpu_id == gpu_id)
    ).one()
    if not offers:
        return (
            "never offered for rent: no cloud offer of this card is stored, so there is no "
            "rental to compare with"
        )
    return f"no {quote.pricing} rental of this card today for this task"


def _verdict(percentile: float | None) -> Verdict:
    if percentile is None:
        return "no_market"
    if percentile < BELOW:
        return "below_market"
    if percentile > ABOVE:
        return "above_market"
    return "fair"


def _money(usd: Decimal, rental: bool) -> str:
    return f"${usd:,.5f}".rstrip("0").rstrip(".") + "/GPU-h" if rental else f"${usd:,.0f}"


def _range(low: Decimal, high: Decimal, rental: bool) -> str:
    if not rental:
        return f"${low:,.0f}-${high:,.0f}"
    return _money(low, True).removesuffix("/GPU-h") + "-" + _money(high, True)[1:]


def _reason(
    verdict: Verdict,
    percentile: float | None,
    market: Score | None,
    quote: _Quote,
    evidence: EvidenceOut,
) -> str:
    if verdict == "no_market" or market is None or evidence.band_usd is None:
        return f"nothing to compare with: {evidence.basis}"
    low, high = evidence.band_usd
    band = f"today's {_market_words(quote)} band {_range(low, high, quote.rental)}"
    what = "an estimate" if market.price_estimated else "measured"
    where = f"percentile {percentile} of {band} ({what}: {evidence.basis})"
    if verdict == "below_market":
        return f"{where}: below the band, not far enough below it to be implausible"
    if verdict == "above_market":
        return f"{where}: above the band"
    return f"{where}: within the band"


def _market_words(quote: _Quote) -> str:
    return f"{quote.pricing} rental" if quote.rental else quote.condition


def _purchase_suspicion(
    quote: _Quote,
    scores: dict[str, Score],
    references: Mapping[SupplyKey, Reference],
    factor: Decimal,
) -> str | None:
    """Why a purchase quote is far below every price band of the card, or None."""
    banded = _bands(scores, PURCHASE_GROUPS)
    if banded:
        lowest = min(banded, key=lambda s: price_band(s)[0])
        low, high = price_band(lowest)
        compared = (
            f"the lowest of this card's price bands today ({lowest.condition} "
            f"${low:,.0f}-${high:,.0f}, 80 % of market prices)"
        )
    else:
        found = [(key[1], ref) for key, ref in references.items()]
        if not found:
            return None
        group, ref = min(found, key=lambda item: item[1].usd)
        low = ref.usd
        compared = f"its {group} reference price (${low:,.0f}: {ref.basis})"
    if quarantine_reason(quote.usd, low, factor) != "below_median_factor":
        return None
    reason = (
        f"${quote.usd:,.2f} is below 1/{factor:g} of {compared}, the factor at which a "
        "posted price is held back as implausible (the quarantine rule): likely a scam, "
        f"a wrong variant (another model or memory size) or {PER_HOUR_HINT}"
    )
    rentals = _bands(scores, RENTALS)
    if rentals:
        rental = min(rentals, key=lambda s: price_band(s)[0])
        low, high = price_band(rental)
        reason += (
            f"; the card rents at {_range(low, high, True)} "
            f"({rental.condition.removeprefix('cloud:')}): a rental quote is checked with "
            "condition cloud and usd_per_hour"
        )
    return reason


def _rental_suspicion(quote: _Quote, scores: dict[str, Score], factor: Decimal) -> str | None:
    """Why a cloud quote is far below every rental band of the card, or None."""
    banded = _bands(scores, RENTALS)
    if not banded:
        return None
    lowest = min(banded, key=lambda s: price_band(s)[0])
    low, high = price_band(lowest)
    if quote.usd * factor >= low:
        return None
    pricing = lowest.condition.removeprefix("cloud:")
    return (
        f"{_money(quote.usd, True)} is below 1/{factor:g} of the lowest of this card's rental "
        f"bands today ({pricing} {_range(low, high, True)}), the factor at "
        "which an offer that far below the others is held back: likely a scam, a wrong "
        "variant (another model, a fraction of a GPU) or a price for a shorter unit than an hour"
    )


def _alternative_condition(a: AlternativeOut) -> str:
    return f"cloud:{a.pricing}" if a.kind == "cloud" else a.kind


def _alternatives(
    score_rows: ScoreRows, task: str, total: Decimal, memory_gb: float, quote: _Quote
) -> list[AlternativeOut]:
    """The best card per kind with `memory_gb` or more, by perf per dollar (GPU alone, as
    the quote) at the low end of its interval: bought used or new and rented on demand for
    a purchase quote; rented at the quote's pricing for a cloud quote."""
    catalog = load_catalog().by_id
    kinds: dict[AlternativeKind, str] = (
        {"cloud": quote.condition} if quote.rental else dict(ALTERNATIVE_CONDITIONS)
    )
    rows = [
        s
        for s in score_rows.select_any(task, PRECISION, set(kinds.values()))
        if s.unranked_reason is None
    ]
    found = []
    for kind, condition in kinds.items():
        candidates = [
            s for s in rows if s.condition == condition and catalog[s.gpu_id].memory_gb >= memory_gb
        ]
        if not candidates:
            continue
        best = max(candidates, key=lambda s: (_interval(s)[0], s.gpu_id))
        low, high = _interval(best)
        rental = kind == "cloud"
        found.append(
            AlternativeOut(
                kind=kind,
                gpu=best.gpu_id,
                gpu_name=catalog[best.gpu_id].name,
                usd=best.price_usd,
                unit="usd_per_gpu_hour" if rental else "usd",
                pricing=RENTAL_PRICING.get(condition),
                estimated=best.price_estimated,
                band_usd=price_band(best) if _banded(best) else None,
                basis=best.price_basis or "",
                observed_at=best.price_last_observed_at or best.price_observed_at,
                perf_per_1000_usd=round(
                    perf_per_dollar(best.relative_performance, best.price_usd) * 1000, 4
                ),
                perf_per_1000_usd_interval=(round(low * 1000, 4), round(high * 1000, 4)),
                same_money_buys=round(float(total / best.price_usd), 2),
                same_money_unit="gpu_hours" if rental and not quote.rental else "gpus",
                availability="unknown",
            )
        )
    return found


def _interval(score: Score) -> tuple[float, float]:
    """A single GPU's perf per dollar, GPU alone, at (low performance, high price) and the
    reverse."""
    performance = (score.interval_low, score.interval_high)
    return per_dollar_interval(performance, price_band(score), 1, Decimal(0))
