from __future__ import annotations

import pytest

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import (
    GPU_NAME_MAP,
    UNMAPPED_NAME_REASONS,
    _normalise_name,
    map_gpu_name,
)
from shared.perfmodel.benchmark_sources.measurement import (
    SKIP_NOT_GPU,
    SKIP_NOT_IN_CATALOG,
    read_rows,
)


def test_every_name_in_the_files_is_mapped_or_has_a_reason():
    # The explicit table covers every spelling, so the free-form matcher is never needed.
    columns = {
        ("mlperf-training", "mlperf_training_closed_available.csv"): "accelerator_model_name",
        ("mlperf-inference", "mlperf_inference_v4.0_closed.csv"): "accelerator_model_name",
        ("mlperf-inference", "mlperf_inference_v5.0_closed_selected.csv"): "accelerator_model_name",
        ("llmperf-tech-grandpa", "llmperf_runs.csv"): "gpu_as_written",
        ("llamacpp-pr-tables", "llamacpp_pr_table_excerpts.csv"): "gpu",
        ("geerlingguy-ai-benchmarks", "geerlingguy_readme_findings.csv"): "gpu_as_written",
        ("geerlingguy-ai-benchmarks", "geerlingguy_issue_excerpts.csv"): "gpu_as_written",
    }
    for (source, filename), column in columns.items():
        for row in read_rows(source, filename):
            name = _normalise_name(row[column])
            if name:
                assert name in GPU_NAME_MAP or name in UNMAPPED_NAME_REASONS, name


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Virtualized NVIDIA H100-SXM-80GB", "h100-sxm5"),
        ("(runpod) RTX A6000 ADA", "rtx-6000-ada"),
        ("RTX A4000 (P)", "rtx-a4000"),
        ("NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)", "b300"),
        ("P40", "tesla-p40"),
        ("AMD Instinct MI350X", "mi350x"),
    ],
)
def test_name_mapping(catalog, written, expected):
    assert map_gpu_name(written, catalog) == (expected, "")


def test_names_without_catalog_id_are_skipped_with_a_reason(catalog):
    assert map_gpu_name("TPU-v5p", catalog) == (None, SKIP_NOT_GPU)
    assert map_gpu_name("Nvidia Spark", catalog) == (None, SKIP_NOT_IN_CATALOG)
    # A mapped id the catalog does not (yet) have is skipped, not an error.
    without_b300 = Catalog([g for g in catalog.gpus if g.id != "b300"])
    written = "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)"
    assert map_gpu_name(written, without_b300) == (None, SKIP_NOT_IN_CATALOG)
