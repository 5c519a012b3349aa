"""Fit the data-parallel scaling, evaluate it on its fixed splits and write what it found.

Writes `docs/model/scaling.md` (every figure names its split) and the shipped parameters
`shared/perfmodel/params/<DATA_PARALLEL_VERSION>.json` (shares fitted on every fitted
Lambda row; the interval from leave-one-workload-out errors only). The prose is
`shared/perfmodel/lab/report_text/scaling.md`; this script computes what fills it.

Run: .venv/bin/python -m bench.scaling_report
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path

from shared.catalog.specs import load_catalog
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.data_parallel import (
    DATA_PARALLEL_VERSION,
    PARAMS_PATH,
    REFERENCE_MEMORY_GB,
    DataParallelParams,
    load_data_parallel_params,
)
from shared.perfmodel.features import data_precision
from shared.perfmodel.lab import data_parallel_fit as dp
from shared.perfmodel.lab.report_text import report_text
from shared.perfmodel.lambda_data import GEN_V1, REFERENCE_GPU, load_runs
from shared.perfmodel.llm_training import LlmTraining
from shared.perfmodel.memory import FULL
from shared.perfmodel.scaling import interconnect_class

DOC = Path(__file__).resolve().parent.parent / "docs" / "model" / "scaling.md"
TARGET_MEDIAN = 0.08
TARGET_COVERAGE = 0.75
# Builds a buyer compares: 8 GPUs in one machine, by task (default workloads).
EXAMPLES = (
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "rtx-6000-ada",
    "a100-80gb-sxm4",
    "h100-pcie",
    "h100-sxm5",
)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _line(label: str, errors: Sequence[float], half_width: float | None) -> str:
    s = dp.summary(errors, half_width)
    coverage = _pct(s["coverage"]) if "coverage" in s else "-"
    return f"| {label} | {int(s['n'])} | {_pct(s['median'])} | {_pct(s['p90'])} | {coverage} |"


def _mlperf_eta(rows: Sequence[dp.ScalingRow]) -> list[float]:
    """The efficiencies per doubling fitted on MLPerf that the product served until
    calibrated-2026.12.6, scored on the same rows (fitted elsewhere: out of sample)."""
    eta = ClassModel("calibrated-2026.12.6").params.fitted.eta
    return dp.eta_errors([r for r in rows if r.workload not in dp.NOT_FITTED], eta)


def _gpu_insights(params: DataParallelParams) -> tuple[list[str], list[str], list[float]]:
    """GPU-Insights pairs through the product's path: the class model's speed of the card
    and the reference step scaled by the catalog card's memory. Returns the table's rows,
    the pairs not scored and why, and the log errors."""
    model, catalog = ClassModel(), load_catalog()
    scored, skipped = dp.gpu_insights_rows()
    lines, errors = [], []
    for workload, gpu_id, precision, count, measured in scored:
        gpu = catalog.by_id[gpu_id]
        single = model.predict_task(gpu, "cv", precision)
        if single is None:
            skipped.append(f"{workload} on {gpu_id}: no {precision} prediction")
            continue
        step = params.workload_step(
            gpu, workload, data_precision(precision), single.single.relative_throughput
        )
        predicted = params.speedup(gpu, step, count)
        errors.append(math.log(predicted / measured))
        lines.append(
            f"| {workload} | {gpu_id} | {interconnect_class(gpu)} | {precision} | {count} | "
            f"{measured:.2f} | {predicted:.2f} | {_pct(abs(predicted / measured - 1))} |"
        )
    return lines, skipped, errors


def _batch_rule() -> list[float]:
    """How well 'batch = reference batch x memory / 24 GB' gives Lambda's own batches."""
    runs = [r for r in load_runs() if r.generation == GEN_V1 and r.num_gpu == 1 and r.batch_size]
    ref = {(r.workload, r.precision): r.batch_size for r in runs if r.gpu_id == REFERENCE_GPU}
    catalog = load_catalog()
    errors = []
    for r in runs:
        base, own = ref.get((r.workload, r.precision)), r.batch_size
        if base and own and r.workload in dp.WORKLOAD_SHAPES and r.gpu_id != REFERENCE_GPU:
            memory = catalog.by_id[r.gpu_id].memory_gb
            errors.append(math.log(base * memory / REFERENCE_MEMORY_GB / own))
    return errors


def _examples(model: ClassModel) -> list[str]:
    catalog = load_catalog()
    lines = [
        "| GPU | link | cv (ResNet-50) | nlp (BERT-large) | llm-training 8B LoRA | 8B full |",
        "|---|---|---|---|---|---|",
    ]
    for gpu_id in EXAMPLES:
        gpu = catalog.by_id[gpu_id]
        cells = []
        for task, training in (
            ("cv", None),
            ("nlp", None),
            ("llm-training", None),
            ("llm-training", LlmTraining(8.0, FULL)),
        ):
            result = model.predict_task(gpu, task, "fp16", count=8, training=training)
            cells.append("-" if result is None else f"{result.multi_gpu_speedup:.2f}")
        lines.append(f"| {gpu_id} | {interconnect_class(gpu)} | " + " | ".join(cells) + " |")
    return lines


def _worst(pairs: Sequence[tuple[dp.ScalingRow, float]]) -> list[str]:
    ranked = sorted(pairs, key=lambda p: -abs(dp.log_error(p[1], p[0].efficiency)))
    return [
        f"| {r.workload} | {r.gpu_id} | {r.link} | {r.precision} | {r.count} | "
        f"{r.efficiency:.2f} | {predicted:.2f} |"
        for r, predicted in ranked[:8]
    ]


def main() -> None:
    params = dp.fit_params()
    PARAMS_PATH.write_text(json.dumps(params.to_json(), indent=2, sort_keys=True) + "\n")
    load_data_parallel_params.cache_clear()
    rows = dp.lambda_rows()
    fitted = [r for r in rows if r.workload not in dp.NOT_FITTED]
    workload_pairs = dp.held_out_rows(rows, lambda r: r.workload)
    by_workload = [dp.log_error(p, r.efficiency) for r, p in workload_pairs]
    by_gpu = dp.held_out(rows, lambda r: r.gpu_id)
    half = params.half_width
    in_sample = dp.in_sample(fitted, params.share)
    txl = dp.in_sample([r for r in rows if r.workload in dp.NOT_FITTED], params.share)
    gi_lines, gi_skipped, gi_errors = _gpu_insights(params)
    batch = _batch_rule()
    met = (
        dp.summary(by_workload)["median"] <= TARGET_MEDIAN
        and dp.summary(by_gpu)["median"] <= TARGET_MEDIAN
    )
    held_out = [
        _table_header(),
        _line("leave one workload out, data-parallel model", by_workload, half),
        _line("leave one GPU out, data-parallel model", by_gpu, half),
        _line(
            "leave one workload out, eta per link",
            dp.eta_baseline(rows, lambda r: r.workload),
            None,
        ),
        _line("leave one GPU out, eta per link", dp.eta_baseline(rows, lambda r: r.gpu_id), None),
        _line("MLPerf eta (served until 2026.12.6)", _mlperf_eta(rows), None),
        _line("in-sample (all rows fitted; labelled)", in_sample, half),
    ]
    by_workload_table = [
        "| workload | rows | median | p90 | coverage |",
        "|---|---|---|---|---|",
    ]
    for workload in sorted({r.workload for r in fitted}):
        mine = [dp.log_error(p, r.efficiency) for r, p in workload_pairs if r.workload == workload]
        by_workload_table.append(_line(workload, mine, half))
    text = report_text(
        "scaling",
        version=DATA_PARALLEL_VERSION,
        interval_factor=f"{math.exp(half):.3f}",
        fitted_shares=", ".join(f"{k} {v:.3f}" for k, v in params.share.items()),
        held_out_table="\n".join(held_out),
        met="met" if met else "unmet",
        by_workload_table="\n".join(by_workload_table),
        largest_errors_table="\n".join(
            [
                "| workload | GPU | link | precision | GPUs | measured | predicted |",
                "|---|---|---|---|---|---|---|",
                *_worst(workload_pairs),
            ]
        ),
        transformer_xl_table="\n".join(
            [_table_header(), _line("Transformer-XL base and large (all rows)", txl, half)]
        ),
        gpu_insights_table="\n".join(
            [
                "| workload | GPU | link | precision | GPUs | measured speed-up | predicted "
                "| error |",
                "|---|---|---|---|---|---|---|---|",
                *gi_lines,
            ]
        ),
        not_scored="; ".join(gi_skipped),
        gpu_insights_summary_table="\n".join(
            [_table_header(), _line("GPU-Insights ResNet-50 pairs", gi_errors, half)]
        ),
        batch_rows=len(batch),
        batch_median_error=_pct(statistics.median(abs(math.expm1(e)) for e in batch)),
        examples_table="\n".join(_examples(ClassModel())),
    )
    DOC.write_text(text + "\n")
    print(f"wrote {DOC} and {PARAMS_PATH}")


def _table_header() -> str:
    return "| split / predictor | rows | median | p90 | coverage |\n|---|---|---|---|---|"


if __name__ == "__main__":
    main()
