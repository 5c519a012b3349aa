"""Fit the workload-class model, cross-validate it and write its parameters and report.

Leave-one-table-out (LOTO): each table is predicted by a fit on all other tables.
Leave-one-GPU-out (LOGO): pairs with a GPU are predicted by a fit without any of that
GPU's measurements. The 80 % interval of a class is q80 of its LOTO pair errors / sqrt 2
(a pair's error combines two GPUs' errors); its coverage is checked on each table with the
half-width computed from the other tables' errors.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import benchmarks as bm
from shared.perfmodel import classfit as cf
from shared.perfmodel import validation as val
from shared.perfmodel.calibrated import CalibratedModel
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION, params_path
from shared.perfmodel.workloads import CLASS_FAMILY, LLM_SERVING

INTERVAL_QUANTILE = 0.8
# Benchmark class -> the product's workload class (decode at 64 concurrent requests is
# decode at a serving batch).
PRODUCT_CLASS = {bm.DECODE_SERVING: LLM_SERVING}
LOTO, LOGO = "leave one table out", "leave one GPU out"


def training_base(gpu: GpuSpec, klass: str, precision: str) -> float | None:
    prediction = CalibratedModel().predict(gpu, CLASS_FAMILY[klass], precision)
    return None if prediction is None else prediction.relative_throughput


def product_class(benchmark_class: str) -> str:
    return PRODUCT_CLASS.get(benchmark_class, benchmark_class)


@dataclass(frozen=True, slots=True)
class Evaluation:
    full: cf.FittedParams
    loto: list[val.Scored]
    logo: list[val.Scored]
    half_width: dict[str, float]
    # Coverage of the 80 % interval by class, each table scored with widths from others.
    coverage: dict[str, float]
    rows: int


def _predictor(params: cf.FittedParams, by_key: dict[tuple[str, ...], cf.Row]) -> val.Predictor:
    ref = load_catalog().by_id["rtx-3090"]

    def predict(gpu: GpuSpec, klass: str, count: int, workload: str) -> val.PerGpu | None:
        row = by_key.get(cf.row_key(gpu.id, klass, count, workload))
        if row is None:
            return None
        return val.PerGpu(math.exp(cf.predict_log(row, params, ref)))

    return predict


def _fit_without(args: tuple[Sequence[cf.Row], str, str, cf.FittedParams]) -> cf.FittedParams:
    rows, kind, held, warm = args
    key: Callable[[cf.Row], str] = cf.table_of if kind == "table" else cf.gpu_of
    return cf.fit([r for r in rows if key(r) != held], warm=warm)


def evaluate(workers: int = 2, measurements: Sequence[bm.Measurement] | None = None) -> Evaluation:
    """Full fit, then one refit per held-out table and per held-out GPU (in `workers`
    processes: about 110 fits of a few seconds each on the bundled data)."""
    if measurements is None:
        measurements = bm.load_all(include_in_sample=False).measurements
    rows = cf.prepare(measurements, training_base)
    by_key = {
        cf.row_key(r.m.gpu_id, r.m.workload_class, r.m.gpus_per_system, r.m.workload): r
        for r in rows
    }
    full = cf.fit(rows)
    tables = sorted({cf.table_of(r) for r in rows})
    gpus = sorted({cf.gpu_of(r) for r in rows})
    jobs = [(rows, "table", t, full) for t in tables] + [(rows, "gpu", g, full) for g in gpus]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        fits = list(pool.map(_fit_without, jobs))
    loto: list[val.Scored] = []
    for table, params in zip(tables, fits[: len(tables)], strict=True):
        held = [m for m in measurements if f"{m.dataset}|{m.table_id}" == table]
        groups = val.build_groups(held)
        pairs = val.gpu_pairs(groups) + val.scaling_pairs(groups)
        loto += val.score_pairs(pairs, _predictor(params, by_key))[0]
    all_groups = val.build_groups(measurements)
    all_pairs = val.gpu_pairs(all_groups)
    logo: list[val.Scored] = []
    for gpu_id, params in zip(gpus, fits[len(tables) :], strict=True):
        pairs = [p for p in all_pairs if gpu_id in (p.gpu_a, p.gpu_b)]
        logo += val.score_pairs(pairs, _predictor(params, by_key))[0]
    half_width, coverage = _intervals([s for s in loto if s.pair.kind == val.GPU_PAIR])
    return Evaluation(full, loto, logo, half_width, coverage, len(rows))


def _q(errors: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(errors), q))


def _intervals(scored: Sequence[val.Scored]) -> tuple[dict[str, float], dict[str, float]]:
    by_class: dict[str, list[val.Scored]] = defaultdict(list)
    for s in scored:
        by_class[product_class(s.pair.workload_class)].append(s)
    half_width, coverage = {}, {}
    for klass, items in by_class.items():
        errors = [s.model_log_error for s in items]
        half_width[klass] = _q(errors, INTERVAL_QUANTILE) / math.sqrt(2)
        # Each table's pairs against the width the other tables' errors give (once per table).
        widths = {}
        for table in {s.pair.table_key for s in items}:
            others = [o.model_log_error for o in items if o.pair.table_key != table]
            if others:
                widths[table] = _q(others, INTERVAL_QUANTILE)
        inside = [
            s.model_log_error <= widths[s.pair.table_key]
            for s in items
            if s.pair.table_key in widths
        ]
        coverage[klass] = sum(inside) / len(inside) if inside else float("nan")
    return half_width, coverage


def write_params(evaluation: Evaluation, path: Path | None = None) -> Path:
    target = path or params_path(CLASS_MODEL_VERSION)
    half = dict(evaluation.half_width)
    # Classes without held-out pairs take the widest measured width.
    for klass in ("llm-prefill",):
        half.setdefault(klass, max(half.values()))
    data = {
        "version": CLASS_MODEL_VERSION,
        "calibration": (
            "MLPerf Training and Inference, llmperf, llama.cpp and geerlingguy tables "
            "(shared/perfmodel/data/benchmarks), ratios within tables only; training base: "
            "Lambda (calibrated-2026.11.3)"
        ),
        "fitted": evaluation.full.to_json(),
        "half_width": half,
        "evaluation": {
            "interval": "80 % (q80 of leave-one-table-out pair errors / sqrt 2)",
            "coverage_by_class": evaluation.coverage,
            "rows": evaluation.rows,
        },
    }
    target.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return target


@dataclass(frozen=True, slots=True)
class ClassRow:
    protocol: str
    workload_class: str
    dataset: str
    summary: val.Summary


def summaries(evaluation: Evaluation) -> list[ClassRow]:
    out = []
    for protocol, scored in ((LOTO, evaluation.loto), (LOGO, evaluation.logo)):
        pairs = [s for s in scored if s.pair.kind == val.GPU_PAIR]
        for klass in bm.WORKLOAD_CLASSES:
            chosen = [s for s in pairs if s.pair.workload_class == klass]
            for dataset in sorted({s.pair.dataset for s in chosen}) + ["all"]:
                subset = [s for s in chosen if dataset in ("all", s.pair.dataset)]
                summary = val.summarize(klass, dataset, subset)
                if summary is not None:
                    out.append(ClassRow(protocol, klass, dataset, summary))
    return out


def targets(evaluation: Evaluation) -> list[tuple[str, str, bool]]:
    """The issue's done-when criteria on the leave-one-table-out errors."""
    rows = []
    loto = [s for s in evaluation.loto if s.pair.kind == val.GPU_PAIR]
    for klass in bm.WORKLOAD_CLASSES:
        items = [s for s in loto if s.pair.workload_class == klass]
        if not items:
            continue
        med = val.percent(statistics.median(s.model_log_error for s in items))
        base = val.percent(statistics.median(s.baseline_log_error for s in items))
        limit = min(0.12, 0.6 * base)
        if klass == bm.LLM_DECODE:
            limit = min(limit, 0.15)
        rows.append(
            (
                f"{klass}: LOTO median <= {limit:.1%} (12 %, 0.6x baseline {base:.1%})",
                f"{med:.1%} ({len(items)} pairs)",
                med <= limit,
            )
        )
    for klass, cov in sorted(evaluation.coverage.items()):
        rows.append((f"{klass}: 80 % interval holds 70-90 %", f"{cov:.0%}", 0.7 <= cov <= 0.9))
    training = [
        s
        for s in evaluation.logo
        if s.pair.kind == val.GPU_PAIR
        and s.pair.workload_class in (bm.TRAINING_CV, bm.TRAINING_NLP)
    ]
    if training:
        p90 = val.percent(_q([s.model_log_error for s in training], 0.9))
        rows.append(
            ("training on GPUs not in the fit (LOGO): p90 <= 30 %", f"{p90:.1%}", p90 <= 0.3)
        )
    return rows


def render(evaluation: Evaluation) -> str:
    today = datetime.now(UTC).date().isoformat()
    lines = [
        "# Performance model v2: workload classes, cross-validated",
        "",
        f"Generated by `gpu-advisor model report` on {today} for model `{CLASS_MODEL_VERSION}`; "
        "do not edit by hand. Fit: `shared/perfmodel/classfit.py`; physics: "
        "`shared/perfmodel/inference.py`; this report: `shared/perfmodel/classreport.py`.",
        "",
        f"{evaluation.rows} benchmark measurements; only ratios within one table are used. "
        "Errors are exp(|ln(predicted ratio / measured ratio)|) - 1 over GPU pairs of one "
        "group (table, workload, precision, system size). Baseline: memory-bandwidth ratio.",
        "",
        "## Targets (issue: performance model v2)",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    lines += [f"| {t} | {m} | {'yes' if ok else 'no'} |" for t, m, ok in targets(evaluation)]
    lines += [
        "",
        "## Errors by class and data set",
        "",
        "| protocol | class | data set | pairs | tables | median | p90 | base median | "
        "base p90 | order | base order |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summaries(evaluation):
        s = row.summary
        lines.append(
            f"| {row.protocol} | {row.workload_class} | {row.dataset} | {s.pairs} | {s.tables} "
            f"| {s.median:.1%} | {s.p90:.1%} | {s.baseline_median:.1%} | "
            f"{s.baseline_p90:.1%} | {s.order:.2f} | {s.baseline_order:.2f} |"
        )
    scaling = [s for s in evaluation.loto if s.pair.kind == val.SCALING_PAIR]
    lines += ["", "## Multi-GPU scaling (leave one table out)", ""]
    lines += [
        "| class | pairs | median | p90 | linear median | linear p90 |",
        "|---|---|---|---|---|---|",
    ]
    for klass in bm.WORKLOAD_CLASSES:
        items = [s for s in scaling if s.pair.workload_class == klass]
        if items:
            scale = val.summarize(klass, "all", items)
            assert scale is not None
            lines.append(
                f"| {klass} | {scale.pairs} | {scale.median:.1%} | {scale.p90:.1%} | "
                f"{scale.baseline_median:.1%} | {scale.baseline_p90:.1%} |"
            )
    fitted = evaluation.full
    lines += [
        "",
        "## Fitted parameters (all tables)",
        "",
        "- efficiency per doubling of GPUs in a node: "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(fitted.eta.items()))
        + f"; per doubling of nodes (InfiniBand): {fitted.network_eta:.3f}",
        f"- achieved share of peak matrix rate (LLM): {fitted.matmul_efficiency:.2f}; per-step "
        "overhead of a 32-layer model: "
        + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in sorted(fitted.step_overhead_s.items())),
        "- architecture offsets (log, Ampere = 0): "
        + "; ".join(
            f"{group}: " + ", ".join(f"{a} {v:+.2f}" for a, v in sorted(archs.items()))
            for group, archs in sorted(fitted.arch_log.items())
        ),
        "- 80 % interval half-widths (log): "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(evaluation.half_width.items())),
        "",
        "## What was looked at while choosing the model's form",
        "",
        "The class physics (bandwidth + overhead for decode, roofline shares for vision, the "
        "Lambda roofline plus offsets for training) was written before any v2 error was "
        "computed. Three changes were made after looking at the leave-one-table-out medians "
        "per class of earlier versions, so these numbers are not fully untouched: (1) a "
        "CPU-offload term for models larger than the card was tried and removed (it made "
        "decode worse: 15.4 % -> 15.6 %, p90 31 % -> 58 %); (2) the tensor-parallel "
        "all-reduce got a bandwidth term besides latency (llm-serving 38.8 % -> 28.9 %); "
        "(3) priors were put on the LLM matrix efficiency and per-step overhead after the "
        "vLLM overhead fitted to an implausible 32 ms (decode-serving 29 % -> 18 %).",
        "",
        "A second round of changes, after reading the residuals of the fit above per table "
        "(and again comparing leave-one-table-out medians, so these too are looked-at "
        "numbers): (4) each software stack got its own architecture offsets around the LLM "
        "group's, same prior (llm-decode 13.5 % -> 5.8 %, decode-serving 23.0 % -> 13.2 %, "
        "MLPerf llm-serving 25.7 % -> 28.7 %); (5) the training offsets also apply to GPUs "
        "Lambda measured (training-cv 11.4 % -> 7.3 %); (6) two data rules in the MLPerf "
        "Training loader: a converged amount 100x off its benchmark's typical one is a "
        "unit error and is skipped (one Baidu BERT row logged 1 epoch instead of samples), "
        "and tinygrad submissions form their own tables (a framework written apart from "
        "the vendors' libraries, 20-40x slower on the same GPU). Tried and dropped, since "
        "they did not help held-out tables: a per-table overhead offset, serving batches "
        "set by free memory with the best tensor-parallel split, separate training offsets "
        "for cv and nlp, and a network efficiency per MLPerf benchmark. The interval width "
        "is computed from held-out errors only.",
        "",
    ]
    return "\n".join(lines)


def write_report(out: Path, evaluation: Evaluation) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(evaluation))
    return out
