"""Ranking GPUs from the precomputed Score rows.

Score rows hold one GPU's speed and price; the build for `count` GPUs (layout,
system cost, speed-up: shared/builds, as quotes, TCO and /model/predict use it) is
applied here because it is cheap and would multiply the stored rows by every count.
Rentals (condition=cloud) rank the same way on the hourly price per GPU, with no system
cost: performance per dollar-hour. The default order is the low end of perf per
dollar's 80 % interval, so a card known only by extrapolation or an estimated price tops
a well-measured, freshly priced one only if it wins even at its worst.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session

from shared.builds import assumptions as d
from shared.builds.build import Build, cloud_layout, perf_per_dollar, plan_build
from shared.builds.layout import Layout
from shared.builds.serving_target import Targets, serve_to_target
from shared.builds.speed import build_speedup
from shared.builds.unit_cost import CostPerUnit, OwnTerms, owned, rented
from shared.catalog.specs import GpuSpec
from shared.kit.settings import Settings
from shared.models import Score, ScoreState
from shared.perfmodel.absolute import DEFAULT_PROMPT_TOKENS, Ratio, throughput
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.data_parallel import widened
from shared.perfmodel.inference import serving_batch
from shared.perfmodel.llm_training import LlmTraining, canonical_mode
from shared.perfmodel.units import Throughput
from shared.perfmodel.workloads import (
    LLM_CLASSES,
    LLM_SERVING,
    LlmWorkload,
    default_llm,
    implied_phase,
    task_class,
)
from shared.pricing.measures import describe
from shared.recommend import empty
from shared.recommend.memory import estimate_llm, fits_memory
from shared.recommend.schemas import RecommendQuery
from shared.recommend.scores import Ranked, RankedRows
from shared.scoring.ages import PriceAges, ages_of
from shared.scoring.caveats import build_caveats
from shared.scoring.value import per_dollar_interval, price_band


@dataclass(frozen=True, slots=True)
class Speed:
    """One GPU's build for this query: single-GPU performance, the layout's speed-up, the
    model's explanation, and the machines (system cost is None for rentals)."""

    single: float
    speedup: float
    basis: str
    layout: Layout
    build: Build | None
    # An LLM query's batch as served: the requested one or what the memory holds.
    effective_batch: int | None = None
    # The model's own 80 % interval of `single` where it timed this query (else the
    # stored score's, moved to this speed).
    interval: tuple[float, float] | None = None
    # Log half-width of the speed-up's own 80 % error, for the stored score's interval
    # (`interval`, the model's, already carries it).
    speedup_half_width: float = 0.0
    # The workload class that timed it and the tensor-parallel group (the buyer's units).
    workload_class: str = ""
    tensor_parallel: int = 1
    # Timed to a latency target: the throughput at the concurrency that meets it.
    units: Throughput | None = None
    # The model's own caveats on this card and workload (an architecture, chip class or
    # workload outside its calibration data: an extrapolation, said where it ranks).
    caveats: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Entry:
    """One ranked build: `count` of one GPU, its numbers, caveats and explanation."""

    row: Ranked
    speed: Speed
    performance: float
    performance_interval: tuple[float, float]
    system_usd: Decimal
    # Dollars for a bought build; dollars per hour of the whole build for a rental.
    total_usd: Decimal
    per_dollar: float
    per_dollar_interval: tuple[float, float]
    caveats: list[str]
    explanation: str
    # The build's throughput in the workload's unit and its dollars per unit of work.
    throughput: Throughput | None = None
    cost: CostPerUnit | None = None

    @property
    def rental(self) -> bool:
        return is_rental(self.row)


@dataclass(frozen=True, slots=True)
class Ranking:
    entries: list[Entry]
    # Cards that pass the filters with no price today (Score.unranked_reason), by id.
    unranked: list[Ranked]
    # The ages of the prices of every candidate (ranked or cut by the limit).
    market: PriceAges | None
    empty: empty.EmptyReason | None


def rank(
    session: Session,
    cache: RankedRows,
    query: RecommendQuery,
    settings: Settings,
    model: ClassModel,
    state: ScoreState | None,
    now: datetime | None = None,
) -> Ranking:
    now = now or datetime.now(UTC)
    rows = cache.rows(session, state, (query.task, query.precision, score_condition(query)))
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
    if _targets(query).given:
        candidates = _to_targets(candidates, query, model, found)
    # Rank on the cheap numbers first; only the returned rows get caveats and text.
    costs = Costs(model, settings)
    ranked = sorted(candidates, key=lambda c: _sort_key(c[0], c[1], query, costs))
    entries = [_entry(r, sp, query, settings, now, costs) for r, sp in ranked[: query.limit]]
    scores = [r.score for r, _ in candidates]
    return Ranking(
        entries=entries,
        unranked=sorted(unranked, key=lambda r: r.spec.id),
        market=ages_of(scores, now, settings.price_stale_days) if scores else None,
        empty=None if entries else empty.explain_empty(query, found),
    )


def score_condition(query: RecommendQuery) -> str:
    """The Score rows' condition: rentals are ranked per pricing."""
    return f"cloud:{query.pricing}" if query.condition == "cloud" else query.condition


def is_rental(row: Ranked) -> bool:
    return row.score.condition.startswith("cloud:")


def request_llm(query: RecommendQuery) -> LlmWorkload | None:
    """The LLM an llm-inference query describes (params_b with mode=inference)."""
    estimate = query.memory_estimate
    if query.task != "llm-inference" or estimate is None or estimate.mode != "inference":
        return None
    return estimate_llm(estimate)


def request_training(query: RecommendQuery) -> LlmTraining | None:
    """The LLM an llm-training query trains (params_b with a training mode)."""
    estimate = query.memory_estimate
    if query.task != "llm-training" or estimate is None or estimate.mode == "inference":
        return None
    return LlmTraining(estimate.params_b, canonical_mode(estimate.mode))


def _speed(
    row: Ranked, query: RecommendQuery, settings: Settings, model: ClassModel
) -> Speed | None:
    """None if the GPU cannot run the query's weight format. Without an LLM the stored
    score (the task's default workload) is used. Bought builds are laid out by the one
    build model; rented GPUs come in cloud servers of 8."""
    if is_rental(row):
        build = None
        layout = cloud_layout(row.spec, query.count)
    else:
        build = plan_build([row.spec], query.count, settings, query.deployment, query.network)
        layout = build.layout
    llm = request_llm(query)
    training = request_training(query)
    found = build_speedup(
        model,
        [row.spec],
        layout,
        query.task,
        query.precision,
        query.network,
        llm,
        training,
        query.phase,
    )
    if found is None:
        return None
    single = found.single
    tp = found.tensor_parallel
    phase = implied_phase(query.task, query.precision, query.phase)
    klass = task_class(query.task, llm or default_llm(query.precision), phase)
    if llm is not None:
        # The model times the batch the card's memory holds; the answer says which.
        served = serving_batch(row.spec, llm, tp=found.tensor_parallel)
        basis = single.explanation + served.note
        return Speed(
            single.relative_throughput,
            found.speedup,
            basis,
            layout,
            build,
            served.batch,
            found.interval,
            found.speedup_half_width,
            workload_class=klass,
            tensor_parallel=tp,
            caveats=single.caveats,
        )
    if training is not None or query.phase is not None:
        # Not the stored score's workload (an llm-training model's size and mode set its
        # matrix share; a phase picks the class): the model times this one.
        return Speed(
            single.relative_throughput,
            found.speedup,
            single.explanation,
            layout,
            build,
            interval=found.interval,
            speedup_half_width=found.speedup_half_width,
            workload_class=klass,
            tensor_parallel=tp,
            caveats=single.caveats,
        )
    score = row.score
    return Speed(
        score.relative_performance,
        found.speedup,
        score.explanation,
        layout,
        build,
        speedup_half_width=found.speedup_half_width,
        workload_class=klass,
        tensor_parallel=tp,
        caveats=single.caveats,
    )


def _targets(query: RecommendQuery) -> Targets:
    return Targets(query.min_tokens_per_s_per_user, query.max_ttft_ms)


def _to_targets(
    candidates: list[tuple[Ranked, Speed]],
    query: RecommendQuery,
    model: ClassModel,
    found: empty.Exclusions,
) -> list[tuple[Ranked, Speed]]:
    """Each card timed at the largest concurrency that meets the latency targets; a card
    that misses them serving one user is not ranked (counted under `target`)."""
    llm = request_llm(query) or default_llm(query.precision)
    out = []
    for row, speed in candidates:
        met = serve_to_target(
            model,
            row.spec,
            llm,
            speed.layout,
            _targets(query),
            software=query.software,
            prompt_tokens=query.prompt_tokens or DEFAULT_PROMPT_TOKENS,
        )
        if not met.meets or met.ratio is None or met.throughput is None:
            found.removed[empty.TARGET] += 1
            found.missed.update(met.failing)
            continue
        per_group = (met.concurrency or 1) // max(
            1, sum(n // speed.tensor_parallel for n in speed.layout.node_counts)
        )
        timed = replace(
            speed,
            single=met.ratio.value,
            speedup=1.0,
            basis=f"{speed.basis}; timed at the largest concurrency meeting the latency "
            f"targets: {met.concurrency}",
            effective_batch=max(1, per_group),
            interval=met.ratio.interval,
            speedup_half_width=0.0,
            workload_class=LLM_SERVING,
            units=met.throughput,
        )
        out.append((row, timed))
    return out


def _build(row: Ranked, speed: Speed, query: RecommendQuery) -> tuple[float, Decimal, Decimal]:
    """(build performance, system cost, total cost) of `count` of this GPU; for rentals the
    total is dollars per hour of the whole build."""
    gpus = row.score.price_usd * query.count
    if speed.build is None:
        return speed.single * speed.speedup, Decimal(0), gpus
    return speed.single * speed.speedup, speed.build.system_usd, speed.build.total_usd(gpus)


def _sort_key(row: Ranked, speed: Speed, query: RecommendQuery, costs: Costs) -> tuple[float, str]:
    performance, _, total = _build(row, speed, query)
    if query.sort == "cost_per_unit":
        # The interval's worst end (highest cost) first, lowest first; none last.
        cost = costs.of(row, speed, query)
        return (math.inf if cost is None else cost[1].interval[1]), row.spec.id
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
    """The model's interval where it timed the query, else the stored interval moved to
    this query's speed (same relative width)."""
    if speed.interval is not None:
        low, high = speed.interval
        return low * speed.speedup, high * speed.speedup
    score = row.score
    stored = (score.interval_low, score.interval_high)
    low, high = widened(stored, score.relative_performance, speed.speedup_half_width)
    scale = speed.single / score.relative_performance * speed.speedup
    return low * scale, high * scale


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
        and is_rental(row)
        and not row.score.price_estimated
        and row.score.price_observed_at < history_before
    ):
        failed.append(empty.STALE_RENTAL)
    if query.datacenter and row.spec.geforce_eula:
        failed.append(empty.LICENCE)
    if priced and query.budget_usd is not None and float(row.score.price_usd) > query.budget_usd:
        failed.append(empty.BUDGET)
    return failed


def _entry(
    row: Ranked,
    speed: Speed,
    query: RecommendQuery,
    settings: Settings,
    now: datetime,
    costs: Costs,
) -> Entry:
    spec, score = row.spec, row.score
    performance, system, total = _build(row, speed, query)
    priced = costs.of(row, speed, query)
    return Entry(
        row=row,
        speed=speed,
        performance=performance,
        performance_interval=_performance_interval(row, speed),
        system_usd=system,
        total_usd=total,
        per_dollar=perf_per_dollar(performance, total),
        per_dollar_interval=_per_dollar_interval(row, speed, query),
        caveats=build_caveats(
            spec,
            query.count,
            score.price_observed_at,
            now,
            stale_days=settings.price_stale_days,
            rental=is_rental(row),
            estimated=score.price_estimated,
        )
        + ([score.price_note] if score.price_note else [])
        + _memory_caveat(spec.memory_gb, query.memory_gb)
        + list(speed.caveats),
        explanation=_explain(spec, score, query, speed, total, rental=is_rental(row)),
        throughput=None if priced is None else priced[0],
        cost=None if priced is None else priced[1],
    )


class Costs:
    """Each candidate's throughput in the workload's unit and its cost per unit, computed
    once per request (the sort and the answer read the same)."""

    def __init__(self, model: ClassModel, settings: Settings) -> None:
        self.model = model
        self.settings = settings
        self._done: dict[str, tuple[Throughput, CostPerUnit] | None] = {}

    def of(
        self, row: Ranked, speed: Speed, query: RecommendQuery
    ) -> tuple[Throughput, CostPerUnit] | None:
        key = row.spec.id
        if key not in self._done:
            self._done[key] = self._compute(row, speed, query)
        return self._done[key]

    def _compute(
        self, row: Ranked, speed: Speed, query: RecommendQuery
    ) -> tuple[Throughput, CostPerUnit] | None:
        if not speed.workload_class:
            return None
        performance, _, total = _build(row, speed, query)
        value = speed.units or throughput(
            self.model,
            row.spec,
            speed.workload_class,
            Ratio(performance, _performance_interval(row, speed)),
            software=query.software,
            llm=request_llm(query) or _default_llm(query, speed),
            training=request_training(query),
            tp=speed.tensor_parallel,
            nodes=speed.layout.node_counts,
            prompt_tokens=query.prompt_tokens or DEFAULT_PROMPT_TOKENS,
        )
        band_low, band_high = price_band(row.score)
        if is_rental(row):
            cost = rented(
                value,
                total,
                (band_low * query.count, band_high * query.count),
                spot=query.pricing == "spot",
            )
            return value, cost
        assert speed.build is not None
        system = speed.build.system_usd
        band = (band_low * query.count + system, band_high * query.count + system)
        return value, owned(value, total, band, speed.build.busy_watts, own_terms(query))


def own_terms(query: RecommendQuery) -> OwnTerms:
    """How an owned build is used: the query's years and utilization, else the TCO
    defaults."""
    return OwnTerms(
        years=query.years if query.years is not None else d.YEARS,
        utilization=query.utilization if query.utilization is not None else d.UTILIZATION,
    )


def _default_llm(query: RecommendQuery, speed: Speed) -> LlmWorkload | None:
    """The LLM the stored llm-inference ranking assumes (an 8B model, one user)."""
    if speed.workload_class not in LLM_CLASSES:
        return None
    return default_llm(query.precision)


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
    *,
    rental: bool,
) -> str:
    build = f"{query.count}x " if query.count > 1 else ""
    scaling = f", x{speed.speedup:.2f} for {query.count} GPUs" if query.count > 1 else ""
    said = (
        f"{build}{spec.name}: {speed.single:.2f}x the reference on "
        f"{query.task} at {query.precision}{scaling} ({speed.basis}); "
    )
    dated = f"{describe(score.price_measure)}, {score.price_observed_at.date().isoformat()}"
    if rental:
        return (
            f"{said}${score.price_usd:,.3f} per GPU-hour {query.pricing} ({dated}) "
            f"= ${total:,.2f}/h for the build"
        )
    return (
        f"{said}${score.price_usd:,.0f} {score.price_condition} ({dated}) + system = ${total:,.0f}"
    )
