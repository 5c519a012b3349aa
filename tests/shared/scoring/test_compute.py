from dataclasses import replace

import pytest
from sqlmodel import select

from shared.models import Score, ScoreState
from shared.perfmodel.registry import get_model
from shared.seed import seed_catalog
from tests.factories import make_observation, recompute


def snapshot(session):
    return sorted(
        (
            s.gpu_id,
            s.task,
            s.precision,
            s.condition,
            s.relative_performance,
            s.price_usd,
            s.perf_per_dollar,
        )
        for s in session.exec(select(Score))
    )


@pytest.fixture
def market(session):
    seed_catalog(session)
    for gpu_id, usd in (("rtx-3090", "800"), ("rtx-4090", "1700"), ("gtx-1080-ti", "150")):
        session.add(make_observation(gpu_id=gpu_id, usd=usd))
    session.flush()
    return session


def test_running_twice_leaves_the_same_rows(market):
    first = recompute(market)
    rows = snapshot(market)
    second = recompute(market)
    assert snapshot(market) == rows
    assert second.revision == first.revision + 1
    assert {r[0] for r in rows} == {"rtx-3090", "rtx-4090", "gtx-1080-ti"}


def test_a_partial_recompute_touches_only_its_gpus(market):
    recompute(market)
    market.add(make_observation(gpu_id="rtx-4090", usd="1000", listing_id="cheaper"))
    market.flush()
    before = {r for r in snapshot(market) if r[0] != "rtx-4090"}
    recompute(market, ["rtx-4090"])
    after = snapshot(market)
    assert {r for r in after if r[0] != "rtx-4090"} == before
    prices = {r[5] for r in after if r[0] == "rtx-4090" and r[3] == "used"}
    assert len(prices) == 1 and prices.pop() < 1700


def test_every_task_precision_and_condition_is_scored_where_supported(market):
    recompute(market)
    rows = snapshot(market)
    rtx_3090 = {(r[1], r[2], r[3]) for r in rows if r[0] == "rtx-3090"}
    assert ("cv", "fp16", "used") in rtx_3090 and ("cv", "fp16", "any") in rtx_3090
    assert not any(p == "fp8" for _, p, _ in rtx_3090)  # Ampere has no FP8
    assert not any(c == "new" for _, _, c in rtx_3090)  # no new price in this market


def test_a_model_version_change_recomputes_every_gpu(market):
    recompute(market, ["rtx-3090"])
    assert {r[0] for r in snapshot(market)} == {"rtx-3090"}
    model = get_model()

    class NextVersion:
        version = model.version + "-next"
        reference_gpu = model.reference_gpu

        def predict(self, gpu, task, precision):
            prediction = model.predict(gpu, task, precision)
            return prediction and replace(prediction, model_version=self.version)

    result = recompute(market, ["rtx-3090"], model=NextVersion())
    assert set(result.gpu_ids) > {"rtx-3090", "rtx-4090"}
    assert {r[0] for r in snapshot(market)} == {"rtx-3090", "rtx-4090", "gtx-1080-ti"}
    assert market.get(ScoreState, 1).model_version == NextVersion.version


def test_unknown_gpu_ids_are_refused(market):
    with pytest.raises(ValueError, match="rtx-9999"):
        recompute(market, ["rtx-9999"])
