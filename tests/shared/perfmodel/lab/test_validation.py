from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from services.cli.model import app
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.lab.pair_predictors import (
    PerGpu,
    Predictor,
    bandwidth_predictor,
    class_family,
    model_predictor,
)
from shared.perfmodel.lab.pair_scores import percent, score_pairs, spearman, summarize
from shared.perfmodel.lab.pairs import GPU_PAIR, Pair, build_groups, gpu_pairs, scaling_pairs
from shared.perfmodel.lab.validation import Validation, leave_one_table_out, run_validation


def _m(table: str, gpu: str, value: float, count: int = 1, workload: str = "w") -> bm.Measurement:
    return bm.Measurement(
        dataset="test",
        table_id=table,
        workload_class=bm.TRAINING_CV,
        workload=workload,
        gpu_id=gpu,
        gpus_per_system=count,
        precision=None,
        value=value,
        unit="items/s",
        derived=False,
        system=f"{count}x {gpu}",
    )


def _fixed(values: dict[str, float], half_width: float | None = None) -> Predictor:
    def predict(gpu, workload_class, count, workload):
        return PerGpu(values[gpu.id], half_width)

    return predict


@pytest.fixture(scope="module")
def validation() -> Validation:
    return run_validation()


def test_pairs_never_cross_tables_or_system_sizes():
    measurements = [
        _m("t1", "rtx-3090", 100),
        _m("t1", "rtx-4090", 180),
        _m("t2", "rtx-4090", 50),
        _m("t2", "a100-80gb-pcie", 70),
        _m("t2", "rtx-3090", 10, count=8),
    ]
    pairs = gpu_pairs(build_groups(measurements))
    assert {(p.table_id, p.gpu_a, p.gpu_b) for p in pairs} == {
        ("t1", "rtx-3090", "rtx-4090"),
        ("t2", "a100-80gb-pcie", "rtx-4090"),
    }
    [first] = [p for p in pairs if p.table_id == "t1"]
    assert first.measured == pytest.approx(100 / 180)


def test_several_systems_of_one_gpu_count_once_as_their_median():
    measurements = [_m("t", "rtx-3090", v) for v in (90, 100, 400)] + [_m("t", "l4", 50)]
    [pair] = gpu_pairs(build_groups(measurements))
    assert (pair.gpu_a, pair.gpu_b) == ("l4", "rtx-3090")
    assert pair.measured == pytest.approx(50 / 100)


def test_real_pairs_stay_within_one_table(validation):
    cells = {
        (m.dataset, m.table_id, m.gpu_id, m.gpus_per_system) for m in validation.load.measurements
    }
    assert validation.scored
    for s in validation.scored:
        p = s.pair
        assert (p.dataset, p.table_id, p.gpu_a, p.count_a) in cells
        assert (p.dataset, p.table_id, p.gpu_b, p.count_b) in cells
        if p.kind == GPU_PAIR:
            assert p.gpu_a != p.gpu_b and p.count_a == p.count_b


def test_error_is_symmetric_in_log_space(catalog):
    pair = Pair(GPU_PAIR, "test", "t", bm.TRAINING_CV, "w", "rtx-4090", "rtx-3090", 1, 1, 2)
    over = _fixed({"rtx-4090": 2.5, "rtx-3090": 1.0})
    under = _fixed({"rtx-4090": 1.6, "rtx-3090": 1.0})
    [high], _ = score_pairs([pair], over, under, catalog)
    # 2.5 vs 2.0 is 25 % too high; 1.6 vs 2.0 is a factor 1.25 too low: the same error.
    assert high.model_log_error == pytest.approx(math.log(1.25))
    assert high.baseline_log_error == pytest.approx(math.log(1.25))
    assert percent(high.model_log_error) == pytest.approx(0.25)


def test_baseline_is_the_bandwidth_ratio(catalog):
    pair = Pair(GPU_PAIR, "test", "t", bm.TRAINING_CV, "w", "rtx-4090", "rtx-3090", 1, 1, 1)
    [scored], _ = score_pairs([pair], _fixed({"rtx-4090": 1, "rtx-3090": 1}), catalog=catalog)
    new, old = catalog.by_id["rtx-4090"], catalog.by_id["rtx-3090"]
    assert scored.baseline == pytest.approx(new.memory_bandwidth_gbs / old.memory_bandwidth_gbs)


def test_pair_interval_and_coverage(catalog):
    pairs = [
        Pair(GPU_PAIR, "test", "t", bm.TRAINING_CV, "w", "rtx-4090", "rtx-3090", 1, 1, m)
        for m in (1.0, 1.3, 2.0)
    ]
    # Each GPU +-10 % (log): the pair's interval is exp(+-0.2) by the sum, +-0.141 in quadrature.
    model = _fixed({"rtx-4090": 1.0, "rtx-3090": 1.0}, half_width=0.1)
    scored, _ = score_pairs(pairs, model, catalog=catalog)
    assert scored[0].half_width_sum == pytest.approx(0.2)
    assert scored[0].half_width_quadrature == pytest.approx(math.hypot(0.1, 0.1))
    summary = summarize("x", "test", scored)
    assert summary is not None
    assert summary.coverage_sum == pytest.approx(1 / 3)  # only 1.0 is inside exp(+-0.2)
    assert summary.pairs == 3 and summary.tables == 1
    assert summary.median == pytest.approx(0.3)


def test_scaling_pairs_compare_each_size_with_the_smallest():
    measurements = [
        _m("t", "h100-sxm5", 100, count=8),
        _m("t", "h100-sxm5", 90, count=64),
        _m("t", "h100-sxm5", 80, count=512),
        _m("t", "l40", 50, count=8),
    ]
    pairs = scaling_pairs(build_groups(measurements))
    assert [(p.gpu_a, p.count_a, p.count_b, round(p.measured, 2)) for p in pairs] == [
        ("h100-sxm5", 64, 8, 0.9),
        ("h100-sxm5", 512, 8, 0.8),
    ]


def test_model_predictor_follows_recommend(catalog, model):
    predictor = model_predictor(model)
    gpu = catalog.by_id["rtx-4090"]
    single = predictor(gpu, bm.LLM_DECODE, 1, "llama 7B F16 tg128")
    expected = model.predict(gpu, "nlp", "fp16")
    assert single is not None and expected is not None
    assert single.value == pytest.approx(expected.relative_throughput)
    eight = predictor(gpu, bm.LLM_DECODE, 8, "llama 7B F16 tg128")
    assert eight is not None and eight.value < single.value  # sublinear scaling per GPU
    assert class_family(bm.DIFFUSION) == "cv" and class_family(bm.LLM_SERVING) == "nlp"


def test_spearman_handles_ties():
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [5, 5, 5]) is None


def test_leave_one_table_out_never_sees_the_held_out_table():
    measurements = [
        _m("t1", "rtx-3090", 100),
        _m("t1", "rtx-4090", 180),
        _m("t2", "rtx-3090", 50),
        _m("t2", "l4", 20),
    ]
    seen: list[set[str]] = []

    def fit(train):
        seen.append({m.table_id for m in train})
        return bandwidth_predictor

    scored, dropped = leave_one_table_out(measurements, fit)
    assert seen == [{"t2"}, {"t1"}]
    assert len(scored) == 2 and dropped == 0


def test_validation_covers_the_classes_and_excludes_lambda_from_headline(validation):
    headline = validation.select()
    assert {s.pair.dataset for s in headline} <= set(bm.OUT_OF_SAMPLE_DATASETS)
    classes = {s.pair.workload_class for s in headline}
    assert {bm.TRAINING_CV, bm.TRAINING_NLP, bm.LLM_DECODE, bm.LLM_SERVING} <= classes
    assert validation.select(datasets=[bm.LAMBDA_IN_SAMPLE])


def test_validate_command_writes_the_report(tmp_path):
    out = tmp_path / "validation.md"
    result = CliRunner().invoke(app, ["validate", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "gpu-advisor model validate" in text
    assert "## Tables used" in text and "skipped because" in text
    assert "mlperf-inference v4.0 closed llama2-70b-99.9 Offline" in text
    assert "derived" in text
