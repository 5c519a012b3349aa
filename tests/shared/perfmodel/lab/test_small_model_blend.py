"""The not-kept small-model spec blend recovers a blend it generated, held out per GPU."""

import math
from itertools import combinations

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.training_runs import TrainingRun
from shared.perfmodel.lab import small_model_blend as sb
from shared.perfmodel.lab.llm_training_eval import RunPair

GPUS = ("rtx-3090", "rtx-4090", "a100-40gb-sxm4", "h100-sxm5", "rtx-5090", "l40s")
LARGE = {"rtx-3090": 1.0, "rtx-4090": 2.1, "a100-40gb-sxm4": 3.0, "h100-sxm5": 9.0}
LARGE |= {"rtx-5090": 2.6, "l40s": 4.0}


class Large:
    """The large-model end: a fixed ratio per GPU (the served class's place)."""

    def fitted(self, run: TrainingRun, exponent: float) -> float:
        assert exponent == 0.0
        return LARGE[run.gpu_id]


def _run(gpu_id: str, params_b: float, value: float) -> TrainingRun:
    table = f"synthetic {params_b} B"
    return TrainingRun(
        "synthetic", table, table, gpu_id, 1, params_b, "full", "fp16", value, "x", ""
    )


def _pairs(truth: sb.Blend) -> list[RunPair]:
    """Every two GPUs of one synthetic table per size, measured as `truth` predicts."""
    pairs = []
    for params_b in (0.03, 0.1, 7.0, 70.0):
        runs = [_run(g, params_b, math.exp(truth.log_value(_run(g, params_b, 1.0)))) for g in GPUS]
        pairs += [RunPair(a, b) for a, b in combinations(runs, 2)]
    return pairs


def test_the_fit_recovers_the_blend_and_scores_it_held_out():
    truth = sb.Blend(Large(), 0.3, 1.0)
    pairs = _pairs(truth)
    fitted = sb.fit_blend(Large(), pairs)
    assert (fitted.matrix_weight, fitted.size_exponent) == (0.3, 1.0)
    score = sb.leave_one_gpu_out(Large(), pairs)
    assert score.median() == pytest.approx(0.0, abs=1e-9)
    # A wrong weight is scored as wrong: the small-model pairs carry it.
    wrong = sb.Blend(Large(), 0.8, 1.0)
    assert max(wrong.error(p) for p in pairs) > 0.1


def test_fp32_runs_use_tf32_where_the_card_has_it():
    by_id = load_catalog().by_id
    assert (
        sb.matrix_rate(by_id["a100-40gb-sxm4"], "fp32")
        == by_id["a100-40gb-sxm4"].tf32_tensor_tflops
    )
    assert sb.matrix_rate(by_id["gtx-1080-ti"], "fp32") == by_id["gtx-1080-ti"].fp32_tflops
