"""The ranking without HTTP: order by the low end of perf per dollar's interval, the
filters, and cards with no price today set apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session

from shared.models import ScoreState
from shared.perfmodel.registry import get_model
from shared.recommend.rank import Ranking, rank
from shared.recommend.schemas import RecommendQuery, Sort
from shared.recommend.scores import ScoreCache
from shared.seed import seed_catalog
from tests.factories import make_observation, plain_settings, recompute

NOW = datetime.now(UTC)


def _query(sort: Sort = "perf_per_dollar", **overrides: object) -> RecommendQuery:
    fields: dict[str, object] = {
        "task": "cv",
        "memory_gb": 8,
        "memory_basis": "requested",
        "precision": "fp16",
        "condition": "used",
        "budget_usd": None,
        "count": 1,
        "datacenter": False,
        "limit": 10,
        "sort": sort,
    }
    fields.update(overrides)
    return RecommendQuery.model_validate(fields)


def _rank(session: Session, query: RecommendQuery) -> Ranking:
    return rank(
        session,
        ScoreCache(),
        query,
        plain_settings(),
        get_model(),
        session.get(ScoreState, 1),
        NOW,
    )


def _sales(session: Session, gpu_id: str, prices: list[float], days_ago: float) -> None:
    for usd in prices:
        session.add(
            make_observation(
                gpu_id=gpu_id, usd=f"{usd:.2f}", observed_at=NOW - timedelta(days=days_ago)
            )
        )


def test_the_low_end_decides_and_expected_value_is_its_own_sort(session):
    seed_catalog(session)
    # The 3090 priced tightly this week; the 3090 Ti by one wide market whose spread makes
    # its band wide: cheaper at the centre, dearer at its worst.
    _sales(session, "rtx-3090", [700, 705, 710, 715, 720], 3)
    _sales(session, "rtx-3090-ti", [350, 500, 700, 950, 1300], 3)
    session.flush()
    recompute(session, ["rtx-3090", "rtx-3090-ti"])
    by_low = _rank(session, _query())
    by_mean = _rank(session, _query("perf_per_dollar_expected"))
    ids_low = [e.row.spec.id for e in by_low.entries]
    ids_mean = [e.row.spec.id for e in by_mean.entries]
    assert set(ids_low) == {"rtx-3090", "rtx-3090-ti"}
    lows = [e.per_dollar_interval[0] for e in by_low.entries]
    assert lows == sorted(lows, reverse=True)
    means = [e.per_dollar for e in by_mean.entries]
    assert means == sorted(means, reverse=True)
    # The wide band loses at its low end although its central value is higher.
    ti_low = next(e for e in by_low.entries if e.row.spec.id == "rtx-3090-ti")
    plain = next(e for e in by_low.entries if e.row.spec.id == "rtx-3090")
    assert ti_low.per_dollar > plain.per_dollar
    assert ti_low.per_dollar_interval[0] < plain.per_dollar_interval[0]
    assert ids_low == ["rtx-3090", "rtx-3090-ti"] and ids_mean == ["rtx-3090-ti", "rtx-3090"]
    for entry in by_low.entries:
        low, high = entry.per_dollar_interval
        assert low < entry.per_dollar < high


def test_filters_leave_an_empty_reason_and_unpriced_cards_are_listed_apart(session):
    seed_catalog(session)
    _sales(session, "rtx-3090", [700, 710, 720], 3)
    # A card seen once, three years ago, with nothing to bridge the gap.
    _sales(session, "a100-80gb-pcie", [15000], 3 * 365)
    session.flush()
    recompute(session, ["rtx-3090", "a100-80gb-pcie"])
    ranking = _rank(session, _query(budget_usd=100))
    assert ranking.entries == []
    assert ranking.empty is not None and ranking.empty.removed.get("budget", 0) >= 1
    assert [r.spec.id for r in ranking.unranked] == ["a100-80gb-pcie"]
    # The ages are of ranked candidates only: none here.
    assert ranking.market is None


def test_a_multi_gpu_build_ranks_on_an_interval_that_carries_the_scaling_error(session):
    seed_catalog(session)
    _sales(session, "rtx-3090", [700, 705, 710, 715, 720], 3)
    session.flush()
    recompute(session, ["rtx-3090"])
    widths = []
    for count in (1, 4):
        entry = _rank(session, _query(count=count, memory_gb=24)).entries[0]
        low, high = entry.performance_interval
        widths.append(high / low)
        assert low < entry.performance < high
    # Four cards: the speed-up's held-out error widens the same card's interval.
    assert widths[1] > widths[0] * 1.05
