"""/recommend's answer: the ranking of shared/recommend in the response's shapes.

Posted quotes are shown beside each result (only to the key that may see them), never
ranked.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session

from services.api.as_of import as_of_fields
from services.api.builds.schemas import CostPerUnitOut, LayoutOut, ThroughputOut
from services.api.errors import InvalidParameter
from services.api.prices.schemas import QuoteOut
from services.api.prices.service import quote_out
from services.api.recommend.cache import ResponseCache
from services.api.recommend.schemas import (
    EmptyReasonOut,
    GpuRef,
    MarketAgesOut,
    PerformanceOut,
    PriceOut,
    RecommendResponse,
    RecommendResult,
    UnrankedOut,
)
from shared.alerts.keys import quote_viewer
from shared.alerts.models import ApiKey
from shared.builds.predict import InvalidInputError, checked_phase
from shared.catalog.specs import GpuSpec
from shared.catalog.tasks import TASKS
from shared.kit.money import CENT
from shared.kit.settings import Settings
from shared.models import Score, ScoreState
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.units import UnknownSoftware, software_for
from shared.perfmodel.workloads import LlmWorkload, implied_phase, task_class
from shared.pricing.availability import availability_of, supply_key
from shared.pricing.cloud import Currency
from shared.pricing.market import age_days
from shared.pricing.measures import describe
from shared.pricing.quotes import (
    best_for,
    best_quotes,
    quotes_shown_to,
    recent_quotes,
    sees_recent_quotes,
    show_quotes_to,
)
from shared.recommend.memory import default_weights, llm_memory_estimate, needed_gb
from shared.recommend.rank import Entry, rank
from shared.recommend.request import RecommendRequest
from shared.recommend.schemas import (
    SORT_DESCRIPTIONS,
    MemoryEstimateOut,
    RecommendQuery,
    default_sort,
)
from shared.recommend.scores import AsOfRows, Ranked, RankedRows, ScoreCache
from shared.scoring.as_of import AsOf, parse_as_of
from shared.scoring.schemas import availability_out
from shared.scoring.score_rows import ScoreRows


def recommend_json(
    session: Session,
    cache: ScoreCache,
    responses: ResponseCache,
    query: RecommendQuery,
    settings: Settings,
    model: ClassModel,
    as_of: AsOf | None = None,
) -> bytes:
    state = session.get(ScoreState, 1)
    text = query.model_dump_json()
    # An answer as of a date is its own (the revision still moves with any new price).
    key = (state.revision if state else None, text if as_of is None else f"{as_of.day} {text}")
    body = responses.get(key)
    if body is None:
        answer = recommend(session, cache, query, settings, model, state, as_of)
        body = answer.model_dump_json().encode()
        responses.put(key, body)
    return body


def recommend_query(params: RecommendRequest) -> RecommendQuery:
    """GET /recommend's parameters as the ranking's query: the memory the task, model or
    params_b needs, and the checks between parameters (InvalidParameter names the field).
    POST /decisions asks the same of its `query`."""
    profile = TASKS[params.task]
    try:
        checked_phase(params.task, params.phase)
    except InvalidInputError as exc:
        raise InvalidParameter("phase", str(exc), exc.valid) from exc
    _check_units(params)
    estimate: MemoryEstimateOut | None = None
    described = params.params_b is not None or params.model is not None
    if not described and (params.kv_heads is not None or params.active_params_b is not None):
        given = "kv_heads" if params.kv_heads is not None else "active_params_b"
        raise InvalidParameter(given, "only with params_b or model", ["params_b", "model"])
    if described:
        if params.memory_gb is not None:
            raise InvalidParameter(
                "memory_gb", "give memory_gb or params_b, not both", ["memory_gb", "params_b"]
            )
        estimate = llm_memory_estimate(
            params.params_b,
            params.weights or default_weights(params.precision),
            params.mode,
            params.context,
            params.batch,
            params.count,
            model=params.model,
            kv_heads=params.kv_heads,
            active_params_b=params.active_params_b,
        )
    if estimate is not None:
        needed, basis = needed_gb(estimate), f"estimated for an LLM: {estimate.formula}"
    elif params.memory_gb is not None:
        needed, basis = params.memory_gb, "requested"
    else:
        needed, basis = profile.min_memory_gb, profile.memory_basis
    query = RecommendQuery(
        task=params.task,
        memory_gb=needed,
        memory_basis=basis,
        memory_estimate=estimate,
        precision=params.precision,
        condition=params.condition,
        pricing=params.pricing,
        budget_usd=params.budget_usd,
        count=params.count,
        datacenter=params.datacenter,
        deployment=params.deployment,
        network=params.network,
        limit=params.limit,
        sort=params.sort or default_sort(params.task),
        phase=params.phase,
        software=params.software,
        prompt_tokens=params.prompt_tokens,
        min_tokens_per_s_per_user=params.min_tokens_per_s_per_user,
        max_ttft_ms=params.max_ttft_ms,
        utilization=params.utilization,
        years=params.years,
    )
    return query


def recommend_answer(
    session: Session,
    cache: ScoreCache,
    responses: ResponseCache,
    params: RecommendRequest,
    settings: Settings,
    model: ClassModel,
    key: ApiKey | None,
) -> bytes:
    """/recommend's JSON body for `params`, as the caller holding `key` gets it."""
    query = recommend_query(params)
    as_of = parse_as_of(session, params.as_of, datetime.now(UTC))
    # best_quote shows the caller's quotes only (read from the session by the ranking).
    # The shared answer cache, keyed by the query, holds answers without quotes; a caller
    # who may see recent quotes gets an answer of its own, never cached for others.
    viewer = quote_viewer(key)
    if sees_recent_quotes(session, viewer, datetime.now(UTC), settings.price_stale_days):
        show_quotes_to(session, viewer)
        responses = ResponseCache(max_entries=0)
    return recommend_json(session, cache, responses, query, settings, model, as_of)


def _check_units(params: RecommendRequest) -> None:
    """software and prompt_tokens belong to some tasks only: a 422 names the field."""
    for name in ("prompt_tokens", "min_tokens_per_s_per_user", "max_ttft_ms"):
        if getattr(params, name) is not None and params.task != "llm-inference":
            raise InvalidParameter(name, "only with task llm-inference", ["task=llm-inference"])
    if params.software is None:
        return
    llm = params.batch if params.params_b is not None or params.model is not None else 1
    phase = implied_phase(params.task, params.precision, params.phase)
    klass = task_class(params.task, LlmWorkload(8.0, batch=llm), phase)
    try:
        software_for(klass, params.software)
    except UnknownSoftware as exc:
        raise InvalidParameter(
            "software", f"{exc}: for {params.task} ({klass})", list(exc.valid)
        ) from exc


def recommend(
    session: Session,
    cache: ScoreCache,
    query: RecommendQuery,
    settings: Settings,
    model: ClassModel,
    state: ScoreState | None = None,
    as_of: AsOf | None = None,
) -> RecommendResponse:
    """The ranking from the stored Score rows, or as of a past date from rows computed in
    memory over the prices observed by then, with that day as today."""
    state = state or session.get(ScoreState, 1)
    now = datetime.now(UTC) if as_of is None else as_of.now
    rows: RankedRows = cache
    if as_of is not None:
        rows = AsOfRows(ScoreRows(session, as_of, model, settings))
    ranking = rank(session, rows, query, settings, model, state, now)
    quotes = _best_quotes(session, [e.row for e in ranking.entries], query, settings, now, as_of)
    results = [
        _result(rank_no, e, query, settings, now, quotes.get(e.row.spec.id), model.reference_gpu)
        for rank_no, e in enumerate(ranking.entries, start=1)
    ]
    _show_availability(session, ranking.entries, results, settings, now, as_of)
    market = MarketAgesOut(**asdict(ranking.market)) if ranking.market else None
    return RecommendResponse(
        query=query,
        prices_as_of=market.newest_observed_at if market else None,
        market=market,
        model_version=_model_version(state, model, as_of),
        computed_at=(state.computed_at if state else None) if as_of is None else now,
        sorted_by=SORT_DESCRIPTIONS[query.sort],
        results=results,
        unranked=[_unranked(r) for r in ranking.unranked],
        empty=EmptyReasonOut(**asdict(ranking.empty)) if ranking.empty else None,
        **as_of_fields(as_of, model.version),
    )


def _model_version(state: ScoreState | None, model: ClassModel, as_of: AsOf | None) -> str:
    """The model behind the answer: the stored rows', or the one computing as of a date."""
    if as_of is not None:
        return model.version
    return state.model_version if state else "none"


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


def _best_quotes(
    session: Session,
    ranked: list[Ranked],
    query: RecommendQuery,
    settings: Settings,
    now: datetime,
    as_of: AsOf | None = None,
) -> dict[str, QuoteOut]:
    # Only quotes the caller may see (its key's; every key's with all_quotes), which the
    # router records on the session; anonymous callers see none (shared/pricing/quotes.py).
    viewer = quotes_shown_to(session)
    if query.condition == "cloud" or not ranked or viewer is None:
        return {}
    ids = [r.spec.id for r in ranked]
    recent = recent_quotes(session, ids, now, settings.price_stale_days, viewer)
    if as_of is not None:
        recent = [q for q in recent if q.observed_at < as_of.before]
    best = best_quotes(recent)
    found: dict[str, QuoteOut] = {}
    for gpu_id in ids:
        quote = best_for(best, gpu_id, query.condition)
        if quote is not None:
            found[gpu_id] = quote_out(quote, now)
    return found


def _price_out(entry: Entry, query: RecommendQuery, settings: Settings, now: datetime) -> PriceOut:
    score = entry.row.score
    age = age_days(score.price_observed_at, now)
    return PriceOut(
        usd=score.price_usd if entry.rental else score.price_usd.quantize(CENT),
        condition=score.price_condition,
        kind=score.price_kind,
        source=score.price_source,
        observed_at=score.price_observed_at,
        n=score.price_n,
        measure=score.price_measure,
        measure_description=describe(score.price_measure),
        unit="usd_per_gpu_hour" if entry.rental else "usd",
        pricing=query.pricing if entry.rental else None,
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
    rank_no: int,
    entry: Entry,
    query: RecommendQuery,
    settings: Settings,
    now: datetime,
    quote: QuoteOut | None,
    reference_gpu: str,
) -> RecommendResult:
    speed = entry.speed
    low_perf, high_perf = entry.performance_interval
    low_value, high_value = entry.per_dollar_interval
    return RecommendResult(
        rank=rank_no,
        gpu=_gpu_ref(entry.row.spec),
        relative_performance=round(entry.performance, 4),
        performance=PerformanceOut(
            interval=(round(low_perf, 4), round(high_perf, 4)),
            basis=entry.row.score.basis,
            reference_gpu=reference_gpu,
            multi_gpu_speedup=round(speed.speedup, 3),
        ),
        price=_price_out(entry, query, settings, now),
        count=query.count,
        system_cost_usd=entry.system_usd,
        system_cost_basis=(
            speed.build.system_basis()
            if speed.build is not None
            else f"{speed.layout.nodes}x cloud server: included in the hourly price"
        ),
        layout=LayoutOut.of(speed.layout),
        total_cost_usd=entry.total_usd.quantize(Decimal("0.0001") if entry.rental else CENT),
        perf_per_dollar=entry.per_dollar,
        perf_per_1000_usd=round(entry.per_dollar * 1000, 4),
        perf_per_1000_usd_interval=(round(low_value * 1000, 4), round(high_value * 1000, 4)),
        caveats=entry.caveats,
        explanation=entry.explanation,
        effective_batch=speed.effective_batch,
        best_quote=quote,
        throughput=None
        if entry.throughput is None
        else ThroughputOut.model_validate(entry.throughput.as_dict()),
        cost_per_unit=None
        if entry.cost is None
        else CostPerUnitOut.model_validate(entry.cost.as_dict()),
    )


def _show_availability(
    session: Session,
    entries: list[Entry],
    results: list[RecommendResult],
    settings: Settings,
    now: datetime,
    as_of: AsOf | None = None,
) -> None:
    """Each result's evidence of supply (shared/pricing/availability.py): its price's
    market group, or its rental, counted for all results at once (as of a past date: of
    the offers seen by then)."""
    keys = [supply_key(e.row.spec.id, _supply_condition(e.row.score)) for e in entries]
    currency = Currency.from_settings(settings, now) if as_of is None else as_of.currency(settings)
    supply = availability_of(session, set(keys), currency)
    for result, key in zip(results, keys, strict=True):
        result.availability = availability_out(supply.get(key))


def _supply_condition(score: Score) -> str:
    """A rental's Score condition ("cloud:spot"), else the condition it was priced in."""
    return score.condition if score.condition.startswith("cloud:") else score.price_condition
