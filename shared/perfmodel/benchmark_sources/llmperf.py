"""llmperf runs (tech-grandpa's results databases): output tokens/s of serving runs."""

from __future__ import annotations

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    DECODE_SERVING,
    LLMPERF,
    LoadResult,
    Measurement,
    positive_int,
    read_rows,
)


def load_llmperf(catalog: Catalog) -> LoadResult:
    """Output tokens/s at 64 concurrent requests (decode-serving).

    TTFT is not used as a prefill measure: in the same table the H200 SXM's mean TTFT
    (0.36 s) is twice the RTX 3090's (0.17 s), so under a burst of 64 requests it measures
    the serving engine's scheduling, not prefill speed.
    """
    result = LoadResult()
    for row in read_rows("llmperf-tech-grandpa", "llmperf_runs.csv"):
        result.rows_read[LLMPERF] += 1
        name = row["gpu_as_written"]
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(LLMPERF, reason, name)
            continue
        count = positive_int(row["gpu_count"]) or 1
        result.measurements.append(
            Measurement(
                dataset=LLMPERF,
                table_id=_llmperf_table(row),
                workload_class=DECODE_SERVING,
                workload=f"{row['model']} output tokens/s @ {row['concurrent_requests']}",
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=row["data_type"].lower() or None,
                value=float(row["output_throughput_tok_s"]) / count,
                unit="output tokens/s",
                derived=False,
                system=f"{name} ({row['host']})",
            )
        )
    return result


def _llmperf_table(row: dict[str, str]) -> str:
    """A database's runs of one month: the serving engine's version is not recorded, and
    PROVENANCE.md notes that runs two months apart in one database (RunPod templates of
    2025-01 and 2025-03) may not share it; runs within a month are taken to."""
    return f"{row['table_id']} ({row['timestamp'][:7]})"
