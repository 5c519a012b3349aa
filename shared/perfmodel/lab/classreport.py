"""The workload-class model's cross-validation report (docs/model/classes.md): targets,
errors by class and data set, fitted parameters and what was looked at; the fit and its
evaluation are `classfit.py` and `classeval.py`."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_rows import prepare
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION
from shared.perfmodel.lab.benchmarks import load_all
from shared.perfmodel.lab.classeval import Evaluation, product_class, quantile, training_base
from shared.perfmodel.lab.classreport_acceptance import acceptance, acceptance_lines
from shared.perfmodel.lab.classreport_rounds import left_out
from shared.perfmodel.lab.classreport_served import served_lines
from shared.perfmodel.lab.pair_scores import Scored, Summary, percent, summarize
from shared.perfmodel.lab.pairs import GPU_PAIR, SCALING_PAIR
from shared.perfmodel.lab.report_text import report_text
from shared.perfmodel.prefill import PREFILL_VERSION, load_prefill_params

LOTO, LOGO = "leave one table out", "leave one GPU out"
_NOT_MEASURABLE = "not measurable: one table, nothing left to fit on when it is held out"


@dataclass(frozen=True, slots=True)
class ClassRow:
    protocol: str
    workload_class: str
    dataset: str
    summary: Summary


def summaries(evaluation: Evaluation) -> list[ClassRow]:
    out = []
    for protocol, scored in ((LOTO, evaluation.loto), (LOGO, evaluation.logo)):
        pairs = [s for s in scored if s.pair.kind == GPU_PAIR]
        for klass in bm.WORKLOAD_CLASSES:
            chosen = [s for s in pairs if s.pair.workload_class == klass]
            for dataset in sorted({s.pair.dataset for s in chosen}) + ["all"]:
                subset = [s for s in chosen if dataset in ("all", s.pair.dataset)]
                summary = summarize(klass, dataset, subset)
                if summary is not None:
                    out.append(ClassRow(protocol, klass, dataset, summary))
    return out


def targets(evaluation: Evaluation) -> list[tuple[str, str, bool]]:
    """The issue's done-when criteria on the leave-one-table-out errors. A class with one
    table has nothing left to fit it on when that table is held out (and no other
    table's errors to set its interval): its criteria are reported as not measurable."""
    rows = []
    loto = [s for s in evaluation.loto if s.pair.kind == GPU_PAIR]
    tables = _tables_by_class(loto)
    for klass in bm.WORKLOAD_CLASSES:
        items = [s for s in loto if s.pair.workload_class == klass]
        if not items:
            continue
        med = percent(statistics.median(s.model_log_error for s in items))
        base = percent(statistics.median(s.baseline_log_error for s in items))
        limit = min(0.12, 0.6 * base)
        if klass == bm.LLM_DECODE:
            limit = min(limit, 0.15)
        measured = f"{med:.1%} ({len(items)} pairs)"
        if tables[klass] < 2:
            measured += f"; {_NOT_MEASURABLE}"
        rows.append(
            (
                f"{klass}: LOTO median <= {limit:.1%} (12 %, 0.6x baseline {base:.1%})",
                measured,
                med <= limit and tables[klass] >= 2,
            )
        )
    for klass, cov in sorted(evaluation.coverage.items()):
        text = f"{cov:.0%}" if not math.isnan(cov) else f"none: {_NOT_MEASURABLE}"
        rows.append((f"{klass}: 80 % interval holds 70-90 %", text, 0.7 <= cov <= 0.9))
    training = [
        s
        for s in evaluation.logo
        if s.pair.kind == GPU_PAIR and s.pair.workload_class in (bm.TRAINING_CV, bm.TRAINING_NLP)
    ]
    if training:
        p90 = percent(quantile([s.model_log_error for s in training], 0.9))
        rows.append(
            ("training on GPUs not in the fit (LOGO): p90 <= 30 %", f"{p90:.1%}", p90 <= 0.3)
        )
    return rows


def training_logo_tail(evaluation: Evaluation, top: int = 8) -> list[tuple[str, int]]:
    """The GPUs of the leave-one-GPU-out training pairs above the p90, most frequent first."""
    training = [
        s
        for s in evaluation.logo
        if s.pair.kind == GPU_PAIR and s.pair.workload_class in (bm.TRAINING_CV, bm.TRAINING_NLP)
    ]
    if not training:
        return []
    p90 = quantile([s.model_log_error for s in training], 0.9)
    counts: Counter[str] = Counter()
    for s in training:
        if s.model_log_error > p90:
            counts.update((s.pair.gpu_a, s.pair.gpu_b))
    return counts.most_common(top)


def _tables_by_class(scored: Sequence[Scored]) -> dict[str, int]:
    """Held-out tables with pairs, by benchmark class and by product class."""
    keys: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for s in scored:
        keys[s.pair.workload_class].add(s.pair.table_key)
        keys[product_class(s.pair.workload_class)].add(s.pair.table_key)
    return defaultdict(int, {k: len(v) for k, v in keys.items()})


def render(evaluation: Evaluation) -> str:
    today = datetime.now(UTC).date().isoformat()
    lines = [
        "# Performance model v2: workload classes, cross-validated",
        "",
        f"Generated by `gpu-advisor model report` on {today} for model `{CLASS_MODEL_VERSION}`; "
        "do not edit by hand. Fit: `shared/perfmodel/lab/classfit.py`; physics: "
        "`shared/perfmodel/inference.py`; this report: `shared/perfmodel/lab/classreport.py`.",
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
    lines += ["", *acceptance_lines(acceptance(evaluation))]
    tail = training_logo_tail(evaluation)
    if tail:
        lines += [
            "",
            "GPUs in the training LOGO tail (pairs above its p90, count of pairs): "
            + ", ".join(f"{gpu} {n}" for gpu, n in tail)
            + ".",
        ]
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
    scaling = [s for s in evaluation.loto if s.pair.kind == SCALING_PAIR]
    lines += ["", "## Multi-GPU scaling (leave one table out)", ""]
    lines += [
        "| class | pairs | median | p90 | linear median | linear p90 |",
        "|---|---|---|---|---|---|",
    ]
    for klass in bm.WORKLOAD_CLASSES:
        items = [s for s in scaling if s.pair.workload_class == klass]
        if items:
            scale = summarize(klass, "all", items)
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
        "- share of the reference's time in large matrix multiplies, by MLPerf Training "
        "transformer benchmark (the rest like Lambda's transformer mix; one share for the "
        "LLM benchmarks, which the product's training-llm class uses; its nlp class uses "
        "0): " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(fitted.gemm_share.items())),
        "- matrix work per generated token beyond its own (tokens' worth), by MLPerf "
        "Inference LLM: "
        + ", ".join(f"{k} {v:.1f}" for k, v in sorted(fitted.extra_compute.items())),
        "- exponent of a server module's W per peak TFLOPS against its architecture's "
        "best-fed module, on the matrix-multiply time (training: the benchmark's large "
        "matrix multiplies and the Lambda mix's matrix share; the product applies it to "
        f"the latter): {fitted.power_exponent:.2f}",
        "- exponent of an HBM datacenter part's W per peak TFLOPS against its architecture's "
        "best-fed HBM part, add-in cards included, on the vision classes' matrix time: "
        f"{fitted.vision_power_exponent:.2f}",
        "- 80 % interval half-widths (log): "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(evaluation.half_width.items())),
        "",
        report_text("rounds"),
        "",
        *served_lines(evaluation),
        _unmet_text(),
        "",
    ]
    load = load_all(include_in_sample=False)
    described = {id(r.m) for r in prepare(load.measurements, training_base)}
    lines += left_out(load, [m for m in load.measurements if id(m) not in described])
    return "\n".join(lines)


def _unmet_text() -> str:
    """The unmet targets' prose, with the served prefill model's held-out medians and
    coverages from its parameters' record."""
    figures = load_prefill_params().evaluation
    loto, logo = figures.get(LOTO, {}), figures.get(LOGO, {})
    return report_text(
        "unmet",
        prefill_version=PREFILL_VERSION,
        prefill_loto=f"{loto.get('median', math.nan):.1%}",
        prefill_loto_coverage=f"{loto.get('coverage', math.nan):.0%}",
        prefill_logo=f"{logo.get('median', math.nan):.1%}",
        prefill_logo_coverage=f"{logo.get('coverage', math.nan):.0%}",
    )


def write_report(out: Path, evaluation: Evaluation) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(evaluation))
    return out
