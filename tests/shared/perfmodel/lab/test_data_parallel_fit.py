"""The data-parallel fit: shipped parameters reproduce, held-out errors meet the target."""

from __future__ import annotations

import statistics

import pytest

from shared.perfmodel.data_parallel import load_data_parallel_params
from shared.perfmodel.lab import data_parallel_fit as dp

TARGET_MEDIAN = 0.08  # issue: single-box scaling median <= 8 %
TARGET_COVERAGE = 0.75


@pytest.fixture(scope="module")
def rows() -> list[dp.ScalingRow]:
    return dp.lambda_rows()


def test_the_shipped_parameters_are_what_the_fit_gives(rows) -> None:
    shipped, fitted = load_data_parallel_params(), dp.fit_params()
    assert shipped.share == pytest.approx(fitted.share)
    assert shipped.half_width == pytest.approx(fitted.half_width)
    for workload, steps in fitted.reference_step_s.items():
        assert shipped.reference_step_s[workload] == pytest.approx(steps)


@pytest.mark.parametrize("split", ["workload", "gpu_id"])
def test_held_out_scaling_meets_the_target_and_beats_one_efficiency_per_link(rows, split) -> None:
    def key(r: dp.ScalingRow) -> str:
        return str(getattr(r, split))

    model = dp.summary(dp.held_out(rows, key), load_data_parallel_params().half_width)
    baseline = dp.summary(dp.eta_baseline(rows, key))
    assert model["n"] == baseline["n"] > 150
    assert model["median"] <= TARGET_MEDIAN
    assert model["median"] < baseline["median"]
    assert model["coverage"] >= TARGET_COVERAGE


def test_transformer_xl_rows_left_out_show_no_communication_cost(rows) -> None:
    txl = [r.efficiency for r in rows if r.workload in dp.NOT_FITTED]
    bert_large_4090 = [
        r.efficiency for r in rows if r.workload == "bert_large_squad" and r.gpu_id == "rtx-4090"
    ]
    assert len(txl) > 50 and statistics.median(txl) > 0.98
    assert max(bert_large_4090) < 0.8
