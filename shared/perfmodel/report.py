"""The accuracy report: markdown tables and a predicted-vs-measured plot."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.measurement import (
    CNN_INFERENCE,
    DECODE_SERVING,
    DIFFUSION,
    LAMBDA_IN_SAMPLE,
    LLAMACPP,
    LLM_DECODE,
    LLM_PREFILL,
    LLM_SERVING,
    MLPERF_INFERENCE,
    MLPERF_TRAINING,
    OUT_OF_SAMPLE_DATASETS,
    TRAINING_CV,
    TRAINING_NLP,
    WORKLOAD_CLASSES,
)
from shared.perfmodel.evaluation import CvPoint, Summary, all_logo_points, all_summaries
from shared.perfmodel.fitting import parameter_count
from shared.perfmodel.lambda_data import ratio_points
from shared.perfmodel.pair_predictors import CLASS_TASK, MODEL_PRECISION, class_family
from shared.perfmodel.pair_scores import Scored, percent, summarize
from shared.perfmodel.pair_scores import Summary as Summary_
from shared.perfmodel.pairs import GPU_PAIR, SCALING_PAIR
from shared.perfmodel.params import MODEL_VERSION, load_params
from shared.perfmodel.scaling import NVSWITCH, interconnect_class
from shared.perfmodel.validation import Validation, run_validation

TARGET_MEDIAN, TARGET_P90, TARGET_BASELINE_FRACTION = 0.10, 0.30, 0.5
REPORT_HEADER = (
    "| family | precision | GPUs | median err | p90 err | Spearman "
    "| baseline median | baseline p90 | baseline Spearman | targets |\n"
    "|---|---|---|---|---|---|---|---|---|---|\n"
)


def meets_targets(s: Summary) -> list[str]:
    missed = []
    if s.median > TARGET_MEDIAN:
        missed.append("median")
    if s.p90 > TARGET_P90:
        missed.append("p90")
    if s.median > TARGET_BASELINE_FRACTION * s.baseline_median:
        missed.append("half-baseline")
    return missed


def summary_table(summaries: list[Summary]) -> str:
    rows = []
    for s in summaries:
        missed = meets_targets(s)
        verdict = "met" if not missed else "missed: " + ", ".join(missed)
        rows.append(
            f"| {s.family} | {s.precision} | {s.count} | {s.median:.1%} | {s.p90:.1%} "
            f"| {s.spearman:.2f} | {s.baseline_median:.1%} | {s.baseline_p90:.1%} "
            f"| {s.baseline_spearman:.2f} | {verdict} |"
        )
    return REPORT_HEADER + "\n".join(rows) + "\n"


def points_table(points: list[CvPoint]) -> str:
    lines = [
        "| GPU | family | precision | data | measured | predicted | error "
        "| before sibling corr. | bandwidth-only |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in sorted(points, key=lambda q: (q.family, q.precision, q.measured)):
        lines.append(
            f"| {p.gpu_id} | {p.family} | {p.precision} | {p.generation} | {p.measured:.2f} "
            f"| {p.predicted:.2f} | {p.predicted / p.measured - 1:+.0%} "
            f"| {p.uncorrected / p.measured - 1:+.0%} | {p.baseline:.2f} |"
        )
    return "\n".join(lines) + "\n"


def plot(points: list[CvPoint], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display, and no backend warnings under pytest
    from matplotlib import pyplot as plt
    from matplotlib import ticker

    fig, ax = plt.subplots(figsize=(6, 6))
    for family, marker in (("cv", "o"), ("nlp", "s")):
        for precision, color in (("fp16", "tab:blue"), ("fp32", "tab:orange")):
            chosen = [p for p in points if p.family == family and p.precision == precision]
            xs = [p.measured for p in chosen]
            ax.scatter(
                xs,
                [p.predicted for p in chosen],
                marker=marker,
                color=color,
                label=f"{family} {precision}",
            )
    ax.scatter(
        [p.measured for p in points],
        [p.baseline for p in points],
        marker="x",
        color="grey",
        alpha=0.5,
        label="bandwidth-only baseline",
    )
    ax.plot([0.3, 7], [0.3, 7], color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(ticker.FixedLocator([0.3, 0.5, 1, 2, 3, 5]))
        axis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        axis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("measured throughput / RTX 3090")
    ax.set_ylabel("predicted (leave-one-GPU-out)")
    ax.set_title(f"{MODEL_VERSION}: held-out GPUs")
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def scaling_table() -> str:
    scaling = load_params().scaling
    lines = [
        "| interconnect | family | eta per doubling | 2 GPUs | 4 GPUs | 8 GPUs |",
        "|---|---|---|---|---|---|",
    ]
    for link, table in sorted(scaling["eta"].items()):
        for family, eta in sorted(table.items()):
            cells = " | ".join(f"{n * eta**k:.2f}x" for n, k in ((2, 1), (4, 2), (8, 3)))
            lines.append(f"| {link} | {family} | {eta:.3f} | {cells} |")
    return "\n".join(lines) + "\n"


def parameter_table() -> str:
    params = load_params()
    lines = [
        "| family | fitted parameters | workload points (both generations) | power threshold w0 |",
        "|---|---|---|---|",
    ]
    for family, fit in sorted(params.families.items()):
        count = sum(1 for p in ratio_points() if p.family == family)
        legacy = len(fit.legacy_table_offset)
        extra = f", {legacy} 2022-table offsets" if legacy else ""
        lines.append(
            f"| {family} | {parameter_count(fit)} (4 share logits, 1 power threshold, "
            f"{len(fit.arch_log_factor) - 1} architecture offsets{extra}) | {count} "
            f"| {fit.power_threshold:.2f} W per SM per GHz |"
        )
    return (
        "\n".join(lines)
        + "\n\nPlus, not fitted by least squares: the batch footprint m0 per workload and "
        "precision (a line through Lambda's batch sizes; it only matters for nlp, the cv batch "
        "exponent is 0), and the sibling correction (a "
        "shrunken mean of the measured GPUs' residuals, rebuilt inside every fold).\n"
    )


def write_report(directory: Path, intro: str = "") -> list[Summary]:
    points = all_logo_points()
    summaries = all_summaries(points)
    directory.mkdir(parents=True, exist_ok=True)
    plot(points, directory / "predicted_vs_measured.png")
    body = (
        f"{intro}\n## Leave-one-GPU-out accuracy ({MODEL_VERSION})\n\n"
        + summary_table(summaries)
        + "\n## Fitted parameters\n\n"
        + parameter_table()
        + "\n## Multi-GPU scaling (fitted on Lambda v1)\n\n"
        + scaling_table()
        + "\n## Every held-out point\n\n"
        + points_table(points)
    )
    (directory / "report.md").write_text(body, "utf-8")
    return summaries


# --- Out-of-sample validation (`gpu-advisor model validate`) -----------------------------

VALIDATION_COMMAND = "gpu-advisor model validate"
# The issue's figures for the current model on published benchmarks, for comparison.
ISSUE_PAIRS, ISSUE_MEDIAN, ISSUE_BASELINE_MEDIAN = 226, 0.19, 0.21
V2_TARGET_MEDIAN, V2_TARGET_BASELINE_FRACTION = 0.12, 0.6
V2_TARGET_DECODE_MEDIAN, V2_TARGET_UNFITTED_P90 = 0.15, 0.30
V2_COVERAGE_RANGE = (0.70, 0.90)
METHOD_TEXT = """\
**Measurements.** One per source row: (table, workload class, workload, catalog GPU, GPUs per
system, precision if stated, per-GPU value, unit). MLPerf Training per-GPU throughput = olympic
mean of the epochs/samples/tokens to converge / olympic mean run time (minutes, before the RCP
scaling factor, which is a convergence penalty, not speed) / accelerators. MLPerf Inference per-GPU
= system result / accelerators. llmperf: output tokens/s of the whole 64-request run. llama.cpp: the
baseline column of the PR table (master, or the default layer split). geerlingguy: README eval rate
(tokens/s) and the issue excerpts' llama-bench rows. Accelerator names are mapped to catalog ids by
an explicit table in `benchmarks.py` (`GPU_NAME_MAP`; names it does not list fall back to
`shared.catalog.aliases.resolve_alias`); names with no catalog id are skipped and counted.

**Tables.** Only ratios inside one table are formed. MLPerf Training: round + division + benchmark.
MLPerf Inference: round + division + benchmark (with its accuracy target) + scenario; datacenter and
edge systems of one benchmark and scenario share a table. llmperf: one results database. llama.cpp:
one PR comment. geerlingguy README: one model section on one host (rows of one model on different
hosts ran different builds); issue excerpts: one issue.

**Groups and pairs.** Inside a table, GPUs are compared on the same workload, stated precision and
system size (a *group*); a GPU's value in a group is the median per-GPU value of its systems (five
vendors' 8x H100 boxes count once). Every two GPUs of a group form one pair, ratio a / b. No pair
crosses tables or system sizes; MLPerf has few 1-GPU systems, so most MLPerf pairs are
equal-size multi-GPU systems (mostly 8 GPUs). Scaling pairs: one GPU at each larger size vs its
smallest size in the same table and workload.

**Predictions.** Model: what /recommend shows: the registered model's `predict(gpu, family,
"fp16")` with the family of the class's /recommend task (table below), times
`multi_gpu_speedup(gpu, n, family) / n` for an n-GPU system (so pairs of PCIe and NVSwitch systems
include the model's scaling). fp16 is /recommend's default precision; most sources do not state
one (MLPerf closed allows FP8/INT8, and FP4 on Blackwell), and the model has no FP8 for Ampere.
Baseline: the ratio of `memory_bandwidth_gbs` (Dettmers' rule), no scaling. Error of a pair
= |ln(predicted ratio / measured ratio)|, shown as exp(error) - 1 (a factor of 1.25 either way is
25 %); medians and p90s are taken on the log errors. The model's own report
(`report.md`) uses |predicted / measured - 1| instead, which is smaller for under-predictions.

**Intervals.** The model states a per-GPU interval relative to the RTX 3090: +-10 % where Lambda
measured the GPU, else exp(+-q) with q the p90 of its leave-one-GPU-out |log error|, widened for
extrapolation (nominally a 90 % interval). A pair's interval is the ratio of the opposite ends,
[low_a / high_b, high_a / low_b], log half-width h_a + h_b (it holds whenever both GPUs are inside
their own intervals), and, as a tighter reading that assumes independent errors, the quadrature
sqrt(h_a^2 + h_b^2). Coverage = share of pairs whose measured ratio lies inside.

**Held out.** The current model was fitted on Lambda's benchmarks only; none of these tables reached
its fit, so every table is already held out and no cross-validation is needed for it. A model fitted
to these tables (v2) must be scored with `validation.leave_one_table_out`, which refits without each
table before predicting that table's pairs.

**What was looked at.** The table, group and pair definitions, the fp16 / family mapping, the power
rule (skip MaxQ, energy-measured and stated board power more than 15 % from the catalog TDP), the
-99.9 copy rule and the class mapping were fixed before any model error was computed. Two exclusions
were made after looking at the first results, and are listed here because of that: (1) MLCommons
reference implementations (python/C++ reference code, written for correctness): one 1x RTX 4090
table of resnet50 Offline ranged from 2,264 (reference) to 45,267 (NVIDIA code) samples/s, and the
median made the RTX 4090 look 3x slower than an L4; 10 rows. (2) llmperf TTFT as a prefill
measure: in `llmperf_cloud_single` the H200's mean TTFT (0.36 s) is twice the RTX 3090's (0.17 s),
so under a burst of 64 requests TTFT measures scheduling, not prefill; before it was dropped the
model had 134 % and the baseline 124 % median error on it (no class left that favours either). No
model parameter or formula was changed; nothing here was used to choose the model's form.
"""
COMPARISON_TEXT = """\
Why the counts and errors differ from the issue's 226 pairs (its exact pair list is not in the
repository, so it cannot be reproduced row for row): (1) here a GPU has one value per group (the
median of its systems), so five 8x H100 submissions make one pair with 8x H200, not five;
(2) equal-size multi-GPU systems are paired, and the model's multi-GPU speed-up is part of its
prediction; (3) MLPerf Inference tables are split by accuracy target (-99 / -99.9, exact copies
dropped) and scenario, and MaxQ, CTS, 500 W and energy-measured systems and MLCommons reference
implementations are skipped; (4) the catalog now has B300, GB200, GB300, MI325X, MI355X and the
RTX PRO 6000 Server Edition, so their rows are paired; (5) llama.cpp contributes only the
RTX 3090 vs P40 rows of PR #4766 (the other excerpts have one GPU each). The issue's qualitative
findings are checked in the class table above (CNN and diffusion inference vs LLM inference).
"""
ISSUE_DATASETS = (MLPERF_TRAINING, MLPERF_INFERENCE, LLAMACPP)
VALIDATION_HEADER = (
    "| class | data set | pairs | tables | median | p90 | base median | base p90 "
    "| order | base order | Spearman | base Spearman | groups | coverage (sum) "
    "| coverage (quadr.) |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def validation_row(s: Summary_) -> str:
    return (
        f"| {s.label} | {s.dataset} | {s.pairs} | {s.tables} | {s.median:.1%} | {s.p90:.1%} "
        f"| {s.baseline_median:.1%} | {s.baseline_p90:.1%} | {s.order:.2f} "
        f"| {s.baseline_order:.2f} | {_num(s.spearman)} | {_num(s.baseline_spearman)} "
        f"| {s.spearman_groups} | {_pct(s.coverage_sum)} | {_pct(s.coverage_quadrature)} |"
    )


def validation_summaries(
    v: Validation, kind: str = GPU_PAIR, datasets: tuple[str, ...] = OUT_OF_SAMPLE_DATASETS
) -> list[Summary_]:
    """Per class: one row per data set, plus the class total when it has several."""
    rows: list[Summary_] = []
    for cls in WORKLOAD_CLASSES:
        parts = []
        for dataset in datasets:
            s = v.summary(cls, dataset, v.select(kind, [dataset], [cls]))
            if s is not None:
                parts.append(s)
        rows.extend(parts)
        if len(parts) > 1:
            total = v.summary(cls, "all", v.select(kind, datasets, [cls]))
            if total is not None:
                rows.append(total)
    total = v.summary("all classes", "all", v.select(kind, datasets))
    if total is not None:
        rows.append(total)
    return rows


def _table(rows: list[Summary_]) -> str:
    return VALIDATION_HEADER + "\n".join(validation_row(s) for s in rows) + "\n"


def _targets_section(v: Validation) -> str:
    lines = [
        "| target (issue: performance model v2) | current model | met |",
        "|---|---|---|",
    ]
    for cls in WORKLOAD_CLASSES:
        s = v.summary(cls, "all", v.select(classes=[cls]))
        if s is None:
            continue
        limit = min(V2_TARGET_MEDIAN, V2_TARGET_BASELINE_FRACTION * s.baseline_median)
        ok = s.median <= limit
        lines.append(
            f"| {cls}: median <= 12 % and <= 0.6x baseline ({limit:.1%}) | {s.median:.1%} "
            f"(baseline {s.baseline_median:.1%}, {s.pairs} pairs) | {'yes' if ok else 'no'} |"
        )
    decode = v.summary("llm-decode", "all", v.select(classes=[LLM_DECODE]))
    if decode is not None:
        ok = decode.median <= V2_TARGET_DECODE_MEDIAN
        lines.append(
            f"| llm-decode median <= 15 % | {decode.median:.1%} | {'yes' if ok else 'no'} |"
        )
    everything = v.summary("all", "all", v.select())
    if everything is not None and everything.coverage_sum is not None:
        low, high = V2_COVERAGE_RANGE
        ok = low <= everything.coverage_sum <= high
        lines.append(
            f"| 80 % interval holds 70-90 % of held-out pairs | {everything.coverage_sum:.1%} "
            f"(stated interval is p90-based, nominally 90 %; quadrature "
            f"{_pct(everything.coverage_quadrature)}) | {'yes' if ok else 'no'} |"
        )
    training = v.outside_fit(v.select(classes=[TRAINING_CV, TRAINING_NLP]))
    t = v.summary("training", "all", training)
    if t is not None:
        ok = t.p90 <= V2_TARGET_UNFITTED_P90
        lines.append(
            f"| training on GPUs not in the fit: p90 <= 30 % | {t.p90:.1%} ({t.pairs} pairs) "
            f"| {'yes' if ok else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def _skips_section(v: Validation) -> str:
    load = v.load
    kept: Counter[str] = Counter(m.dataset for m in load.measurements)
    lines = [
        "| data set | rows read | measurements kept |",
        "|---|---|---|",
    ]
    for dataset in (*OUT_OF_SAMPLE_DATASETS, LAMBDA_IN_SAMPLE):
        lines.append(f"| {dataset} | {load.rows_read[dataset]} | {kept[dataset]} |")
    lines += ["", "| data set | skipped because | rows | examples |", "|---|---|---|---|"]
    details: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for skip, count in load.skipped.items():
        details[(skip.dataset, skip.reason)][skip.detail] += count
    for (dataset, reason), count in sorted(load.skipped_by_reason().items()):
        top = details[(dataset, reason)].most_common(6)
        examples = "; ".join(f"{d} ({n})" for d, n in top if d)
        more = len(details[(dataset, reason)]) - len(top)
        examples += f"; +{more} more" if more > 0 else ""
        lines.append(f"| {dataset} | {reason} | {count} | {examples.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _tables_section(v: Validation) -> str:
    pairs: Counter[tuple[str, str]] = Counter(
        s.pair.table_key for s in v.scored if s.pair.kind == GPU_PAIR
    )
    scaling: Counter[tuple[str, str]] = Counter(
        s.pair.table_key for s in v.scored if s.pair.kind != GPU_PAIR
    )
    gpus: dict[tuple[str, str], set[str]] = defaultdict(set)
    classes: dict[tuple[str, str], set[str]] = defaultdict(set)
    for g in v.groups:
        gpus[(g.dataset, g.table_id)].update(g.values)
        classes[(g.dataset, g.table_id)].add(g.workload_class)
    lines = [
        "| data set | table | class | GPUs | GPU pairs | scaling pairs |",
        "|---|---|---|---|---|---|",
    ]
    for key in sorted(gpus):
        if not pairs[key] and not scaling[key]:
            continue
        lines.append(
            f"| {key[0]} | {key[1]} | {', '.join(sorted(classes[key]))} "
            f"| {', '.join(sorted(gpus[key]))} | {pairs[key]} | {scaling[key]} |"
        )
    unused = sorted(k for k in gpus if not pairs[k] and not scaling[k])
    lines.append(
        f"\n{len(unused)} more tables hold measurements but no pair (one GPU at one size): "
        + ", ".join(f"`{t}`" for _, t in unused)
        + "."
    )
    return "\n".join(lines) + "\n"


def _interconnect_rows(v: Validation) -> list[Summary_]:
    """Training pairs split by whether a PCIe card (no NVSwitch) is in the pair."""
    catalog = load_catalog()

    def has_pcie(s: Scored) -> bool:
        ids = (s.pair.gpu_a, s.pair.gpu_b)
        return any(interconnect_class(catalog.by_id[i]) != NVSWITCH for i in ids)

    rows = []
    for kind, label in ((GPU_PAIR, "GPU pairs"), (SCALING_PAIR, "scaling")):
        chosen = v.select(kind, classes=[TRAINING_CV, TRAINING_NLP])
        multi = [s for s in chosen if s.pair.count_a > 1]
        for name, part in (
            ("a non-NVSwitch card in the pair", [s for s in multi if has_pcie(s)]),
            ("NVSwitch cards only", [s for s in multi if not has_pcie(s)]),
        ):
            summary = summarize(f"training {label}", name, part)
            if summary is not None:
                rows.append(summary)
    return rows


def _verdicts(v: Validation) -> str:
    better: list[str] = []
    worse: list[str] = []
    for cls in WORKLOAD_CLASSES:
        s = v.summary(cls, "all", v.select(classes=[cls]))
        if s is None:
            continue
        text = f"{cls} ({s.median:.1%} vs {s.baseline_median:.1%}, {s.pairs} pairs)"
        (better if s.median < s.baseline_median else worse).append(text)
    return (
        "Median error below the bandwidth ratio's: "
        + (", ".join(better) or "none")
        + ". Not below: "
        + (", ".join(worse) or "none")
        + ".\n"
    )


def _worst_section(v: Validation, count: int = 25) -> str:
    lines = [
        "| class | table | workload | GPU a | GPU b | GPUs/system | measured a/b "
        "| model | model err | bandwidth | bandwidth err |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sorted(v.select(), key=lambda x: -x.model_log_error)[:count]:
        p = s.pair
        lines.append(
            f"| {p.workload_class} | {p.table_id} | {p.workload} | {p.gpu_a} | {p.gpu_b} "
            f"| {p.count_a} | {p.measured:.2f} | {s.model:.2f} | {percent(s.model_log_error):.0%} "
            f"| {s.baseline:.2f} | {percent(s.baseline_log_error):.0%} |"
        )
    return "\n".join(lines) + "\n"


def _mapping_section() -> str:
    lines = [
        "| workload class | from | /recommend task | model family | precision |",
        "|---|---|---|---|---|",
    ]
    sources = {
        TRAINING_CV: "MLPerf Training resnet, ssd, retinanet, maskrcnn, unet3d",
        TRAINING_NLP: "MLPerf Training bert, gpt3, llama2_70b_lora, llama31_8b, llama31_405b",
        LLM_PREFILL: "llama.cpp / llama-bench ppN",
        LLM_DECODE: "llama.cpp tgN, geerlingguy single-stream eval rate",
        DECODE_SERVING: "llmperf output tokens/s at 64 concurrent requests",
        LLM_SERVING: "MLPerf Inference llama2-70b(-interactive), llama3.1-405b, mixtral, gptj",
        DIFFUSION: "MLPerf Inference stable-diffusion-xl",
        CNN_INFERENCE: "MLPerf Inference resnet50, retinanet, 3d-unet",
    }
    for cls in WORKLOAD_CLASSES:
        lines.append(
            f"| {cls} | {sources[cls]} | {CLASS_TASK[cls]} | {class_family(cls)} "
            f"| {MODEL_PRECISION} |"
        )
    return "\n".join(lines) + "\n"


def validation_markdown(v: Validation, generated: date) -> str:
    """docs/model/validation.md, from a finished validation run."""
    everything = v.summary("all", "all", v.select())
    issue_like = v.summary("GPU pairs", "MLPerf + llama.cpp", v.select(datasets=ISSUE_DATASETS))
    mlperf_sets = (MLPERF_TRAINING, MLPERF_INFERENCE)
    submitter_rows = []
    for cls in (*WORKLOAD_CLASSES, None):
        classes = None if cls is None else [cls]
        label = cls or "all classes"
        whole = summarize(label, "MLPerf, whole table", v.select(GPU_PAIR, mlperf_sets, classes))
        same = summarize(
            label, "MLPerf, same submitter", v.select(classes=classes, scored=v.submitter_scored)
        )
        submitter_rows += [s for s in (whole, same) if s is not None]
    training = v.outside_fit(v.select(classes=[TRAINING_CV, TRAINING_NLP]))
    training_rows = [
        s
        for s in (
            summarize(
                cls, "GPU outside the fit", [x for x in training if x.pair.workload_class == cls]
            )
            for cls in (TRAINING_CV, TRAINING_NLP)
        )
        if s is not None
    ]
    headline = ""
    if everything is not None:
        headline = (
            f"All out-of-sample GPU pairs: **{everything.pairs} pairs in {everything.tables} "
            f"tables; model median error {everything.median:.1%} (p90 {everything.p90:.1%}) "
            f"vs {everything.baseline_median:.1%} (p90 {everything.baseline_p90:.1%}) for the "
            f"memory-bandwidth ratio.**"
        )
    comparison = ""
    if issue_like is not None:
        comparison = (
            f"The issue reports {ISSUE_PAIRS} pairs from MLPerf Training, MLPerf Inference "
            f"and llama.cpp tables, model median ~{ISSUE_MEDIAN:.0%} vs ~"
            f"{ISSUE_BASELINE_MEDIAN:.0%} for bandwidth. The same sources here give "
            f"{issue_like.pairs} pairs in {issue_like.tables} tables, model median "
            f"{issue_like.median:.1%} (p90 {issue_like.p90:.1%}) vs "
            f"{issue_like.baseline_median:.1%} "
            f"(p90 {issue_like.baseline_p90:.1%})."
        )
    sections = [
        "# Performance model: validation on benchmarks it was not fitted to\n",
        f"Generated by `{VALIDATION_COMMAND}` on {generated.isoformat()} for model "
        f"`{MODEL_VERSION}`; do not edit by hand, rerun the command. Data: "
        "`shared/perfmodel/data/benchmarks/` (see its README.md and each PROVENANCE.md); loader "
        "`shared/perfmodel/benchmarks.py`; evaluation `shared/perfmodel/validation.py`.\n\n",
        "MLPerf is a trademark of MLCommons. Every MLPerf figure below is **derived** "
        "(per-GPU = system result / accelerator count; training throughput = work to converge / "
        "run time), not an official MLPerf result; tables name round, division and benchmark."
        "\n\n",
        "## Summary\n",
        headline + "\n\n",
        _verdicts(v) + "\n",
        comparison + "\n\n" + COMPARISON_TEXT if comparison else "",
        "### The issue's v2 targets, measured on the current model\n",
        _targets_section(v),
        "\n## Method\n",
        METHOD_TEXT,
        "\n### Workload class -> what the model is asked\n",
        _mapping_section(),
        "\n## GPU pairs by workload class and data set\n",
        "Errors are exp(|ln(predicted / measured)|) - 1; `order` = share of pairs whose faster "
        "GPU is predicted; Spearman = mean over groups of >= 3 GPUs (`groups`); coverage = share "
        "of pairs whose measured ratio lies in the model's pair interval (sum or quadrature of "
        "the two GPUs' log half-widths).\n\n",
        _table(validation_summaries(v)),
        "\n## Sensitivity: MLPerf pairs within one submitter\n",
        "Same MLPerf tables, but GPUs are only paired when one submitter ran both (less software "
        "and tuning variation, fewer pairs). Spearman is not shown for subsets of pairs.\n\n",
        _table(submitter_rows),
        "\n## Training on GPUs not in the fit\n",
        "Training pairs where at least one GPU is not among the GPUs Lambda measured (for "
        "those the model returns Lambda's own measurement). Spearman is not shown for subsets "
        "of pairs.\n\n",
        _table(training_rows),
        "\nMulti-GPU training systems, split by the model's interconnect class (GPU pairs of "
        "equal-size systems, and scaling pairs; the model treats AMD Instinct cards as PCIe "
        "P2P).\n\n",
        _table(_interconnect_rows(v)),
        "\n## Multi-GPU scaling pairs\n",
        "The same GPU at a larger system size vs its smallest size in the same table and workload "
        "(measured = per-GPU value at the larger size / at the smaller). Model = its speed-up per "
        "GPU (`registry.multi_gpu_speedup`, beyond 8 GPUs InfiniBand between nodes); baseline = "
        "linear scaling (ratio 1), so its order is always 0.5.\n\n",
        _table(validation_summaries(v, SCALING_PAIR)),
        "\n## In-sample check: Lambda (the model's own training data)\n",
        "Not validation: the model was fitted on these runs and returns Lambda's measured "
        "ratio for Lambda's GPUs. fp16 only (the /recommend default).\n\n",
        _table(
            validation_summaries(v, GPU_PAIR, (LAMBDA_IN_SAMPLE,))
            + validation_summaries(v, SCALING_PAIR, (LAMBDA_IN_SAMPLE,))
        ),
        "\n## Largest model errors\n",
        _worst_section(v),
        "\n## Data: rows read, kept and skipped\n",
        "Each row is counted once, for the first reason that applies (MLPerf Training: "
        "carried-over result, accelerator name, benchmark class, power configuration, missing "
        "value; MLPerf Inference: accelerator name, benchmark class, MaxQ, reference "
        "implementation, -99.9 copy "
        "of a -99 run, missing value).\n\n",
        _skips_section(v),
        "\n## Tables used\n",
        _tables_section(v),
    ]
    return _blank_lines_around_blocks("".join(sections))


def _blank_lines_around_blocks(text: str) -> str:
    """Headings and tables need blank lines around them to render as such."""
    out: list[str] = []
    for line in text.splitlines():
        previous = out[-1] if out else ""
        starts_block = line.startswith("#") or (
            line.startswith("|") and not previous.startswith("|")
        )
        ends_block = previous.startswith("#") or (
            previous.startswith("|") and not line.startswith("|")
        )
        if out and previous and line and (starts_block or ends_block):
            out.append("")
        out.append(line)
    cleaned = "\n".join(out).strip() + "\n"
    while "\n\n\n" in cleaned:
        cleaned = cleaned.replace("\n\n\n", "\n\n")
    return cleaned


def write_validation_report(path: Path, generated: date | None = None) -> Validation:
    result = run_validation()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(validation_markdown(result, generated or date.today()), "utf-8")
    return result
