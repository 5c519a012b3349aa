"""Lambda's runs as benchmark measurements: the model's own training data (in-sample)."""

from __future__ import annotations

from shared.perfmodel.benchmark_sources.measurement import (
    LAMBDA_IN_SAMPLE,
    TRAINING_CV,
    TRAINING_NLP,
    LoadResult,
    Measurement,
)


def load_lambda_in_sample() -> LoadResult:
    """Lambda's fp16 runs (the model's own training data): an in-sample sanity check only."""
    from shared.perfmodel.lambda_data import WORKLOAD_FAMILY, load_runs

    LAMBDA_FAMILY_CLASS = {"cv": TRAINING_CV, "nlp": TRAINING_NLP}

    result = LoadResult()
    for run in load_runs():
        result.rows_read[LAMBDA_IN_SAMPLE] += 1
        if run.precision != "fp16":
            result.skip(LAMBDA_IN_SAMPLE, "fp32 column (the /recommend default is fp16)", "")
            continue
        result.measurements.append(
            Measurement(
                dataset=LAMBDA_IN_SAMPLE,
                table_id=run.generation,
                workload_class=LAMBDA_FAMILY_CLASS[WORKLOAD_FAMILY[run.workload]],
                workload=run.workload,
                gpu_id=run.gpu_id,
                gpus_per_system=run.num_gpu,
                precision=run.precision,
                value=run.throughput / run.num_gpu,
                unit="items/s per GPU" + (" (derived)" if run.num_gpu > 1 else ""),
                derived=run.num_gpu > 1,
                system=f"{run.num_gpu}x {run.gpu_id}",
            )
        )
    return result
