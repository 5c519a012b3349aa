"""Ranking GPUs from the precomputed Score rows.

Score rows hold one GPU's speed and price; the build for `count` GPUs (layout,
system cost, speed-up: shared/builds, as quotes, TCO and /model/predict use it) is
applied here because it is cheap and would multiply the stored rows by every count.
Rentals (condition=cloud) rank the same way on the hourly price per GPU, with no system
cost: performance per dollar-hour.
Posted quotes are shown beside each result, never ranked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session

from services.api.builds.schemas import LayoutOut
from services.api.prices.schemas import QuoteOut
from services.api.prices.service import quote_out
from services.api.recommend import empty
from services.api.recommend.cache import Ranked, ResponseCache, ScoreCache
from services.api.recommend.llm import fits_memory
from services.api.recommend.schemas import (
    SORT_DESCRIPTIONS,
    GpuRef,
    MarketAgesOut,
    PerformanceOut,
    PriceOut,
    RecommendQuery,
    RecommendResponse,
    RecommendResult,
    UnrankedOut,
)
from shared.builds.build import Build, cloud_layout, perf_per_dollar, plan_build
from shared.builds.layout import Layout
from shared.builds.speed import build_speedup
from shared.catalog.specs import GpuSpec
from shared.kit.money import CENT
from shared.kit.settings import Settings
from shared.models import Score, ScoreState
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.workloads import LlmWorkload
from shared.pricing.market import age_days
from shared.pricing.measures import describe
from shared.pricing.quotes import best_for, best_quotes, quotes_shown_to, recent_quotes
from shared.scoring.ages import ages_of
from shared.scoring.caveats import build_caveats
from shared.scoring.value import per_dollar_interval, price_band


def recommend_json(
    session: Session,
    cache: ScoreCache,
    responses: ResponseCache,
    query: RecommendQuery,
    settings: Settings,
    model: ClassModel,
) -> bytes:
    state = session.get(ScoreState, 1)
    key = (state.revision if state else None, query.model_dump_json())
    body = responses.get(key)
    if body is None:
        body = recommend(session, cache, query, settings, model, state).model_dump_json().encode()
        responses.put(key, body)
    return body


def recommend(
    session: Session,
    cache: ScoreCache,
    query: RecommendQuery,
    settings: Settings,
    model: ClassModel,
    state: ScoreState | None = None,
) -> RecommendResponse:
    state = state or session.get(ScoreState, 1)
    rows = cache.rows(session, state, (query.task, query.precision, score_condition(query)))
    now = datetime.now(UTC)
    # A rental price that aged past the stale age since the last recompute is history.
    history_before = now - timedelta(days=settings.price_stale_days)
    found = empty.Exclusions()
    eligible = []
    unranked = []
    for row in rows:
        if row.score.unranked_reason is not None:
            if not _failures(row, query, history_before, priced=False):
                unranked.append(row)
            continue
        failures = _failures(row, query, history_before)
        found.add(row.spec.id, failures, row.spec.memory_gb, float(row.score.price_usd))
        if not failures:
            eligible.append(row)
    # One model call per GPU and request; GPUs that cannot run the query drop out.
    speeds = {r.spec.id: _speed(r, query, settings, model) for r in eligible}
    candidates = [(r, speed) for r in eligible if (speed := speeds[r.spec.id]) is not None]
    if unrunnable := len(eligible) - len(candidates):
        found.removed[empty.PRECISION] += unrunnable
    # Rank on the cheap numbers first; only the returned rows get caveats and text.
    ranked = sorted(candidates, key=lambda c: _sort_key(c[0], c[1], query, settings))[: query.limit]
    quotes = _best_quotes(session, [r for r, _ in ranked], query, settings, now)
    results = [
        _result(r, sp, query, settings, now, quotes.get(r.spec.id), model.reference_gpu)
        for r, sp in ranked
    ]
    for rank, result in enumerate(results, start=1):
        result.rank = rank
    market = market_ages([r for r, _ in candidates], now, settings.price_stale_days)
    return RecommendResponse(
        query=query,
        prices_as_of=market.newest_observed_at if market else None,
        market=market,
        model_version=state.model_version if state else "none",
        computed_at=state.computed_at if state else None,
        sorted_by=SORT_DESCRIPTIONS[query.sort],
        results=results,
        unranked=[_unranked(r) for r in sorted(unranked, key=lambda r: r.spec.id)],
        empty=None if results else empty.explain_empty(query, found),
    )


def market_ages(rows: list[Ranked], now: datetime, stale_days: int) -> MarketAgesOut | None:
    """How old the ranked prices are: the observations they rest on, never a quote."""
    if not rows:
        return None
    return MarketAgesOut(**asdict(ages_of([r.score for r in rows], now, stale_days)))


def _unranked(row: Ranked) -> UnrankedOut:
    score = row.score
    return UnrankedOut(
        gpu=_gpu_ref(row.spec),
        condition=score.price_condition,
        last_usd=score.price_last_usd if score.price_last_usd is not None else score.price_usd,
        last_observed_at=score.price_last_observed_at or score.price_observed_at,
        measure=score.price_measure,
        source=score.price_source,
        reason=score.unranked_reason or "",
    )


def _gpu_ref(spec: GpuSpec) -> GpuRef:
    return GpuRef(
        id=spec.id,
        name=spec.name,
        memory_gb=spec.memory_gb,
        vendor=spec.vendor,
        segment=spec.segment,
    )


def score_condition(query: RecommendQuery) -> str:
    """The Score rows' condition: rentals are ranked per pricing."""
    return f"cloud:{query.pricing}" if query.condition == "cloud" else query.condition


def _is_rental(row: Ranked) -> bool:
    return row.score.condition.startswith("cloud:")


def request_llm(query: RecommendQuery) -> LlmWorkload | None:
    """The LLM an llm-inference query describes (params_b with mode=inference)."""
    estimate = query.memory_estimate
    if query.task != "llm-inference" or estimate is None or estimate.mode != "inference":
        return None
    return LlmWorkload(
        estimate.params_b,
        weights=estimate.weights,
        batch=estimate.batch,
        context=estimate.context,
    )


@dataclass(frozen=True, slots=True)
class Speed:
    """One GPU's build for this query: single-GPU performance, the layout's speed-up, the
    model's explanation, and the machines (system cost is None for rentals)."""

    single: float
    speedup: float
    basis: str
    layout: Layout
    build: Build | None


def _speed(
    row: Ranked, query: RecommendQuery, settings: Settings, model: ClassModel
) -> Speed | None:
    """None if the GPU cannot run the query's weight format. Without an LLM the stored
    score (the task's default workload) is used. Bought builds are laid out by the one
    build model; rented GPUs come in cloud servers of 8."""
    if _is_rental(row):
        build = None
        layout = cloud_layout(row.spec, query.count)
    else:
        build = plan_build([row.spec], query.count, settings, query.deployment, query.network)
        layout = build.layout
    llm = request_llm(query)
    found = build_speedup(
        model, [row.spec], layout, query.task, query.precision, query.network, llm
    )
    if found is None:
        return None
    if llm is None:
        single, basis = row.score.relative_performance, row.score.explanation
    else:
        single, basis = found.single.relative_throughput, found.single.explanation
    return Speed(single, found.speedup, basis, layout, build)


def _build(row: Ranked, speed: Speed, query: RecommendQuery) -> tuple[float, Decimal, Decimal]:
    """(build performance, system cost, total cost) of `count` of this GPU; for rentals the
    total is dollars per hour of the whole build."""
    gpus = row.score.price_usd * query.count
    if speed.build is None:
        return speed.single * speed.speedup, Decimal(0), gpus
    return speed.single * speed.speedup, speed.build.system_usd, speed.build.total_usd(gpus)


def _sort_key(
    row: Ranked, speed: Speed, query: RecommendQuery, settings: Settings
) -> tuple[float, str]:
    performance, _, total = _build(row, speed, query)
    if query.sort == "performance":
        value = performance
    elif query.sort == "perf_per_dollar_expected":
        value = perf_per_dollar(performance, total)
    else:
        value = _per_dollar_interval(row, speed, query)[0]
    return -value, row.spec.id


def _per_dollar_interval(row: Ranked, speed: Speed, query: RecommendQuery) -> tuple[float, float]:
    """Perf per dollar at (low performance, high price) and (high performance, low price):
    the model's 80 % interval of the build and the price's 80 % band."""
    _, system, _ = _build(row, speed, query)
    return per_dollar_interval(
        _performance_interval(row, speed), price_band(row.score), query.count, system
    )


def _performance_interval(row: Ranked, speed: Speed) -> tuple[float, float]:
    """The stored interval, moved to this query's speed (same relative width)."""
    score = row.score
    scale = speed.single / score.relative_performance * speed.speedup
    return score.interval_low * scale, score.interval_high * scale


def _failures(
    row: Ranked, query: RecommendQuery, history_before: datetime, *, priced: bool = True
) -> list[str]:
    """The filters that remove `row` from the ranking (none: it stays), in order; a card
    with no price today (`priced` False) meets only those that need no price."""
    failed = []
    if not fits_memory(row.spec.memory_gb, query.memory_gb):
        failed.append(empty.MEMORY)
    if (
        priced
        and _is_rental(row)
        and not row.score.price_estimated
        and row.score.price_observed_at < history_before
    ):
        failed.append(empty.STALE_RENTAL)
    if query.datacenter and row.spec.geforce_eula:
        failed.append(empty.LICENCE)
    if priced and query.budget_usd is not None and float(row.score.price_usd) > query.budget_usd:
        failed.append(empty.BUDGET)
    return failed


def _best_quotes(
    session: Session,
    ranked: list[Ranked],
    query: RecommendQuery,
    settings: Settings,
    now: datetime,
) -> dict[str, QuoteOut]:
    # Only quotes the caller may see (its key's; every key's with all_quotes), which the
    # router records on the session; anonymous callers see none (shared/pricing/quotes.py).
    viewer = quotes_shown_to(session)
    if query.condition == "cloud" or not ranked or viewer is None:
        return {}
    ids = [r.spec.id for r in ranked]
    best = best_quotes(recent_quotes(session, ids, now, settings.price_stale_days, viewer))
    found: dict[str, QuoteOut] = {}
    for gpu_id in ids:
        quote = best_for(best, gpu_id, query.condition)
        if quote is not None:
            found[gpu_id] = quote_out(quote, now)
    return found


def _price_out(row: Ranked, query: RecommendQuery, settings: Settings, now: datetime) -> PriceOut:
    score = row.score
    age = age_days(score.price_observed_at, now)
    return PriceOut(
        usd=score.price_usd if _is_rental(row) else score.price_usd.quantize(CENT),
        condition=score.price_condition,
        kind=score.price_kind,
        source=score.price_source,
        observed_at=score.price_observed_at,
        n=score.price_n,
        measure=score.price_measure,
        measure_description=describe(score.price_measure),
        unit="usd_per_gpu_hour" if _is_rental(row) else "usd",
        pricing=query.pricing if _is_rental(row) else None,
        age_days=age,
        stale=age > settings.price_stale_days,
        estimated=score.price_estimated,
        band_usd=(
            (score.price_band_low, score.price_band_high)
            if score.price_band_low is not None and score.price_band_high is not None
            else None
        ),
        basis=score.price_basis,
        last_usd=score.price_last_usd,
    )


def _result(
    row: Ranked,
    speed: Speed,
    query: RecommendQuery,
    settings: Settings,
    now: datetime,
    quote: QuoteOut | None,
    reference_gpu: str,
) -> RecommendResult:
    spec, score = row.spec, row.score
    performance, system, total = _build(row, speed, query)
    low_perf, high_perf = _performance_interval(row, speed)
    per_dollar = perf_per_dollar(performance, total)
    low_value, high_value = _per_dollar_interval(row, speed, query)
    price = _price_out(row, query, settings, now)
    return RecommendResult(
        rank=0,
        gpu=_gpu_ref(spec),
        relative_performance=round(performance, 4),
        performance=PerformanceOut(
            interval=(round(low_perf, 4), round(high_perf, 4)),
            basis=score.basis,
            reference_gpu=reference_gpu,
            multi_gpu_speedup=round(speed.speedup, 3),
        ),
        price=price,
        count=query.count,
        system_cost_usd=system,
        system_cost_basis=(
            speed.build.system_basis()
            if speed.build is not None
            else f"{speed.layout.nodes}x cloud server: included in the hourly price"
        ),
        layout=LayoutOut.of(speed.layout),
        total_cost_usd=total.quantize(Decimal("0.0001") if _is_rental(row) else CENT),
        perf_per_dollar=per_dollar,
        perf_per_1000_usd=round(per_dollar * 1000, 4),
        perf_per_1000_usd_interval=(round(low_value * 1000, 4), round(high_value * 1000, 4)),
        caveats=build_caveats(
            spec,
            query.count,
            score.price_observed_at,
            now,
            stale_days=settings.price_stale_days,
            rental=_is_rental(row),
            estimated=score.price_estimated,
        )
        + ([score.price_note] if score.price_note else [])
        + _memory_caveat(spec.memory_gb, query.memory_gb),
        explanation=_explain(spec, score, query, speed, total, price),
        best_quote=quote,
    )


def _memory_caveat(card_gb: float, need_gb: float) -> list[str]:
    if need_gb <= card_gb:
        return []
    return [
        f"at the memory limit: needs {need_gb:.2f} GB of {card_gb:g} GB per GPU "
        "(within rounding); a shorter context or smaller batch leaves headroom"
    ]


def _explain(
    spec: GpuSpec,
    score: Score,
    query: RecommendQuery,
    speed: Speed,
    total: Decimal,
    price: PriceOut,
) -> str:
    build = f"{query.count}x " if query.count > 1 else ""
    scaling = f", x{speed.speedup:.2f} for {query.count} GPUs" if query.count > 1 else ""
    said = (
        f"{build}{spec.name}: {speed.single:.2f}x the reference on "
        f"{query.task} at {query.precision}{scaling} ({speed.basis}); "
    )
    dated = f"{price.measure_description}, {score.price_observed_at.date().isoformat()}"
    if price.unit == "usd_per_gpu_hour":
        return (
            f"{said}${score.price_usd:,.3f} per GPU-hour {query.pricing} ({dated}) "
            f"= ${total:,.2f}/h for the build"
        )
    return (
        f"{said}${score.price_usd:,.0f} {score.price_condition} ({dated}) + system = ${total:,.0f}"
    )
