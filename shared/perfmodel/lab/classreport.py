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
from shared.perfmodel.lab.classreport_rounds import FIFTH_ROUND, FOURTH_ROUND, SIXTH_ROUND, left_out
from shared.perfmodel.lab.classreport_served import served_lines
from shared.perfmodel.lab.pair_scores import Scored, Summary, percent, summarize
from shared.perfmodel.lab.pairs import GPU_PAIR, SCALING_PAIR
from shared.perfmodel.lab.report_text import report_text

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
        FOURTH_ROUND,
        "",
        FIFTH_ROUND,
        "",
        SIXTH_ROUND,
        "",
        report_text("seventh_round"),
        "",
        *served_lines(evaluation),
        "## Why the unmet targets are unmet",
        "",
        "- training-nlp: the largest held-out errors are differences that no spec in the "
        "catalog carries. In MLPerf Training v5.1 Llama 2 70B LoRA, 8 GB300 GPUs are 1.6x "
        "as fast per GPU as 8 B300 (catalog FP8 rates 5.0 and 4.5 PFLOPS, 1400 vs 1100 W: "
        "the power term gives part of it); the precision a submission trained at is not "
        "stated (NVIDIA's GB300 results may use FP4), and the model keeps FP8 for every "
        "Blackwell. In v5.0 the MI325X systems, AMD's own among them, are 1.33x the MI300X "
        "ones with identical peak rates (6.0 vs 5.3 TB/s, 256 vs 192 GB, 1000 vs 750 W); "
        "the power term and the memory batch factor give about 1.1x of it, not 1.33x. "
        "On Llama 2 70B LoRA the Blackwell GPUs run 2.1-2.4x the "
        "H200 (the FP8 ratio) while on RetinaNet (v5.0, 32 GPUs) the GB200 runs at the "
        "H200's speed (1.04x), and the two classes share one Blackwell offset (separate "
        "ones did worse "
        "held out, see above). In v5.1 Llama 3.1 8B the MI355X is 1.2x slower than B200 "
        "against a 12 % higher FP8 rate. Fitting such gaps would mean an offset per GPU "
        "or submitter, which the model does not have by design.",
        "- training on GPUs not in the fit (LOGO p90): the tail is the same GPUs (see the "
        "list under the targets table): held out, H200 has only H100's Hopper offset and "
        "a spec sheet that promises more bandwidth, while on Llama 2 70B LoRA it runs "
        "near the MI325X (0.9-1.0x) where the model says 1.4-1.5x; GB300, GB200, B200 and the "
        "MI300X/MI325X pair carry the gaps above.",
        "- llm-serving: the tail (p90) is still the L40S, missed in opposite directions. On "
        "Llama 2 70B in v5.0, 8 H100 SXM are 9-10x 8 L40S per GPU; the model said 4.6x "
        "and, with an 8-card PCIe all-reduce through host memory (15), says 6x. On GPT-J "
        "in v4.0, which fits one card, the L40S runs 2.7-3.3x the RTX 4090 (CTuning's "
        "submissions, not NVIDIA's) and "
        "0.6x the H100 NVL, where the model says 1.9x and 0.42x: faster than its specs "
        "say, and a power limit would push the other way. No spec-based term fixes both; "
        "an L40S or submitter offset would, and the model has none by design. Then "
        "Mixtral on B200 (2.05x H200 measured, 2.33x modelled, at the FP4 the model "
        "assumes for Blackwell; the submission's precision is not stated, and FP8 instead "
        "did worse held out, round five). Memory for the KV cache at serving batches "
        "helped only in its third form (18): the batch that fills the split the nominal "
        "batch picks; the two earlier forms did not help held-out tables.",
        "- llm-prefill: one table (llama.cpp PR #4766: RTX 3090 against Tesla P40, three "
        "pp512 quantisations run on both). The other bundled prompt-processing rows (llama.cpp PR "
        "#6017, #19378, geerlingguy issues #40 and #46) each hold one GPU, so they give no "
        "within-table ratio; held out, the table leaves nothing to fit prefill on, and the "
        "P40 (no tensor cores; llama.cpp runs its quantised prompts on int8 DP4A kernels, "
        "which the catalog does not rate) is predicted at its FP32 rate. The criterion "
        "is reported as not measurable rather than tuned to three pairs. The team's raw "
        "benchmark folder holds no prompt-processing table beyond the bundled ones "
        "(checked for `calibrated-2026.12.3`), and llmperf's time to first token is not "
        "prefill-bound (round six). Measuring this class needs a second table of "
        "prompt-processing rates of several GPUs run with one build and settings (for "
        "example llama.cpp's CUDA scoreboard of pp512 results), which is not bundled.",
        "",
    ]
    load = load_all(include_in_sample=False)
    described = {id(r.m) for r in prepare(load.measurements, training_base)}
    lines += left_out(load, [m for m in load.measurements if id(m) not in described])
    return "\n".join(lines)


def write_report(out: Path, evaluation: Evaluation) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(evaluation))
    return out
