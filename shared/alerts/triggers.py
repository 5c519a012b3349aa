"""The five alert triggers, their parameters, and how each is evaluated.

A trigger's condition is computed from committed data only, never from quarantined
observations or prices of stale sources. `evaluate` returns the triggering fact (the
observation, score or cloud offer) when the condition holds, else None.

Posted quotes count only for the alerts of the key that posted them, or of a key that sees
every quote (`viewer`, shared/pricing/quotes.py); market prices count for every alert.
Only `price_below` reads quotes: market prices (price_drop_pct), scores
(perf_per_dollar_above, cost_per_unit_below) and cloud offers never contain one.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter
from sqlmodel import Session, col, select

from shared.builds.build import plan_build
from shared.builds.throughput import task_units
from shared.builds.unit_cost import CostPerUnit, OwnTerms, owned, rented
from shared.catalog.aliases import UnknownGpu, exact_alias
from shared.catalog.specs import load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASK_NAMES
from shared.kit.settings import Settings
from shared.models import PriceObservation, Score
from shared.perfmodel.absolute import Ratio
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.units import Throughput
from shared.pricing.cloud import Currency, cheapest_offer
from shared.pricing.market import (
    CONDITION_GROUPS,
    MarketPrice,
    PricePolicy,
    market_price,
    source_name,
)
from shared.pricing.measures import ASK, BID, QUOTE
from shared.pricing.quotes import QuoteViewer, sees
from shared.scoring.value import price_band
from shared.sources.status import stale_source_names

# Observations older than this do not make a price alert true any more.
RECENT_DAYS = 7
# price_drop_pct compares today's market price with its daily values over this many
# days before the last week.
DROP_BASELINE_DAYS = 30
# price_below fires on prices one can buy at: active listings and posted quotes. Never on a
# live auction's current bid (measure BID): the auction's end will raise it.
BUYABLE_KINDS = ("scraped", "manual")
BUYABLE_MEASURES = (ASK, QUOTE)


class _Trigger(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def gpu_ids(self) -> set[str] | None:
        """GPUs whose data can change this trigger (None: any)."""
        gpu_id = getattr(self, "gpu_id", None)
        return {gpu_id} if gpu_id else None


def _known_gpu(value: str) -> str:
    """The id of a catalog id, name or known alias, exactly: the id is what is stored."""
    gpu_id = exact_alias(value)
    if gpu_id is None:
        raise ValueError(UnknownGpu("gpu_id", value).message)
    return gpu_id


KnownGpu = Annotated[str, AfterValidator(_known_gpu)]


class PriceBelow(_Trigger):
    type: Literal["price_below"]
    gpu_id: KnownGpu
    condition: Literal["new", "used", "any"] = "any"
    max_price_usd: Decimal = Field(gt=0, le=1_000_000)


class PriceDropPct(_Trigger):
    type: Literal["price_drop_pct"]
    gpu_id: KnownGpu
    condition: Literal["new", "used", "any"] = "any"
    pct: float = Field(gt=0, lt=100)


class _ScoreTrigger(_Trigger):
    """A trigger on the stored scores of one task and precision (plain strings: the check
    names the valid values)."""

    task: str
    precision: str = "fp16"

    def model_post_init(self, context: Any) -> None:
        if self.task not in TASK_NAMES:
            raise ValueError(f"task must be one of {', '.join(TASK_NAMES)}")
        if self.precision not in PRECISION_NAMES:
            raise ValueError(f"precision must be one of {', '.join(PRECISION_NAMES)}")


class PerfPerDollarAbove(_ScoreTrigger):
    type: Literal["perf_per_dollar_above"]
    task: str
    precision: str = "fp16"
    condition: Literal["new", "used", "any"] = "any"
    threshold: float = Field(gt=0, description="relative performance per 1,000 USD")
    gpu_id: KnownGpu | None = None


class CostPerUnitBelow(_ScoreTrigger):
    """Dollars per unit of work (per 1M output or training tokens, per 1k images or
    sequences: the task's unit) below a threshold, at the high end of its 80 % interval:
    a derived price no listing shows, from the stored scores (price and speed) and the
    measured levels (shared/perfmodel/units.py)."""

    type: Literal["cost_per_unit_below"]
    task: str
    precision: str = "fp16"
    condition: Literal["new", "used", "any", "cloud"] = "any"
    pricing: Literal["on-demand", "spot"] = Field(
        default="on-demand", description="with condition cloud"
    )
    max_usd: float = Field(
        gt=0, le=1_000_000, description="per 1M tokens, 1k images or 1k sequences"
    )
    gpu_id: KnownGpu | None = None


class CloudPriceBelow(_Trigger):
    type: Literal["cloud_price_below"]
    gpu_id: KnownGpu
    max_usd_per_hour: Decimal = Field(gt=0, le=1000, description="per GPU-hour")
    pricing: Literal["on-demand", "spot"] = "on-demand"


Trigger = Annotated[
    PriceBelow | PriceDropPct | PerfPerDollarAbove | CloudPriceBelow | CostPerUnitBelow,
    Field(discriminator="type"),
]
TRIGGER_TYPES = (
    "price_below",
    "price_drop_pct",
    "perf_per_dollar_above",
    "cloud_price_below",
    "cost_per_unit_below",
)
_adapter: TypeAdapter[Trigger] = TypeAdapter(Trigger)


def parse_trigger(data: str | dict[str, Any]) -> Trigger:
    if isinstance(data, str):
        return _adapter.validate_json(data)
    return _adapter.validate_python(data)


@dataclass(frozen=True, slots=True)
class Firing:
    """Why a trigger holds: a stable key (one event per distinct fact) and the data."""

    key: str
    data: dict[str, Any]


def evaluate(
    session: Session,
    trigger: Trigger,
    settings: Settings,
    now: datetime | None = None,
    viewer: QuoteViewer | None = None,
) -> Firing | None:
    """`viewer`: whose quotes may make the trigger true (the alert owner's key); None:
    market prices only."""
    now = now or datetime.now(UTC)
    if isinstance(trigger, PriceBelow):
        return _price_below(session, trigger, now, viewer)
    if isinstance(trigger, PriceDropPct):
        return _price_drop(session, trigger, settings, now)
    if isinstance(trigger, PerfPerDollarAbove):
        return _perf_per_dollar(session, trigger)
    if isinstance(trigger, CostPerUnitBelow):
        return _cost_per_unit(session, trigger, settings)
    return _cloud_below(session, trigger, settings)


def _buyable_offers(
    session: Session, gpu_id: str, condition: str, since: datetime
) -> list[PriceObservation]:
    """Prices one could buy at: active listings and posted quotes, recent, not quarantined,
    from sources that still answer. Completed sales, aggregates and auction bids are no
    offer."""
    conditions = (
        ("new", "used", "refurbished") if condition == "any" else CONDITION_GROUPS[condition]
    )
    stale = stale_source_names(session)
    query = select(PriceObservation).where(
        PriceObservation.gpu_id == gpu_id,
        col(PriceObservation.condition).in_(conditions),
        PriceObservation.quarantined == False,  # noqa: E712
        col(PriceObservation.kind).in_(BUYABLE_KINDS),
        col(PriceObservation.measure).in_(BUYABLE_MEASURES),
        PriceObservation.observed_at >= since,
    )
    return [o for o in session.exec(query) if source_name(o.source) not in stale]


def observation_data(observation: PriceObservation) -> dict[str, Any]:
    return {
        "gpu_id": observation.gpu_id,
        "condition": observation.condition,
        "price_usd": str(observation.price_usd),
        "kind": observation.kind,
        "measure": observation.measure,
        "source": observation.source,
        "url": observation.url,
        "title": observation.title,
        "observed_at": observation.observed_at.isoformat(),
    }


def _price_below(
    session: Session, trigger: PriceBelow, now: datetime, viewer: QuoteViewer | None
) -> Firing | None:
    recent = _buyable_offers(
        session, trigger.gpu_id, trigger.condition, now - timedelta(days=RECENT_DAYS)
    )
    # Another key's quote is not this alert's to see (nor an operator quote, unless the
    # owner sees every quote).
    hits = [o for o in recent if o.price_usd < trigger.max_price_usd and sees(viewer, o)]
    if not hits:
        return None
    best = min(hits, key=lambda o: (o.price_usd, o.id or 0))
    return Firing(f"observation:{best.id}", {"observation": observation_data(best)})


def _price_drop(
    session: Session, trigger: PriceDropPct, settings: Settings, now: datetime
) -> Firing | None:
    # New and used prices are different markets: a used card at the usual used price is
    # no drop from the new price, so "any" means a drop in either market.
    groups = ("new", "used") if trigger.condition == "any" else (trigger.condition,)
    observations = session.exec(
        select(PriceObservation).where(
            PriceObservation.gpu_id == trigger.gpu_id,
            PriceObservation.quarantined == False,  # noqa: E712
            # A bid is never part of a market price (market_price leaves it out): not read.
            col(PriceObservation.measure) != BID,
            col(PriceObservation.observed_at) >= drop_history_since(now, settings),
        )
    ).all()
    stale = stale_source_names(session)
    firings = [
        f for g in groups if (f := _market_drop(observations, trigger, g, now, stale, settings))
    ]
    return max(firings, key=lambda f: f.data["drop_pct"], default=None)


def drop_history_since(now: datetime, settings: Settings) -> datetime:
    """The oldest price a drop can depend on: a year of scraping is not read per alert.

    Every market price the drop compares is as of a day in the last RECENT_DAYS +
    DROP_BASELINE_DAYS; one made of rows older than the stale age before that day is
    stale, so it is never compared and never preferred over a fresh one (nor over a
    newer stale one); its window reaches `market_window_days` further back.
    """
    days = RECENT_DAYS + DROP_BASELINE_DAYS + settings.price_stale_days
    return now - timedelta(days=days + settings.market_window_days + 1)


def _market_as_of(
    observations: Sequence[PriceObservation],
    condition: str,
    at: datetime,
    stale: frozenset[str],
    settings: Settings,
) -> MarketPrice | None:
    policy = PricePolicy.from_settings(settings, at, stale_sources=stale)
    return market_price([o for o in observations if o.observed_at <= at], condition, policy)


def _market_drop(
    observations: Sequence[PriceObservation],
    trigger: PriceDropPct,
    condition: str,
    now: datetime,
    stale: frozenset[str],
    settings: Settings,
) -> Firing | None:
    """The market price today against the same market's price over the 30 days before
    the last week: a drop of the market, not of one listing."""
    current = _market_as_of(observations, condition, now, stale, settings)
    if current is None or current.observed_at < now - timedelta(days=RECENT_DAYS):
        return None
    history = [
        past.usd
        for days in range(RECENT_DAYS, RECENT_DAYS + DROP_BASELINE_DAYS)
        if (
            past := _market_as_of(
                observations, condition, now - timedelta(days=days), stale, settings
            )
        )
        and past.measure == current.measure
        and not past.stale
    ]
    if not history:
        return None
    median = Decimal(statistics.median(history))
    if median <= 0:
        return None
    drop = float((median - current.usd) / median * 100)
    if drop < trigger.pct:
        return None
    data: dict[str, Any] = {
        "market": {
            "usd": str(current.usd),
            "condition": condition,
            "measure": current.measure,
            "n": current.n,
            "source": current.source,
            "method": current.method,
            "observed_at": current.observed_at.isoformat(),
        },
        "median_usd": str(median.quantize(Decimal("0.01"))),
        "baseline_days": len(history),
        "drop_pct": round(drop, 2),
    }
    key = f"market:{trigger.gpu_id}:{condition}:{current.observed_at.isoformat()}:{current.usd}"
    return Firing(key, data)


def _perf_per_dollar(session: Session, trigger: PerfPerDollarAbove) -> Firing | None:
    query = select(Score).where(
        Score.task == trigger.task,
        Score.precision == trigger.precision,
        Score.condition == trigger.condition,
    )
    if trigger.gpu_id:
        query = query.where(Score.gpu_id == trigger.gpu_id)
    scores = [s for s in session.exec(query) if s.perf_per_dollar * 1000 > trigger.threshold]
    if not scores:
        return None
    best = max(scores, key=lambda s: (s.perf_per_dollar, s.gpu_id))
    data = {
        "gpu_id": best.gpu_id,
        "perf_per_1000_usd": round(best.perf_per_dollar * 1000, 4),
        "relative_performance": best.relative_performance,
        "model_version": best.model_version,
        "price": score_price(best),
    }
    key = f"score:{best.gpu_id}:{best.price_usd}:{best.price_observed_at.isoformat()}"
    return Firing(key, data)


def score_price(score: Score) -> dict[str, str]:
    """The price a stored score rests on, as an event carries it."""
    return {
        "usd": str(score.price_usd),
        "condition": score.price_condition,
        "kind": score.price_kind,
        "source": score.price_source,
        "observed_at": score.price_observed_at.isoformat(),
    }


def _cost_per_unit(
    session: Session, trigger: CostPerUnitBelow, settings: Settings
) -> Firing | None:
    """The stored scores' cards whose dollars per unit, at their interval's high end, are
    below the threshold; the cheapest fires. One GPU: bought with the system around it
    (the TCO defaults), or rented by the hour."""
    condition = f"cloud:{trigger.pricing}" if trigger.condition == "cloud" else trigger.condition
    query = select(Score).where(
        Score.task == trigger.task,
        Score.precision == trigger.precision,
        Score.condition == condition,
        col(Score.unranked_reason).is_(None),
    )
    if trigger.gpu_id:
        query = query.where(Score.gpu_id == trigger.gpu_id)
    found: list[tuple[float, str, Score, Throughput, CostPerUnit]] = []
    for score in session.exec(query):
        priced = score_cost(score, trigger.task, trigger.precision, settings)
        if priced is not None and priced[1].interval[1] < trigger.max_usd:
            found.append((priced[1].interval[1], score.gpu_id, score, *priced))
    if not found:
        return None
    _, _, best, units, cost = min(found, key=lambda f: (f[0], f[1]))
    data = {
        "gpu_id": best.gpu_id,
        "cost_per_unit": cost.as_dict(),
        "throughput": units.as_dict(),
        "model_version": best.model_version,
        "price": score_price(best),
    }
    key = f"cost:{best.gpu_id}:{best.price_usd}:{best.price_observed_at.isoformat()}"
    return Firing(key, data)


def score_cost(
    score: Score, task: str, precision: str, settings: Settings
) -> tuple[Throughput, CostPerUnit] | None:
    """One GPU of a stored score in the task's unit and its dollars per unit."""
    spec = load_catalog().get(score.gpu_id)
    if spec is None:
        return None
    ratio = Ratio(score.relative_performance, (score.interval_low, score.interval_high))
    units = task_units(ClassModel(score.model_version), spec, task, precision, ratio, [1])
    band = price_band(score)
    if score.condition.startswith("cloud:"):
        return units, rented(units, score.price_usd, band, spot=score.condition == "cloud:spot")
    build = plan_build([spec], 1, settings)
    system = build.system_usd
    total = (score.price_usd + system, (band[0] + system, band[1] + system))
    return units, owned(units, total[0], total[1], build.busy_watts, OwnTerms())


def _cloud_below(session: Session, trigger: CloudPriceBelow, settings: Settings) -> Firing | None:
    """The offer one can rent at today (each provider's newest list, whole GPUs, one far
    below the others held back), the same offer /tco and the ranking use: an old,
    since-raised price or a stray $0.50/h listing never makes this true."""
    currency = Currency.from_settings(settings, datetime.now(UTC))
    offer = cheapest_offer(
        session, trigger.gpu_id, trigger.pricing, currency, settings.cloud_quarantine_factor
    )
    if offer is None or offer.usd_per_gpu_hour >= trigger.max_usd_per_hour:
        return None
    data = {
        "gpu_id": offer.gpu_id,
        "provider": offer.provider,
        "instance_type": offer.instance_type,
        "region": offer.region,
        "pricing": trigger.pricing,
        "usd_per_gpu_hour": str(offer.usd_per_gpu_hour.quantize(Decimal("0.0001"))),
        "measure": offer.measure,
        "source": offer.source,
        "observed_at": offer.observed_at.isoformat(),
    }
    key = f"cloud:{offer.provider}:{offer.instance_type}:{offer.region}:{offer.observed_at}"
    return Firing(f"{key}:{trigger.pricing}", data)
