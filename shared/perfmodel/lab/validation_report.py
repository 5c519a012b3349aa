"""docs/model/validation.md (`gpu-advisor model validate`): the model on benchmarks it was not
fitted to, with the method, the comparison with the issue's figures and every table."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from shared.perfmodel.benchmark_sources.measurement import (
    LAMBDA_IN_SAMPLE,
    LLAMACPP,
    MLPERF_INFERENCE,
    MLPERF_TRAINING,
    TRAINING_CV,
    TRAINING_NLP,
    WORKLOAD_CLASSES,
)
from shared.perfmodel.lab.pair_scores import summarize
from shared.perfmodel.lab.pairs import GPU_PAIR, SCALING_PAIR
from shared.perfmodel.lab.validation import Validation, run_validation
from shared.perfmodel.lab.validation_tables import (
    interconnect_rows,
    mapping_section,
    rows_table,
    skips_section,
    tables_section,
    targets_section,
    validation_summaries,
    verdicts,
    worst_section,
)
from shared.perfmodel.params import MODEL_VERSION

VALIDATION_COMMAND = "gpu-advisor model validate"
# The issue's figures for the current model on published benchmarks, for comparison.
ISSUE_PAIRS, ISSUE_MEDIAN, ISSUE_BASELINE_MEDIAN = 226, 0.19, 0.21
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
        "`shared/perfmodel/lab/benchmarks.py`; evaluation "
        "`shared/perfmodel/lab/validation.py`.\n\n",
        "MLPerf is a trademark of MLCommons. Every MLPerf figure below is **derived** "
        "(per-GPU = system result / accelerator count; training throughput = work to converge / "
        "run time), not an official MLPerf result; tables name round, division and benchmark."
        "\n\n",
        "## Summary\n",
        headline + "\n\n",
        verdicts(v) + "\n",
        comparison + "\n\n" + COMPARISON_TEXT if comparison else "",
        "### The issue's v2 targets, measured on the current model\n",
        targets_section(v),
        "\n## Method\n",
        METHOD_TEXT,
        "\n### Workload class -> what the model is asked\n",
        mapping_section(),
        "\n## GPU pairs by workload class and data set\n",
        "Errors are exp(|ln(predicted / measured)|) - 1; `order` = share of pairs whose faster "
        "GPU is predicted; Spearman = mean over groups of >= 3 GPUs (`groups`); coverage = share "
        "of pairs whose measured ratio lies in the model's pair interval (sum or quadrature of "
        "the two GPUs' log half-widths).\n\n",
        rows_table(validation_summaries(v)),
        "\n## Sensitivity: MLPerf pairs within one submitter\n",
        "Same MLPerf tables, but GPUs are only paired when one submitter ran both (less software "
        "and tuning variation, fewer pairs). Spearman is not shown for subsets of pairs.\n\n",
        rows_table(submitter_rows),
        "\n## Training on GPUs not in the fit\n",
        "Training pairs where at least one GPU is not among the GPUs Lambda measured (for "
        "those the model returns Lambda's own measurement). Spearman is not shown for subsets "
        "of pairs.\n\n",
        rows_table(training_rows),
        "\nMulti-GPU training systems, split by the model's interconnect class (GPU pairs of "
        "equal-size systems, and scaling pairs; the model treats AMD Instinct cards as PCIe "
        "P2P).\n\n",
        rows_table(interconnect_rows(v)),
        "\n## Multi-GPU scaling pairs\n",
        "The same GPU at a larger system size vs its smallest size in the same table and workload "
        "(measured = per-GPU value at the larger size / at the smaller). Model = its speed-up per "
        "GPU (`registry.multi_gpu_speedup`, beyond 8 GPUs InfiniBand between nodes); baseline = "
        "linear scaling (ratio 1), so its order is always 0.5.\n\n",
        rows_table(validation_summaries(v, SCALING_PAIR)),
        "\n## In-sample check: Lambda (the model's own training data)\n",
        "Not validation: the model was fitted on these runs and returns Lambda's measured "
        "ratio for Lambda's GPUs. fp16 only (the /recommend default).\n\n",
        rows_table(
            validation_summaries(v, GPU_PAIR, (LAMBDA_IN_SAMPLE,))
            + validation_summaries(v, SCALING_PAIR, (LAMBDA_IN_SAMPLE,))
        ),
        "\n## Largest model errors\n",
        worst_section(v),
        "\n## Data: rows read, kept and skipped\n",
        "Each row is counted once, for the first reason that applies (MLPerf Training: "
        "carried-over result, accelerator name, benchmark class, power configuration, missing "
        "value; MLPerf Inference: accelerator name, benchmark class, MaxQ, reference "
        "implementation, -99.9 copy "
        "of a -99 run, missing value).\n\n",
        skips_section(v),
        "\n## Tables used\n",
        tables_section(v),
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
