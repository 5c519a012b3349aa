"""MLPerf Training closed results: per-GPU training throughput from the run times."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    MLPERF_TRAINING,
    SKIP_BENCHMARK,
    SKIP_DUPLICATE,
    SKIP_NO_VALUE,
    SKIP_OTHER_UNIT,
    SKIP_POWER,
    TRAINING_CV,
    TRAINING_NLP,
    LoadResult,
    Measurement,
    positive_int,
    read_rows,
)

# MLPerf Training benchmark -> class. maskrcnn is a CNN detector like ssd/retinanet. The
# others (rnnt speech, dlrm recommenders, minigo RL, gnn/rgat graphs, stable_diffusion and
# flux1 diffusion training) fall outside the classes and are counted as skipped.
TRAINING_BENCHMARK_CLASS: dict[str, str] = {
    "resnet": TRAINING_CV,
    "ssd": TRAINING_CV,
    "retinanet": TRAINING_CV,
    "maskrcnn": TRAINING_CV,
    "unet3d": TRAINING_CV,
    "bert": TRAINING_NLP,
    "gpt3": TRAINING_NLP,
    "llama2_70b_lora": TRAINING_NLP,
    "llama31_8b": TRAINING_NLP,
    "llama31_405b": TRAINING_NLP,
}
WORK_UNIT_FACTOR = 100.0
# MLPerf Training frameworks written independently of the GPU vendors' libraries.
INDEPENDENT_FRAMEWORKS = ("tinygrad",)
# A stated board power this far from the catalog TDP is a different operating point
# (e.g. Dell's 500 W A100 vs the catalog's 400 W); the model predicts stock cards.
POWER_TOLERANCE = 0.15
_WATTS = re.compile(r"(\d+(?:\.\d+)?)\s*W\b")


def _stated_power_differs(row: dict[str, str], tdp_w: int) -> bool:
    match = _WATTS.search(row.get("power_limit_as_stated", ""))
    return match is not None and abs(float(match.group(1)) / tdp_w - 1) > POWER_TOLERANCE


def load_mlperf_training(catalog: Catalog) -> LoadResult:
    """Per-GPU training throughput: converged work / unscaled run time / accelerators.

    The olympic mean of the run times is used, not the official score: the RCP scaling
    factor in the score is a convergence penalty, not throughput.
    """
    result = LoadResult()
    rows = read_rows("mlperf-training", "mlperf_training_closed_available.csv")
    typical_work = _typical_work(rows)
    for row in rows:
        result.rows_read[MLPERF_TRAINING] += 1
        name, benchmark = row["accelerator_model_name"], row["benchmark"]
        if row["duplicate_of"].strip():
            result.skip(MLPERF_TRAINING, SKIP_DUPLICATE, row["duplicate_of"].strip())
            continue
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(MLPERF_TRAINING, reason, name)
            continue
        if benchmark not in TRAINING_BENCHMARK_CLASS:
            result.skip(MLPERF_TRAINING, SKIP_BENCHMARK, benchmark)
            continue
        if row["power_thermal_flags"].strip() or _stated_power_differs(
            row, catalog.by_id[gpu_id].tdp_w
        ):
            detail = row["power_thermal_flags"] or f"{name} at {row['power_limit_as_stated']}"
            result.skip(MLPERF_TRAINING, SKIP_POWER, detail)
            continue
        count = positive_int(row["accelerator_count"])
        work, minutes = row["converged_at_olympic_mean"], row["olympic_mean_min"]
        if count is None or not work or not minutes or float(minutes) <= 0:
            result.skip(MLPERF_TRAINING, SKIP_NO_VALUE, f"{row['system']} {benchmark}")
            continue
        if _other_unit(float(work), typical_work[(row["round"], benchmark)]):
            result.skip(MLPERF_TRAINING, SKIP_OTHER_UNIT, f"{row['system']} {benchmark}: {work}")
            continue
        table_id = f"mlperf-training {row['round']} {row['division']} {benchmark}"
        independent = row["framework"].strip().lower().startswith(INDEPENDENT_FRAMEWORKS)
        if independent:
            # Its own table: a framework written apart from the vendors' libraries is
            # 20-40x slower on the same GPU, a software gap no GPU ratio should absorb.
            table_id += f" ({row['framework'].split(',')[0].strip()})"
        result.measurements.append(
            Measurement(
                dataset=MLPERF_TRAINING,
                table_id=table_id,
                workload_class=TRAINING_BENCHMARK_CLASS[benchmark],
                workload=benchmark,
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=None,
                value=float(work) / float(minutes) / count,
                unit=f"{row['converged_at_unit']}/min per accelerator (derived)",
                derived=True,
                system=f"{row['submitter']} {row['system']}",
                submitter=row["submitter"],
                independent_framework=independent,
            )
        )
    return result


def _typical_work(rows: list[dict[str, str]]) -> dict[tuple[str, str], float]:
    """Median converged amount per round and benchmark (one convergence target each)."""
    amounts: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        try:
            amount = float(row["converged_at_olympic_mean"])
        except ValueError:
            continue
        amounts[(row["round"], row["benchmark"])].append(amount)
    return {key: statistics.median(values) for key, values in amounts.items()}


def _other_unit(work: float, typical: float) -> bool:
    """True when a converged amount is 100x off its benchmark's typical one: every
    submission trains to the same target, so it was logged in another unit (epochs
    instead of samples) and its rate is not comparable."""
    return not typical / WORK_UNIT_FACTOR <= work <= typical * WORK_UNIT_FACTOR
