"""The v1 model's accuracy report (docs/model/report.md): leave-one-GPU-out tables and a
predicted-vs-measured plot. The out-of-sample validation report is `validation_report.py`."""

from __future__ import annotations

from pathlib import Path

from shared.perfmodel.lab.evaluation import CvPoint, Summary, all_logo_points, all_summaries
from shared.perfmodel.lab.fitting import parameter_count
from shared.perfmodel.lambda_data import ratio_points
from shared.perfmodel.params import MODEL_VERSION, load_params

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
