from __future__ import annotations

from collections import Counter

import pytest

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.benchmark_sources.mlperf_training import _other_unit
from shared.perfmodel.lab.benchmarks import load_all


@pytest.fixture(scope="module")
def loaded() -> bm.LoadResult:
    return load_all()


def _find(result: bm.LoadResult, **fields: object) -> list[bm.Measurement]:
    return [m for m in result.measurements if all(getattr(m, k) == v for k, v in fields.items())]


def test_every_bundled_row_is_read(loaded):
    assert loaded.rows_read[bm.MLPERF_TRAINING] == 913
    assert loaded.rows_read[bm.MLPERF_INFERENCE] == 744 + 85
    assert loaded.rows_read[bm.LLMPERF] == 171
    assert loaded.rows_read[bm.LLAMACPP] == 36
    assert loaded.rows_read[bm.GEERLINGGUY] == 102 + 9


def test_every_row_is_either_kept_or_counted_as_skipped(loaded):
    kept = Counter(m.dataset for m in loaded.measurements)
    skipped: Counter[str] = Counter()
    for (dataset, _), count in loaded.skipped_by_reason().items():
        skipped[dataset] += count
    for dataset, read in loaded.rows_read.items():
        assert kept[dataset] + skipped[dataset] == read, dataset


def test_mlperf_inference_v40_row_becomes_a_derived_per_gpu_value(loaded):
    # DGX-H100x8 llama2-70b-99.9 Offline: 21,805.8 tokens/s for 8 GPUs (checked in PROVENANCE).
    [m] = _find(
        loaded,
        dataset=bm.MLPERF_INFERENCE,
        table_id="mlperf-inference v4.0 closed llama2-70b-99.9 Offline",
        system="NVIDIA DGX-H100_H100-SXM-80GBx8_TRT",
    )
    assert m.gpu_id == "h100-sxm5"
    assert m.gpus_per_system == 8
    assert m.value == pytest.approx(21805.8 / 8)
    assert m.derived and "derived" in m.unit and m.unit.startswith("Tokens/s")
    assert m.workload_class == bm.LLM_SERVING


def test_mlperf_training_throughput_uses_unscaled_run_time(loaded):
    # v3.0 Dell XE9680x8H100 bert: 2.39914e6 samples in 5.2642 min (olympic mean) on 8 GPUs.
    [m] = _find(
        loaded,
        dataset=bm.MLPERF_TRAINING,
        table_id="mlperf-training v3.0 closed bert",
        system="Dell XE9680x8H100-SXM-80GB",
    )
    assert m.gpu_id == "h100-sxm5" and m.workload_class == bm.TRAINING_NLP
    assert m.value == pytest.approx(2.39914e6 / 5.2642 / 8)
    assert m.submitter == "Dell"


def test_skips_are_counted_by_reason(loaded):
    reasons = loaded.skipped_by_reason()
    assert reasons[(bm.MLPERF_TRAINING, bm.SKIP_DUPLICATE)] == 68
    assert reasons[(bm.MLPERF_TRAINING, bm.SKIP_NOT_GPU)] == 14 + 7 + 1  # Gaudi2, TPUs
    assert reasons[(bm.MLPERF_INFERENCE, bm.SKIP_CPU)] == 72
    details = {s.detail for s in loaded.skipped if s.reason == bm.SKIP_POWER}
    assert "NVIDIA A100-SXM-80GB CTS at 500W" in details
    assert "NVIDIA H200-SXM-141GB-CTS" in details
    assert "MaxQ (energy-tuned) system" in details
    assert reasons[(bm.MLPERF_INFERENCE, bm.SKIP_SAME_RUN)] > 0
    assert reasons[(bm.MLPERF_INFERENCE, bm.SKIP_REFERENCE_CODE)] > 0
    assert not any("MaxQ" in m.system for m in loaded.measurements)


def test_a_converged_amount_in_another_unit_is_skipped_not_kept(loaded):
    # Baidu v2.1 BERT logged "1" (epochs) where every other BERT row logs ~2.5e6 samples:
    # as a rate it would be 0.006 samples/min, a million times too slow.
    skipped = [s for s in loaded.skipped if s.reason == bm.SKIP_OTHER_UNIT]
    assert [s.detail for s in skipped] == ["8_node_64_A100_PaddlePaddle bert: 1"]
    assert not _find(loaded, system="Baidu 8_node_64_A100_PaddlePaddle", workload="bert")
    assert _other_unit(1.0, 2.5e6) and _other_unit(3e9, 2.5e6)
    assert not _other_unit(2.0e6, 2.5e6)


def test_tinygrad_submissions_are_tables_of_their_own(loaded):
    tinygrad = _find(loaded, submitter="tinycorp")
    assert {m.gpu_id for m in tinygrad} >= {"rtx-4090", "rx-7900-xtx", "mi300x"}
    assert all(m.table_id.endswith("(tinygrad)") for m in tinygrad)
    # The vendors' stacks stay together in the plain table.
    plain = _find(loaded, table_id="mlperf-training v5.0 closed bert")
    assert plain and not any(m.submitter == "tinycorp" for m in plain)


def test_a_99_9_copy_of_a_99_run_is_dropped(loaded):
    # NVIDIA's 3d-unet -99.9 logs are byte-identical copies of the -99 ones.
    dgx = _find(loaded, system="NVIDIA DGX-H100_H100-SXM-80GBx8_TRT")
    assert any(m.workload == "3d-unet-99 Offline" for m in dgx)
    assert not any(m.workload == "3d-unet-99.9 Offline" for m in dgx)


def test_geerlingguy_tables_are_one_model_on_one_host(loaded):
    tables = {m.table_id for m in loaded.measurements if m.dataset == bm.GEERLINGGUY}
    assert "geerlingguy_readme_gpt_oss_20b @ Intel 265K Custom PC" in tables
    assert "geerlingguy_readme_gpt_oss_20b @ Pi CM5 - 16GB" in tables


def test_llamacpp_multi_gpu_rows_are_per_gpu(loaded):
    rows = _find(loaded, dataset=bm.LLAMACPP, table_id="llamacpp_pr19378_4xRTX4090")
    assert rows and all(m.gpus_per_system == 4 and m.derived for m in rows)
    [tg] = [m for m in rows if m.workload == "gpt-oss 120B MXFP4 MoE tg128"]
    assert tg.value == pytest.approx(180.36 / 4)
    assert tg.workload_class == bm.LLM_DECODE


def test_lambda_is_labelled_in_sample_and_kept_apart(loaded):
    assert bm.LAMBDA_IN_SAMPLE not in bm.OUT_OF_SAMPLE_DATASETS
    lambda_rows = _find(loaded, dataset=bm.LAMBDA_IN_SAMPLE)
    assert lambda_rows and all(m.precision == "fp16" for m in lambda_rows)
    assert bm.LAMBDA_IN_SAMPLE not in {m.dataset for m in load_all(False).measurements}


def test_llmperf_runs_two_months_apart_are_separate_tables(loaded):
    cloud = [m for m in loaded.measurements if m.table_id.startswith("llmperf_cloud_single")]
    by_table: dict[str, set[str]] = {}
    for m in cloud:
        by_table.setdefault(m.table_id, set()).add(m.gpu_id)
    # RunPod runs of 2025-01 and of 2025-03 (H100, H200, L40, RTX 4090) are not mixed.
    assert set(by_table) == {"llmperf_cloud_single (2025-01)", "llmperf_cloud_single (2025-03)"}
    assert {"h100-sxm5", "h200-sxm"} <= by_table["llmperf_cloud_single (2025-03)"]
    assert "h100-sxm5" not in by_table["llmperf_cloud_single (2025-01)"]
    # A database run within one month stays one table.
    root = {m.table_id for m in loaded.measurements if m.table_id.startswith("llmperf_root")}
    assert root == {"llmperf_root_2024-12-18 (2024-12)"}
