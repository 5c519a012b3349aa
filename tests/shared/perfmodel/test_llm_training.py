"""The product's training-llm class: the nlp prediction plus the median of the MLPerf LLM
training benchmarks' fitted matrix shares, exactly as the fit's rows of those benchmarks
predict them (served = evaluated)."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest

from shared.builds.predict import InvalidInputError, predict_full
from shared.catalog.specs import load_catalog
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import training_precision
from shared.perfmodel.classmodel import ClassModel, ClassParams
from shared.perfmodel.lab import classeval
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.workloads import MLPERF_LLM_TRAINING, TRAINING_LLM, TRAINING_NLP
from tests.shared.perfmodel.synthetic import training_rows

GPUS = ("mi300x", "mi355x", "b200", "gb300", "h100-sxm5", "h200-sxm", "a100-80gb-sxm4", "rtx-4090")


def test_the_share_is_the_median_of_the_llm_benchmarks_only():
    params = FittedParams(
        gemm_share={"bert": 0.1, "gpt3": 0.5, "llama2_70b_lora": 0.9, "llama31_8b": 0.8}
    )
    assert params.llm_training_share() == pytest.approx(0.8)
    assert FittedParams(gemm_share={"bert": 0.3}).llm_training_share() == 0.0
    fitted = ClassModel().params.fitted
    shares = [fitted.gemm_share[w] for w in MLPERF_LLM_TRAINING]
    assert fitted.llm_training_share() == pytest.approx(statistics.median(shares))


@pytest.mark.parametrize("benchmark", MLPERF_LLM_TRAINING)
def test_served_llm_training_is_the_fits_row_prediction_at_the_median_share(benchmark):
    rows = training_rows(benchmark, ["t"], GPUS, gpus_per_system=1)
    assert len(rows) == len(GPUS)
    model = ClassModel()
    evaluated_params = classeval.served_llm_params(model.params.fitted)
    for row in rows:
        precision = training_precision(TRAINING_NLP, row.gpu)
        served = model.predict_task(row.gpu, "llm-training", precision)
        assert served is not None and served.workload_class == TRAINING_LLM
        evaluated = math.exp(cf.predict_log(row, evaluated_params, None))  # type: ignore[arg-type]
        assert served.single.relative_throughput == pytest.approx(evaluated, rel=1e-9), row.gpu.id


def test_llm_training_weighs_the_matrix_rate_more_than_nlp():
    by_id = load_catalog().by_id
    model = ClassModel()

    def ratio(task: str, precision: str, fast: str, slow: str) -> float:
        a = model.predict_task(by_id[fast], task, precision)
        b = model.predict_task(by_id[slow], task, precision)
        assert a is not None and b is not None
        return a.relative_throughput / b.relative_throughput

    # The H100 has 6x the RTX 4090's 16-bit matrix rate (with FP32 accumulation) but 3x
    # its bandwidth: a mostly matrix-bound mix moves towards the matrix ratio.
    assert ratio("llm-training", "fp16", "h100-sxm5", "rtx-4090") > 1.5 * ratio(
        "nlp", "fp16", "h100-sxm5", "rtx-4090"
    )
    # FP8 doubles the matrix rate: worth more to LLM training than to the nlp mix.
    h100 = by_id["h100-sxm5"]
    llm8, llm16 = (model.predict_task(h100, "llm-training", p) for p in ("fp8", "fp16"))
    nlp8, nlp16 = (model.predict_task(h100, "nlp", p) for p in ("fp8", "fp16"))
    assert llm8 and llm16 and nlp8 and nlp16
    llm_gain = llm8.relative_throughput / llm16.relative_throughput
    assert llm_gain > nlp8.relative_throughput / nlp16.relative_throughput > 1.0


def test_no_fp8_without_the_hardware_and_the_interval_is_the_classes_own():
    by_id = load_catalog().by_id
    model = ClassModel()
    assert model.predict_task(by_id["a100-80gb-sxm4"], "llm-training", "fp8") is None
    result = model.predict_task(by_id["b200"], "llm-training", "fp8")
    assert result is not None
    low, high = result.single.interval
    half = model.params.half_width[TRAINING_LLM]
    assert half > 0 and half != model.params.half_width[TRAINING_NLP]
    assert high / low == pytest.approx(math.exp(2 * half))
    assert "MLPerf LLM training fit" in result.single.explanation


def test_without_a_fitted_share_llm_training_is_nlp():
    class _NoShare(ClassModel):
        @property
        def params(self) -> ClassParams:
            served = super().params
            return replace(served, fitted=replace(served.fitted, gemm_share={}))

    gpu = load_catalog().by_id["h100-sxm5"]
    llm, nlp = (_NoShare().predict_task(gpu, t, "fp16") for t in ("llm-training", "nlp"))
    assert llm is not None and nlp is not None
    assert llm.relative_throughput == pytest.approx(nlp.relative_throughput)


def test_a_lambda_workload_is_refused_for_llm_training():
    with pytest.raises(InvalidInputError) as error:
        predict_full(ClassModel(), "h100-sxm5", "llm-training", "fp16", workload="bert_large")
    assert error.value.field == "workload"


def test_cards_smaller_than_the_fitted_modules_say_it_is_an_extrapolation():
    from shared.perfmodel.classmodel import LLM_TRAINING_SMALLEST_GB
    from shared.perfmodel.lab.benchmarks import load_all

    by_id = load_catalog().by_id
    measured = {
        m.gpu_id
        for m in load_all(include_in_sample=False).measurements
        if m.workload in MLPERF_LLM_TRAINING
    }
    assert min(by_id[g].memory_gb for g in measured) == LLM_TRAINING_SMALLEST_GB
    model = ClassModel()
    small = model.predict_task(by_id["rtx-4090"], "llm-training", "fp16")
    large = model.predict_task(by_id["h100-sxm5"], "llm-training", "fp16")
    assert small is not None and large is not None
    assert any("extrapolation" in c for c in small.single.caveats)
    assert not any("extrapolation" in c for c in large.single.caveats)
