"""The served training prediction applies the power-limited matrix clock the fit applies
(matrix_clock.py): the product's value is the row predictor's wherever a benchmark has no
matrix-multiply share of its own."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_rows import REFERENCE_GPU, training_precision
from shared.perfmodel.classmodel import ClassModel, ClassParams, load_class_params
from shared.perfmodel.lab import classeval
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.matrix_clock import matrix_clock_log, matrix_fraction
from shared.perfmodel.module_power import power_headroom_log
from tests.shared.perfmodel.synthetic import training_rows

GPUS = ("mi300x", "mi325x", "b200", "gb200", "gb300", "h100-sxm5", "a100-80gb-sxm4", "rtx-4090")
TASK_OF = {bm.TRAINING_CV: "cv", bm.TRAINING_NLP: "nlp"}


class _NoPowerTerm(ClassModel):
    """The served model with the fitted exponent set to 0."""

    @property
    def params(self) -> ClassParams:
        served = load_class_params(self.version)
        return replace(served, fitted=replace(served.fitted, power_exponent=0.0))


def _ratio(model: ClassModel, task: str, precision: str) -> float:
    by_id = load_catalog().by_id
    fast = model.predict_task(by_id["mi325x"], task, precision)
    slow = model.predict_task(by_id["mi300x"], task, precision)
    assert fast is not None and slow is not None
    return fast.single.relative_throughput / slow.single.relative_throughput


@pytest.mark.parametrize(("task", "precision"), [("cv", "fp16"), ("nlp", "fp16"), ("nlp", "fp8")])
def test_the_product_ranks_mi325x_over_mi300x_with_the_fitted_power_term(task, precision):
    by_id = load_catalog().by_id
    beta = load_class_params().fitted.power_exponent
    assert beta > 0.0
    mi300x = by_id["mi300x"]
    family = "cv" if task == "cv" else "nlp"
    fraction = matrix_fraction(mi300x, by_id[REFERENCE_GPU], family, precision)
    clock = matrix_clock_log(fraction, power_headroom_log(mi300x), beta)
    # Same peaks, 750 W against 1000 W: the MI300X's matrix share runs slower.
    assert 0.0 < fraction < 1.0 and clock < 0.0
    assert clock == pytest.approx(-math.log(1 - fraction + fraction * (1000 / 750) ** beta))
    served, without = _ratio(ClassModel(), task, precision), _ratio(_NoPowerTerm(), task, precision)
    if task == "cv":
        assert served == pytest.approx(without * math.exp(-clock))
    else:
        # nlp carries BERT's matrix share, whose multiplies run at the clock too: at least
        # the mix's factor.
        assert served >= without * math.exp(-clock) * (1 - 1e-9)
    assert served > without


def test_modules_with_full_power_and_cards_are_untouched():
    by_id = load_catalog().by_id
    served, without = ClassModel(), _NoPowerTerm()
    for gpu_id in ("mi325x", "gb300", "h100-sxm5", "rtx-4090", "l40s"):
        a = served.predict_task(by_id[gpu_id], "nlp", "fp16")
        b = without.predict_task(by_id[gpu_id], "nlp", "fp16")
        assert a is not None and b is not None
        assert a.single.relative_throughput == b.single.relative_throughput


@pytest.mark.parametrize("klass", [bm.TRAINING_CV, bm.TRAINING_NLP])
def test_served_training_prediction_is_the_fits_row_prediction(klass):
    """One GPU: the fit's row predictor and the product's predict_task give the same
    value (served = evaluated): cv as a benchmark without a fitted matrix share, nlp as
    MLPerf BERT, whose share the served nlp class carries."""
    workload = "bert" if klass == bm.TRAINING_NLP else "no-share-benchmark"
    rows = training_rows(workload, ["t"], GPUS, klass=klass, gpus_per_system=1)
    assert len(rows) == len(GPUS)
    model = ClassModel()
    fitted = model.params.fitted
    for row in rows:
        precision = training_precision(klass, row.gpu)
        served = model.predict_task(row.gpu, TASK_OF[klass], precision)
        assert served is not None
        evaluated = math.exp(cf.predict_log(row, fitted, None))  # type: ignore[arg-type]
        assert served.single.relative_throughput == pytest.approx(evaluated, rel=1e-9), row.gpu.id


def test_served_params_keep_only_berts_share_for_nlp():
    fitted = load_class_params().fitted
    assert classeval.served_params(fitted).gemm_share == {} and fitted.gemm_share
    served = classeval.served_params(fitted, ["bert", "llama31_8b"])
    bert = fitted.gemm_share["bert"]
    assert served.gemm_share == {"bert": bert, "llama31_8b": bert} != fitted.gemm_share
    assert served.power_exponent == fitted.power_exponent > 0.0
    assert served.arch_log == fitted.arch_log


def test_the_report_scores_the_served_training_prediction_on_the_same_refits(tmp_path):
    from shared.perfmodel.lab import classreport
    from shared.perfmodel.lab.benchmarks import load_all

    measurements = [
        m
        for m in load_all(include_in_sample=False).measurements
        if m.dataset == bm.MLPERF_TRAINING and m.workload == "llama2_70b_lora"
    ]
    evaluation = classeval.evaluate(workers=1, measurements=measurements)
    training_logo = [s for s in evaluation.logo if s.pair.workload_class == bm.TRAINING_NLP]
    assert evaluation.served_loto
    assert len(evaluation.served_logo) == len(training_logo)
    # Llama 2 70B LoRA's fitted matrix share is large: the served errors differ.
    assert [s.model_log_error for s in evaluation.served_logo] != [
        s.model_log_error for s in training_logo
    ]
    text = classreport.write_report(tmp_path / "classes.md", evaluation).read_text()
    assert "## The served training prediction on the same protocol" in text
    assert "| leave one GPU out | training (cv + nlp) |" in text
