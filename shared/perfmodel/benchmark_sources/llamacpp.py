"""llama.cpp pull-request tables: llama-bench tokens/s, and how a llama-bench row is read."""

from __future__ import annotations

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    LLAMACPP,
    LLM_DECODE,
    LLM_PREFILL,
    SKIP_MIXED_TEST,
    LoadResult,
    Measurement,
    positive_int,
    read_rows,
)


def _llama_bench_class(test: str) -> str | None:
    # "pp512" prompt processing, "tg128" generation, "@ dN" at context depth N;
    # "pp4096+tg128" mixes both and belongs to neither class.
    kind = test.split("@")[0].strip()
    if "+" in kind:
        return None
    if kind.startswith("pp"):
        return LLM_PREFILL
    if kind.startswith("tg"):
        return LLM_DECODE
    return None


def llama_bench_target(
    result: LoadResult, dataset: str, gpu_name: str, test: str, catalog: Catalog
) -> tuple[str, str] | None:
    """(catalog id, workload class) of a llama-bench row; None, counted, when either is
    missing."""
    gpu_id, reason = map_gpu_name(gpu_name, catalog)
    if gpu_id is None:
        result.skip(dataset, reason, gpu_name)
        return None
    workload_class = _llama_bench_class(test)
    if workload_class is None:
        result.skip(dataset, SKIP_MIXED_TEST, test)
        return None
    return gpu_id, workload_class


def load_llamacpp(catalog: Catalog) -> LoadResult:
    """llama-bench tokens/s; the baseline column (master / default split) where present."""
    result = LoadResult()
    for row in read_rows("llamacpp-pr-tables", "llamacpp_pr_table_excerpts.csv"):
        result.rows_read[LLAMACPP] += 1
        target = llama_bench_target(result, LLAMACPP, row["gpu"], row["test"], catalog)
        if target is None:
            continue
        gpu_id, workload_class = target
        value = row["tps_baseline"] or row["tps_variant"]
        # PR #4766 does not state a count; "Main GPU=0" is a single-GPU run.
        count = positive_int(row["gpu_count"]) or 1
        result.measurements.append(
            Measurement(
                dataset=LLAMACPP,
                table_id=row["table_id"],
                workload_class=workload_class,
                workload=f"{row['model']} {row['quant']} {row['test']}",
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=row["quant"] or None,
                value=float(value) / count,
                unit="tokens/s" + (" per GPU (derived)" if count > 1 else ""),
                derived=count > 1,
                system=f"{row['gpu']} ({row['split_mode_or_config']})",
            )
        )
    return result
