"""geerlingguy's ai-benchmarks: README eval rates and llama-bench rows from its issues."""

from __future__ import annotations

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.llamacpp import llama_bench_target
from shared.perfmodel.benchmark_sources.measurement import (
    GEERLINGGUY,
    LLM_DECODE,
    SKIP_CPU,
    SKIP_INTEGRATED,
    SKIP_MIXED_TEST,
    LoadResult,
    Measurement,
    read_rows,
)


def load_geerlingguy(catalog: Catalog) -> LoadResult:
    """Single-stream generation (README tables) and llama-bench rows (issue excerpts).

    README rows of one model come from different hosts and builds; a table is one model
    section on one host, the closest thing to "same software" the README offers.
    """
    result = LoadResult()
    for row in read_rows("geerlingguy-ai-benchmarks", "geerlingguy_readme_findings.csv"):
        result.rows_read[GEERLINGGUY] += 1
        name, kind = row["gpu_as_written"], row["cpu_or_gpu"]
        if kind == "CPU":
            result.skip(GEERLINGGUY, SKIP_CPU, row["system_as_written"])
            continue
        if kind != "GPU":
            result.skip(GEERLINGGUY, SKIP_MIXED_TEST, row["system_as_written"])
            continue
        if not name:
            result.skip(GEERLINGGUY, SKIP_INTEGRATED, row["system_as_written"])
            continue
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(GEERLINGGUY, reason, name)
            continue
        host = row["system_as_written"].split("(")[0].strip()
        result.measurements.append(
            Measurement(
                dataset=GEERLINGGUY,
                table_id=f"{row['table_id']} @ {host}",
                workload_class=LLM_DECODE,
                workload=f"{row['model_section']} eval rate",
                gpu_id=gpu_id,
                gpus_per_system=1,
                precision=None,
                value=float(row["eval_rate_tokens_per_s"]),
                unit="tokens/s",
                derived=False,
                system=row["system_as_written"],
            )
        )
    for row in read_rows("geerlingguy-ai-benchmarks", "geerlingguy_issue_excerpts.csv"):
        result.rows_read[GEERLINGGUY] += 1
        name = row["gpu_as_written"]
        target = llama_bench_target(result, GEERLINGGUY, name, row["test"], catalog)
        if target is None:
            continue
        gpu_id, workload_class = target
        result.measurements.append(
            Measurement(
                dataset=GEERLINGGUY,
                table_id=row["table_id"],
                workload_class=workload_class,
                workload=f"{row['model_as_written']} {row['test']}",
                gpu_id=gpu_id,
                gpus_per_system=1,
                precision=None,
                value=float(row["tokens_per_s"]),
                unit="tokens/s",
                derived=False,
                system=f"{row['gpu_as_written']} ({row['host']}, {row['backend']})",
            )
        )
    return result
