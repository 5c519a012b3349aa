import re

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.answerai import (
    CROSS_HARDWARE,
    load_answerai,
    source_text,
)
from shared.perfmodel.benchmark_sources.gpu_insights import (
    SKIP_MEMORY,
    SKIP_MULTI_GPU,
    load_gpu_insights,
    load_gpu_insights_pairs,
)


def test_gpu_insights_loads_single_gpu_runs_per_table():
    runs, result = load_gpu_insights(load_catalog())
    assert result.rows_read["gpu-insights"] == 80
    assert len(runs) == 72
    skipped = {reason for (_, reason) in result.skipped_by_reason()}
    assert {SKIP_MULTI_GPU, SKIP_MEMORY} <= skipped
    by_key = {(r.table_id, r.gpu_id): r for r in runs}
    h100 = by_key[("gpu-insights resnet50 ver2 fp16", "h100-sxm5")]
    assert h100.value == 217105 and h100.gpus == 1 and h100.mode == "full"
    assert by_key[("gpu-insights resnet50 ver2 fp16", "rtx-5090")].value == 101039
    gpus = {r.gpu_id for r in runs}
    assert {"rtx-5090", "rtx-pro-6000-blackwell", "rtx-4090", "rtx-3090", "l40s"} <= gpus
    assert {"a100-40gb-sxm4", "h100-sxm5"} <= gpus


def test_gpu_insights_multi_gpu_pairs():
    pairs = load_gpu_insights_pairs()
    assert len(pairs) == 20
    assert {p.gpus for p in pairs} == {2, 4}
    first = pairs[0]
    assert first.gpu == "NVIDIA GeForce RTX 4090 D" and first.speedup == 1.743


def test_answerai_rows_match_the_bundled_markdown():
    runs = load_answerai()
    assert len(runs) == 23
    cross = [r for r in runs if r.table_id == CROSS_HARDWARE]
    assert len(cross) == 9 and all(r.params_b == 70 and r.mode == "qlora" for r in cross)
    h100 = next(r for r in cross if r.gpu_id == "h100-sxm5")
    assert h100.gpus == 4 and round(h100.value) == round(1024 * 2048 / 667)
    text = source_text()
    for run in runs:
        seconds = round(1024 * 2048 / run.value)
        # Every copied time appears in the file as written (thousands with a comma).
        assert re.search(rf"\b{seconds:,}\b", text) or re.search(rf"\b{seconds}\b", text), seconds
