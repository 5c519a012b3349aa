"""MLPerf Inference closed results (v4.0, v5.0): per-GPU throughput, Offline and Server."""

from __future__ import annotations

import re

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    CNN_INFERENCE,
    DIFFUSION,
    LLM_SERVING,
    MLPERF_INFERENCE,
    SKIP_BENCHMARK,
    SKIP_NO_VALUE,
    SKIP_POWER,
    SKIP_REFERENCE_CODE,
    SKIP_SAME_RUN,
    LoadResult,
    Measurement,
    positive_int,
    read_rows,
)

# MLPerf Inference benchmark (accuracy suffix removed) -> class. bert (encoder), dlrm-v2,
# rnnt and rgat are outside the classes.
INFERENCE_BENCHMARK_CLASS: dict[str, str] = {
    "resnet50": CNN_INFERENCE,
    "retinanet": CNN_INFERENCE,
    "3d-unet": CNN_INFERENCE,
    "stable-diffusion-xl": DIFFUSION,
    "gptj": LLM_SERVING,
    "llama2-70b": LLM_SERVING,
    "llama2-70b-interactive": LLM_SERVING,
    "llama3_1-405b": LLM_SERVING,
    "mixtral-8x7b": LLM_SERVING,
}
_ACCURACY_SUFFIX = re.compile(r"^(?P<base>.+)-(?P<target>99(?:\.9)?)$")


def _same_run_as_99(rows: list[dict[str, str]]) -> set[int]:
    """Indexes of -99.9 rows that repeat the same system's -99 result exactly."""
    strict: dict[tuple[str, str, str], str] = {}
    for row in rows:
        match = _ACCURACY_SUFFIX.match(row["benchmark"])
        if match and match["target"] == "99":
            strict[(row["system"], match["base"], row["scenario"])] = row["result"]
    copies = set()
    for index, row in enumerate(rows):
        match = _ACCURACY_SUFFIX.match(row["benchmark"])
        if match and match["target"] == "99.9":
            if strict.get((row["system"], match["base"], row["scenario"])) == row["result"]:
                copies.add(index)
    return copies


def load_mlperf_inference(catalog: Catalog) -> LoadResult:
    """Per-GPU inference throughput (system result / accelerators), Offline and Server."""
    result = LoadResult()
    for filename in (
        "mlperf_inference_v4.0_closed.csv",
        "mlperf_inference_v5.0_closed_selected.csv",
    ):
        rows = read_rows("mlperf-inference", filename)
        copies = _same_run_as_99(rows)
        for index, row in enumerate(rows):
            result.rows_read[MLPERF_INFERENCE] += 1
            name, benchmark = row["accelerator_model_name"], row["benchmark"]
            match = _ACCURACY_SUFFIX.match(benchmark)
            base = match["base"] if match else benchmark
            gpu_id, reason = map_gpu_name(name, catalog)
            if gpu_id is None:
                result.skip(MLPERF_INFERENCE, reason, name)
                continue
            if base not in INFERENCE_BENCHMARK_CLASS:
                result.skip(MLPERF_INFERENCE, SKIP_BENCHMARK, base)
                continue
            if "maxq" in row["system"].lower():
                result.skip(MLPERF_INFERENCE, SKIP_POWER, "MaxQ (energy-tuned) system")
                continue
            if row["framework"].startswith("MLCommons"):
                result.skip(MLPERF_INFERENCE, SKIP_REFERENCE_CODE, row["framework"])
                continue
            if index in copies:
                result.skip(MLPERF_INFERENCE, SKIP_SAME_RUN, benchmark)
                continue
            count = positive_int(row["accelerator_count"])
            if count is None or not row["result"]:
                result.skip(MLPERF_INFERENCE, SKIP_NO_VALUE, row["system"])
                continue
            table = f"mlperf-inference {row['round']} {row['division']} {benchmark} "
            result.measurements.append(
                Measurement(
                    dataset=MLPERF_INFERENCE,
                    table_id=table + row["scenario"],
                    workload_class=INFERENCE_BENCHMARK_CLASS[base],
                    workload=f"{benchmark} {row['scenario']}",
                    gpu_id=gpu_id,
                    gpus_per_system=count,
                    precision=row["precision"] or None,
                    value=float(row["result"]) / count,
                    unit=f"{row['result_unit']} per accelerator (derived)",
                    derived=True,
                    system=f"{row['submitter']} {row['system']}",
                    submitter=row["submitter"],
                )
            )
    return result
