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
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import classfit as cf
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.benchmarks import load_all
from shared.perfmodel.calibrated import CalibratedModel
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import Row, gpu_of, prepare, row_key, table_of
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION, params_path
from shared.perfmodel.pair_predictors import PerGpu, Predictor
from shared.perfmodel.pair_scores import Scored, Summary, percent, score_pairs, summarize
from shared.perfmodel.pairs import GPU_PAIR, SCALING_PAIR, build_groups, gpu_pairs, scaling_pairs
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
    full: FittedParams
    loto: list[Scored]
    logo: list[Scored]
    half_width: dict[str, float]
    # Coverage of the 80 % interval by class, each table scored with widths from others.
    coverage: dict[str, float]
    rows: int


def _predictor(params: FittedParams, by_key: dict[tuple[str, ...], Row]) -> Predictor:
    ref = load_catalog().by_id["rtx-3090"]

    def predict(gpu: GpuSpec, klass: str, count: int, workload: str) -> PerGpu | None:
        row = by_key.get(row_key(gpu.id, klass, count, workload))
        if row is None:
            return None
        return PerGpu(math.exp(cf.predict_log(row, params, ref)))

    return predict


def _fit_without(args: tuple[Sequence[Row], str, str, FittedParams]) -> FittedParams:
    rows, kind, held, warm = args
    key: Callable[[Row], str] = table_of if kind == "table" else gpu_of
    return cf.fit([r for r in rows if key(r) != held], warm=warm)


def evaluate(workers: int = 2, measurements: Sequence[bm.Measurement] | None = None) -> Evaluation:
    """Full fit, then one refit per held-out table and per held-out GPU (in `workers`
    processes: about 110 fits of a few seconds each on the bundled data)."""
    if measurements is None:
        measurements = load_all(include_in_sample=False).measurements
    rows = prepare(measurements, training_base)
    by_key = {
        row_key(r.m.gpu_id, r.m.workload_class, r.m.gpus_per_system, r.m.workload): r for r in rows
    }
    full = cf.fit(rows)
    tables = sorted({table_of(r) for r in rows})
    gpus = sorted({gpu_of(r) for r in rows})
    jobs = [(rows, "table", t, full) for t in tables] + [(rows, "gpu", g, full) for g in gpus]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        fits = list(pool.map(_fit_without, jobs))
    loto: list[Scored] = []
    for table, params in zip(tables, fits[: len(tables)], strict=True):
        held = [m for m in measurements if f"{m.dataset}|{m.table_id}" == table]
        groups = build_groups(held)
        pairs = gpu_pairs(groups) + scaling_pairs(groups)
        loto += score_pairs(pairs, _predictor(params, by_key))[0]
    all_groups = build_groups(measurements)
    all_pairs = gpu_pairs(all_groups)
    logo: list[Scored] = []
    for gpu_id, params in zip(gpus, fits[len(tables) :], strict=True):
        pairs = [p for p in all_pairs if gpu_id in (p.gpu_a, p.gpu_b)]
        logo += score_pairs(pairs, _predictor(params, by_key))[0]
    half_width, coverage = _intervals([s for s in loto if s.pair.kind == GPU_PAIR])
    return Evaluation(full, loto, logo, half_width, coverage, len(rows))


def _q(errors: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(errors), q))


def _intervals(scored: Sequence[Scored]) -> tuple[dict[str, float], dict[str, float]]:
    by_class: dict[str, list[Scored]] = defaultdict(list)
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
        p90 = percent(_q([s.model_log_error for s in training], 0.9))
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
    p90 = _q([s.model_log_error for s in training], 0.9)
    counts: Counter[str] = Counter()
    for s in training:
        if s.model_log_error > p90:
            counts.update((s.pair.gpu_a, s.pair.gpu_b))
    return counts.most_common(top)


_NOT_MEASURABLE = "not measurable: one table, nothing left to fit on when it is held out"


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
        "transformer benchmark (the rest like Lambda's transformer mix; the product uses 0): "
        + ", ".join(f"{k} {v:.2f}" for k, v in sorted(fitted.gemm_share.items())),
        "- matrix work per generated token beyond its own (tokens' worth), by MLPerf "
        "Inference LLM: "
        + ", ".join(f"{k} {v:.1f}" for k, v in sorted(fitted.extra_compute.items())),
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
        "A third round (`calibrated-2026.12.2`), again chosen by reading per-table residuals "
        "and comparing leave-one-table-out medians per class (looked-at numbers; each step "
        "is measured on top of the ones before it). Adopted: (7) each MLPerf Training "
        "transformer benchmark spends a fitted share of the reference's time in large "
        "matrix multiplies that scale with the matrix rate alone (FP8 where the hardware "
        "has it), the rest like Lambda's transformer mix, as a roofline sum of the two "
        "times (logit prior centred on one half, sd 2; the product keeps share 0): "
        "training-nlp 17.8 % -> 16.6 %, training-cv 7.3 % -> 7.9 % (the two share the "
        "architecture offsets), training LOGO p90 45.5 % -> 41.8 %; (8) each MLPerf "
        "Inference LLM carries a fitted amount of matrix work per generated token (its "
        "tokens/s counts generated tokens of whole requests, so the prompts' prefill is "
        "inside; prior 2 tokens' worth, sd 1 in log): llm-serving 28.7 % -> 17.7 %, "
        "llm-decode 6.1 % -> 4.7 % and decode-serving 13.2 % -> 12.6 % (they share the "
        "matrix efficiency and offsets); GPT-J fits far above the prior (see the fitted "
        "parameters): its rows behave as entirely matrix-bound (H100 and H200, same FP8 "
        "rate, run it at the same speed), more than prompt lengths alone would explain, so "
        "the term describes the benchmark, not the GPUs; (9) a data rule: llmperf runs of "
        "one database two months apart are separate tables, since the serving engine's "
        "version is not recorded and the provenance notes that the RunPod templates of "
        "2025-01 and 2025-03 may differ: decode-serving 12.6 % -> 9.3 %, 173 -> 153 pairs "
        "(the 20 pairs no longer formed, H100, H200, L40 and RTX 4090 of 2025-03 against "
        "the cards of 2025-01, were among the worst predicted: this rule was chosen after "
        "seeing them); (10) an NVLink bridge joins two cards: a tensor-parallel group "
        "of more than two NVL cards all-reduces over PCIe (llm-serving 17.7 % -> 16.4 %, "
        "llm-decode 4.9 % -> 4.3 %, decode-serving 9.3 % -> 9.9 %); (11) an interconnect "
        "class's efficiency is fitted only where a GPU of it was measured at two or more "
        "system sizes in one table, else it is Lambda's measured one: this followed a "
        "product check, not a held-out number (after (7) the no-peer-to-peer efficiency, "
        "set only by tinygrad's 6-GPU RTX 4090 against other GPUs, ran to the 1.0 cap, "
        "i.e. eight GeForce cards scaling perfectly); training-nlp 16.6 % -> 16.7 %, LOGO "
        "p90 41.8 % -> 41.7 %.",
        "",
        "Tried in the third round and dropped: a matrix share per CNN training benchmark "
        "too (training-cv 7.9 % -> 11.4 %); tinygrad tables in 16 bits, since tinygrad has "
        "no FP8 path (training-nlp 16.6 % -> 16.8 %, LOGO p90 41.8 % -> 42.0 %); AMD OAM "
        "modules (Infinity Fabric mesh) in the NVSwitch class (training-nlp 16.8 % -> "
        "16.5 %, LOGO p90 42.0 % -> 44.5 %); removing the Lambda batch-size bonus from "
        "MLPerf Training rows, whose batch is fixed by the rules (training-nlp 16.6 % -> "
        "17.8 %, LOGO p90 41.8 % -> 40.5 %; with tinygrad in 16 bits: 17.5 %, 42.1 %); "
        "BERT in 16 bits, FP8 only for the LLM benchmarks (training-nlp 16.6 % -> 20.9 %); each "
        "submission's own GPUs per node in the scaling term (training-nlp 16.8 % "
        "unchanged, LOGO p90 42.0 % -> 42.9 %); soft-L1 (robust) data residuals before (8) "
        "(decode-serving 13.2 % -> 12.5 %, llm-serving 28.7 % -> 30.1 %, diffusion 7.4 % "
        "-> 7.9 %: mixed); llmperf's prompts (565 in, 180 out per request) as matrix work "
        "of its decode steps, before (8) (decode-serving 13.2 % -> 16.4 %); each model's "
        "published key/value heads (grouped-query attention) instead of the 1/4 default "
        "(llm-serving 17.7 % -> 22.2 %: GPT-J's full-head cache at the nominal batch no "
        "longer fits the small cards, 61 -> 48 pairs); Lambda's power-limited clock factor "
        "on the LLM matrix rate (llm-serving 17.7 % -> 18.5 %).",
        "",
        "The step numbers above come from refitting only the changed model group from a "
        "cold start; the tables of this report start every refit from the full fit, as "
        "the protocol always has, and land in slightly different optima of the same model "
        "(training LOGO p90: 41.7 % in the step measurement, the value in the targets "
        "table here). The full fit saw the held-out table or GPU, so in a fit with local "
        "optima its starting point could carry some of it into the refit; here it does "
        "not flatter the numbers (cold starts give the lower p90), and the protocol is "
        "kept as it was.",
        "",
        "## Why the unmet targets are unmet",
        "",
        "- training-nlp: the largest held-out errors are differences that no spec in the "
        "catalog carries. In MLPerf Training v5.1 Llama 2 70B LoRA, 8 GB300 GPUs are 1.6x "
        "as fast per GPU as 8 B300 (catalog FP8 rates 5.0 and 4.5 PFLOPS); "
        "the precision a submission trained at is not stated (NVIDIA's GB300 results may "
        "use FP4), and the model keeps FP8 for every Blackwell. In v5.0 the MI325X "
        "systems, AMD's own among them, are 1.33x the MI300X ones with identical peak "
        "rates (MI325X: 6.0 vs 5.3 TB/s, 1000 vs 750 W). In v5.1 Llama 3.1 8B the MI355X "
        "is 1.2x slower than B200 against a 12 % higher FP8 rate. Fitting such gaps "
        "would mean an offset per GPU or submitter, which the model does not have by "
        "design.",
        "- training on GPUs not in the fit (LOGO p90): the tail is the same GPUs (see the "
        "list under the targets table): held out, H200 has only H100's Hopper offset and "
        "a spec sheet that promises more bandwidth, and GB300, GB200, B200 and the "
        "MI300X/MI325X pair carry the gaps above.",
        "- llm-serving: most remaining error is the L40S on Llama 2 70B in v5.0 (8 H100 "
        "SXM are 9-10x 8 L40S per GPU, the model says 4.6x: a 70B model split over PCIe "
        "cards, the model's all-reduce over PCIe does not cover it) and Mixtral on B200 "
        "(2.05x H200 measured, 2.75x modelled, at the FP4 the "
        "model assumes for Blackwell; the submission's precision is not stated).",
        "- llm-prefill: one table (llama.cpp PR #4766: RTX 3090 against Tesla P40, three "
        "pp512 quantisations run on both). The other bundled prompt-processing rows (llama.cpp PR "
        "#6017, #19378, geerlingguy issues #40 and #46) each hold one GPU, so they give no "
        "within-table ratio; held out, the table leaves nothing to fit prefill on, and the "
        "P40 (no tensor cores; llama.cpp runs its quantised prompts on int8 DP4A kernels, "
        "which the catalog does not rate) is predicted at its FP32 rate. The criterion "
        "is reported as not measurable rather than tuned to three pairs.",
        "",
    ]
    return "\n".join(lines)


def write_report(out: Path, evaluation: Evaluation) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(evaluation))
    return out
