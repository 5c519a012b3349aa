"""Recompute the Score rows the API reads: GPU x task x precision x price condition.

A recompute replaces the rows of the GPUs it covers and bumps `score_state` in the
same transaction, so a reader sees either the old or the new ranking, never a mix.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Integer, cast, delete, func, insert
from sqlmodel import Session, col, select

from shared.builds.build import perf_per_dollar, plan_build
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import CLOUD_CONDITIONS, PRECISION_NAMES, SCORE_CONDITIONS, TASKS
from shared.kit.settings import Settings
from shared.models import CloudOffer, PriceObservation, Score, ScoreState
from shared.perfmodel.base import PerformanceModel, Prediction
from shared.pricing.cloud import Currency
from shared.pricing.market import MarketPrice, Observation, PricePolicy, cheapest, market_price
from shared.pricing.measures import QUOTE_KINDS
from shared.pricing.today import CardPrice, Priced, TodayPrice, bought_today, rented_today
from shared.scoring.as_of import AsOf
from shared.sources.status import last_successes, stale_source_names


@dataclass(frozen=True, slots=True)
class RecomputeResult:
    gpu_ids: tuple[str, ...]
    rows: int
    revision: int
    model_version: str


def recompute_scores(
    session: Session,
    gpu_ids: Iterable[str] | None = None,
    *,
    model: PerformanceModel,
    settings: Settings,
    midway: Callable[[], None] | None = None,
) -> RecomputeResult:
    """Replace the Score rows of `gpu_ids` (all GPUs when None); the caller commits.

    `midway` runs between the delete and the insert (fault tests pause there).
    """
    catalog = load_catalog()
    ids = tuple(catalog.ids if gpu_ids is None else sorted(set(gpu_ids)))
    unknown = [i for i in ids if i not in catalog.by_id]
    if unknown:
        raise ValueError(f"unknown gpu ids: {unknown}")
    current = session.get(ScoreState, 1)
    if current is not None and current.model_version != model.version:
        # Rows from another model version must not mix with these: redo every GPU.
        ids = tuple(catalog.ids)
    # The expensive part runs before the lock, so recomputes of different GPUs overlap;
    # if prices of these GPUs changed meanwhile, the rows are redone under the lock.
    seen = _watermark(session, ids)
    rows = score_rows(session, ids, model, settings)
    state = _lock_state(session, model.version)
    if _watermark(session, ids) != seen:
        rows = score_rows(session, ids, model, settings)
    now = datetime.now(UTC)
    session.execute(delete(Score).where(Score.gpu_id.in_(ids)))  # type: ignore[attr-defined]
    if midway is not None:
        midway()
    if rows:
        session.execute(insert(Score), rows)
    state.revision += 1
    state.model_version = model.version
    state.computed_at = now
    # The market's newest price: a posted quote is not the market, and one quote must not
    # make a ranking of stale prices look fresh.
    state.prices_as_of = session.exec(
        select(func.max(PriceObservation.observed_at)).where(
            PriceObservation.quarantined == False,  # noqa: E712
            col(PriceObservation.kind).not_in(sorted(QUOTE_KINDS)),
        )
    ).one()
    session.add(state)
    session.flush()
    return RecomputeResult(ids, len(rows), state.revision, model.version)


@dataclass(frozen=True, slots=True)
class RowKeys:
    """Which tasks and precisions to compute (None: all): an answer as of a date computes
    only the rows it reads."""

    tasks: Collection[str] | None = None
    precisions: Collection[str] | None = None


ALL_ROWS = RowKeys()


def score_rows(
    session: Session,
    ids: Sequence[str],
    model: PerformanceModel,
    settings: Settings,
    as_of: AsOf | None = None,
    keys: RowKeys = ALL_ROWS,
) -> list[dict[str, Any]]:
    """The Score rows of these GPUs from their prices: today's (what the recompute
    stores), or as of a past date from the prices observed by then (computed in memory
    for an answer, never stored)."""
    catalog = load_catalog()
    if as_of is None:
        now = datetime.now(UTC)
        policy = SourceHealth.read(session).policy(settings, now)
        currency = Currency.from_settings(settings, now)
    else:
        now, policy, currency = as_of.now, as_of.policy(settings), as_of.currency(settings)
    bought = bought_today(session, ids, policy)
    rented = rented_today(session, ids, currency, settings.cloud_quarantine_factor)
    rows: list[dict[str, Any]] = []
    for gpu_id in ids:
        rentals = {c: rented[gpu_id][pricing] for c, pricing in CLOUD_CONDITIONS.items()}
        gpu = catalog.by_id[gpu_id]
        rows.extend(_gpu_rows(gpu, bought[gpu_id], rentals, model, settings, now, keys))
    return rows


def scores_as_of(
    session: Session,
    as_of: AsOf,
    model: PerformanceModel,
    settings: Settings,
    ids: Sequence[str] | None = None,
    keys: RowKeys = ALL_ROWS,
) -> list[Score]:
    """The Score rows of these GPUs (all when None) as of a past date, in memory: the
    recompute's computation over the prices observed by then, not added to the session."""
    gpu_ids = load_catalog().ids if ids is None else sorted(set(ids))
    rows = score_rows(session, gpu_ids, model, settings, as_of, keys)
    return [Score(**_as_stored(row)) for row in rows]


def _as_stored(row: dict[str, Any]) -> dict[str, Any]:
    """A row's decimals at their columns' scale, as a stored row reads back: an answer
    from rows in memory shows the same digits as one from stored rows."""
    scaled = dict(row)
    for column in Score.__table__.columns:  # type: ignore[attr-defined]
        value = scaled.get(column.name)
        scale = getattr(column.type, "scale", None)
        if isinstance(value, Decimal) and isinstance(scale, int):
            scaled[column.name] = value.quantize(Decimal(1).scaleb(-scale))
    return scaled


def _watermark(session: Session, ids: Sequence[str]) -> tuple[Any, ...]:
    """Changes whenever a price of these GPUs is added or quarantined."""
    quarantined = func.sum(cast(col(PriceObservation.quarantined), Integer))
    query = select(func.max(PriceObservation.id), func.count(), quarantined).where(
        col(PriceObservation.gpu_id).in_(ids)
    )
    offers = select(func.max(CloudOffer.id)).where(col(CloudOffer.gpu_id).in_(ids))
    return (*session.exec(query).one(), session.exec(offers).one())


def _lock_state(session: Session, version: str) -> ScoreState:
    # FOR UPDATE serializes concurrent recomputes on PostgreSQL (SQLite locks the file).
    state = session.exec(select(ScoreState).where(ScoreState.id == 1).with_for_update()).first()
    if state is None:
        state = ScoreState(id=1, revision=0, model_version=version, computed_at=datetime.now(UTC))
        session.add(state)
        session.flush()
    return state


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """What the market price needs to know about the scrape sources."""

    stale: frozenset[str] = frozenset()
    last_runs: Mapping[str, datetime] | None = None

    @classmethod
    def read(cls, session: Session) -> SourceHealth:
        return cls(stale_source_names(session), last_successes(session))

    def policy(self, settings: Settings, now: datetime) -> PricePolicy:
        return PricePolicy.from_settings(
            settings, now, stale_sources=self.stale, last_runs=self.last_runs
        )


def gpu_prices(
    observations: Sequence[Observation], policy: PricePolicy
) -> dict[str, MarketPrice | None]:
    """The market price per condition ("new", "used", and "any": see `cheapest`)."""
    prices = {
        condition: market_price(observations, condition, policy) for condition in ("new", "used")
    }
    return {**prices, "any": cheapest(prices.values())}


def _gpu_rows(
    gpu: GpuSpec,
    prices: Mapping[str, Priced],
    rentals: Mapping[str, Priced | None],
    model: PerformanceModel,
    settings: Settings,
    now: datetime,
    keys: RowKeys,
) -> list[dict[str, Any]]:
    if not prices and not any(rentals.values()):
        return []
    # One GPU's build on the default layout: the same system share /recommend shows.
    base = plan_build([gpu], 1, settings).system_usd
    rows = []
    for task in TASKS.values():
        if keys.tasks is not None and task.name not in keys.tasks:
            continue
        for precision in PRECISION_NAMES:
            if keys.precisions is not None and precision not in keys.precisions:
                continue
            # Each task through its own workload class (llm-inference by the decode model).
            prediction = model.predict(gpu, task.name, precision)
            if prediction is None:
                continue
            for condition in SCORE_CONDITIONS:
                price = prices.get(condition)
                if price is not None:
                    rows.append(
                        _row(
                            task.name,
                            precision,
                            condition,
                            prediction,
                            _bought(price, base),
                            now,
                        )
                    )
            for condition, rental in rentals.items():
                if rental is not None:
                    rows.append(
                        _row(task.name, precision, condition, prediction, _rented(rental), now)
                    )
    return rows


@dataclass(frozen=True, slots=True)
class _Priced:
    """The price columns of a Score row: a purchase with its system, or a rental."""

    usd: Decimal
    system_usd: Decimal
    condition: str
    kind: str
    source: str
    observed_at: datetime
    n: int
    measure: str
    today: CardPrice
    note: str | None


def _bought(priced: Priced, system_usd: Decimal) -> _Priced:
    return _priced_columns(priced, system_usd, priced.price.condition)


def _rented(priced: Priced) -> _Priced:
    # The hourly price includes the machine around the GPU.
    return _priced_columns(priced, Decimal(0), "cloud")


def _priced_columns(priced: Priced, system_usd: Decimal, condition: str) -> _Priced:
    """Today's price, or for an unranked card the last price it was seen at."""
    today = priced.price
    return _Priced(
        today.usd if isinstance(today, TodayPrice) else today.last_usd,
        system_usd,
        condition,
        today.kind,
        today.source,
        today.last_observed_at,
        today.n if isinstance(today, TodayPrice) else 0,
        today.measure,
        today,
        priced.note,
    )


def _row(
    task: str,
    precision: str,
    condition: str,
    prediction: Prediction,
    price: _Priced,
    now: datetime,
) -> dict[str, Any]:
    total = price.usd + price.system_usd
    today = price.today
    priced = isinstance(today, TodayPrice)
    return {
        "gpu_id": prediction.gpu_id,
        "task": task,
        # The requested precision: an LLM prediction's own is its weight format.
        "precision": precision,
        "condition": condition,
        "relative_performance": prediction.relative_throughput,
        "interval_low": prediction.interval[0],
        "interval_high": prediction.interval[1],
        "basis": prediction.basis,
        "price_usd": price.usd,
        "price_condition": price.condition,
        "price_kind": price.kind,
        "price_source": price.source[:256],
        "price_observed_at": price.observed_at,
        "price_n": price.n,
        "price_measure": price.measure,
        **_today_columns(today, price.note),
        "system_cost_usd": price.system_usd,
        "perf_per_dollar": (
            perf_per_dollar(prediction.relative_throughput, total) if priced else 0.0
        ),
        "model_version": prediction.model_version,
        "explanation": prediction.explanation,
        "computed_at": now,
    }


def _today_columns(today: CardPrice, note: str | None) -> dict[str, Any]:
    """A Score row's today's-price columns: the band and basis, or why there is none."""
    common = {
        "price_last_usd": today.last_usd,
        "price_last_observed_at": today.last_observed_at,
        "price_note": note[:512] if note else None,
    }
    if isinstance(today, TodayPrice):
        return {
            **common,
            "price_band_low": today.band_low,
            "price_band_high": today.band_high,
            "price_estimated": today.estimated,
            "price_basis": today.basis[:512],
            "unranked_reason": None,
        }
    return {
        **common,
        "price_band_low": None,
        "price_band_high": None,
        "price_estimated": False,
        "price_basis": None,
        "unranked_reason": today.reason[:512],
    }
