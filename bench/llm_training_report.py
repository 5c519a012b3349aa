"""Fit the llm-training share's size exponent and write docs/model/llm_training.md.

    .venv/bin/python -m bench.llm_training_report [--version calibrated-2026.12.5]

Every figure names its split: fit on one source and hold out the other (both ways), leave
one GPU out over both, and the in-sample fit on all pairs (labelled in-sample), whose
exponent is the one llm_training.SIZE_EXPONENT serves. The prose is
`shared/perfmodel/lab/report_text/llm_training.md`; this script computes what fills it.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from shared.perfmodel.benchmark_sources.training_runs import TrainingRun
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION, PARAMS_DIR, ClassModel
from shared.perfmodel.lab import fsdp_traffic as ft
from shared.perfmodel.lab import small_model_blend as sb
from shared.perfmodel.lab.llm_training_eval import (
    Predictor,
    RunPair,
    SplitResult,
    evaluate_split,
    fit_exponent,
    leave_one_gpu_out,
    load_runs,
    log_error,
    run_pairs,
    splits,
)
from shared.perfmodel.lab.report_text import report_text
from shared.perfmodel.llm_training import (
    CEILING_FROM_B,
    QLORA_MATRIX_FACTOR,
    SIZE_EXPONENT,
    LlmTraining,
    matrix_share,
)

OUT = Path(__file__).resolve().parent.parent / "docs/model/llm_training.md"
TARGET_MEDIAN, TARGET_P90 = 0.15, 0.30


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}" if x >= 0.995 else f"{100 * x:.1f}%"


def _table(results: list[SplitResult]) -> list[str]:
    lines = [
        "| split | training pairs | held-out pairs | fitted k | predictor | median | p90 "
        "| 80 % interval holds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for s in r.scores:
            lines.append(
                f"| {r.name} | {r.train or '-'} | {len(r.held_out)} | {r.exponent:g} | {s.name} "
                f"| {_pct(s.median)} | {_pct(s.p90)} | {_pct(s.coverage)} |"
            )
    return lines


def _worst(predictor: Predictor, r: SplitResult, n: int = 6) -> list[str]:
    k = r.exponent

    def error(p: RunPair) -> float:
        return log_error(p, lambda run: predictor.fitted(run, k))

    scored = sorted(r.held_out, key=error, reverse=True)[:n]
    lines = []
    for p in scored:
        pred = predictor.fitted(p.a, k) / predictor.fitted(p.b, k)
        lines.append(
            f"- {p.a.table_id}: {p.a.gpus}x {p.a.gpu_id} / {p.b.gpu_id} measured "
            f"{p.measured:.2f}, predicted {pred:.2f}"
        )
    return lines


CASES = (
    ("gpu-insights resnet50 ver2 fp16", "h100-sxm5", "rtx-5090"),
    ("gpu-insights resnet50 ver2 fp32", "h100-sxm5", "rtx-5090"),
    ("gpu-insights resnet50 ver2 fp16", "rtx-pro-6000-blackwell", "rtx-5090"),
    ("gpu-insights vit ver2 fp16", "a100-40gb-sxm4", "rtx-3090"),
    ("answer.ai llama-2-70b qlora cross-hardware", "h100-sxm5", "a100-40gb-sxm4"),
)


def _pair_runs(runs: list[TrainingRun], table: str, a: str, b: str) -> tuple[TrainingRun, ...]:
    ra = next(r for r in runs if r.table_id == table and r.gpu_id == a)
    rb = next(r for r in runs if r.table_id == table and r.gpu_id == b and r.gpus == ra.gpus)
    return ra, rb


def _ratio(predictor: Predictor, runs: list[TrainingRun], table: str, a: str, b: str) -> str:
    ra, rb = _pair_runs(runs, table, a, b)
    fitted = predictor.fitted(ra, SIZE_EXPONENT) / predictor.fitted(rb, SIZE_EXPONENT)
    before = predictor.served_llm(ra) / predictor.served_llm(rb)
    nlp = predictor.served_nlp(ra) / predictor.served_nlp(rb)
    return (
        f"| {table} | {ra.gpus}x {a} / {b} | {ra.value / rb.value:.2f} | {before:.2f} "
        f"| {fitted:.2f} | {nlp:.2f} |"
    )


def _fsdp(predictor: Predictor, runs: list[TrainingRun]) -> dict[str, str]:
    """The FSDP weight-traffic check's table and medians (lab/fsdp_traffic.py)."""
    fitted = ft.build_traffic(ft.fitted_bandwidth())
    lines = [
        "| build | batch per GPU | measured step | weight traffic per step | share of the step "
        "| achieved matrix rate per GPU | of peak BF16 |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in fitted:
        traffic = "-" if t.traffic_s is None else f"{t.traffic_s:.1f} s"
        share = "- (CPU offload)" if t.traffic_share is None else f"{t.traffic_share:.0%}"
        lines.append(
            f"| {t.build.gpus}x {t.build.gpu_id} | {t.build.batch} | {t.step_s:.1f} s | {traffic} "
            f"| {share} | {t.achieved_tflops:.0f} TFLOPS | {t.peak_share:.0%} |"
        )

    def predict(run: TrainingRun) -> float:
        return predictor.fitted(run, SIZE_EXPONENT)

    measured, compute_only = ft.median_errors(ft.pair_checks(runs, predict, fitted))
    nvlink = ft.median_errors(
        ft.pair_checks(runs, predict, ft.build_traffic(ft.nvlink_bandwidth()))
    )
    shares = [t.traffic_share for t in fitted if t.traffic_share is not None]
    peaks = [t.peak_share for t in fitted]
    return {
        "table": "\n".join(lines),
        "weight_bits": f"{ft.WEIGHT_BITS:g}",
        "share_low": f"{min(shares):.0%}",
        "share_high": f"{max(shares):.0%}",
        "error_measured": _pct(measured),
        "error_compute_only": _pct(compute_only),
        "error_nvlink": _pct(nvlink[1]),
        "peak_low": f"{min(peaks):.0%}",
        "peak_high": f"{max(peaks):.0%}",
    }


def _blend(predictor: Predictor, pairs: list[RunPair], runs: list[TrainingRun]) -> dict[str, str]:
    """The not-kept spec blend's held-out figures (lab/small_model_blend.py)."""
    score = sb.leave_one_gpu_out(predictor, pairs)
    blend = score.in_sample
    cases = []
    for table, a, b in CASES:
        ra, rb = _pair_runs(runs, table, a, b)
        ratio = math.exp(blend.log_value(ra) - blend.log_value(rb))
        cases.append(f"{a} / {b} {ratio:.2f} ({ra.value / rb.value:.2f} measured)")
    return {
        "median": _pct(score.median()),
        "gpu_insights": _pct(score.median("gpu-insights")),
        "answer_ai": _pct(score.median("answer.ai")),
        "p90": _pct(score.p90),
        "w": f"{blend.matrix_weight:g}",
        "k": f"{blend.size_exponent:g}",
        "cases": "; ".join(cases),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    default = CLASS_MODEL_VERSION
    if not (PARAMS_DIR / f"classes-{default}.json").exists():
        default = sorted(PARAMS_DIR.glob("classes-*.json"))[-1].stem.removeprefix("classes-")
    parser.add_argument("--version", default=default)
    args = parser.parse_args()
    model = ClassModel(args.version)
    predictor = Predictor(model)
    runs = load_runs()
    pairs = run_pairs(runs)
    widths = {k: v * math.sqrt(2) for k, v in model.params.half_width.items()}
    ceiling = model.params.fitted.llm_training_share()

    results = [evaluate_split(predictor, n, tr, te, widths) for n, tr, te in splits(pairs)]
    results.append(leave_one_gpu_out(predictor, pairs, widths))
    in_sample_k = fit_exponent(predictor, pairs)
    in_sample = evaluate_split(
        predictor, "in-sample: fit and score all pairs", pairs, pairs, widths
    )
    print(f"in-sample exponent {in_sample_k} (served: {SIZE_EXPONENT})")
    for r in [*results, in_sample]:
        for s in r.scores:
            print(
                r.name,
                r.exponent,
                s.name,
                len(s.errors),
                _pct(s.median),
                _pct(s.p90),
                _pct(s.coverage),
            )

    def share(p: float, mode: str) -> str:
        return f"{matrix_share(LlmTraining(p, mode), ceiling):.2f}"

    met = {
        r.name: r.scores[0].median <= TARGET_MEDIAN and r.scores[0].p90 <= TARGET_P90
        for r in results
    }
    cases = [
        "| table | pair | measured | before (MLPerf share) | by size | nlp |",
        "|---|---|---|---|---|---|",
        *(_ratio(predictor, runs, table, a, b) for table, a, b in CASES),
    ]
    largest = [
        "\n".join(
            [f"{r.name} (k = {r.exponent:g}), largest held-out errors:", "", *_worst(predictor, r)]
        )
        for r in results
    ]
    fsdp = _fsdp(predictor, runs)
    served_logo = results[-1].scores[0]
    blend = _blend(predictor, pairs, runs)
    text = report_text(
        "llm_training",
        version=args.version,
        ceiling=f"{ceiling:.2f}",
        ceiling_from_b=f"{CEILING_FROM_B:g}",
        qlora_factor=str(QLORA_MATRIX_FACTOR),
        size_exponent=f"{SIZE_EXPONENT:g}",
        in_sample_k=f"{in_sample_k:g}",
        share_100m_full=share(0.1, "full"),
        share_1b_full=share(1, "full"),
        share_3b_lora=share(3, "lora"),
        share_7b_qlora=share(7, "qlora"),
        share_8b_lora=share(8, "lora"),
        share_70b_qlora=share(70, "qlora"),
        gpu_insights_runs=sum(r.dataset == "gpu-insights" for r in runs),
        answer_ai_builds=sum(r.dataset == "answer.ai" for r in runs),
        pairs=len(pairs),
        held_out_table="\n".join(_table(results)),
        in_sample_table="\n".join(_table([in_sample])),
        target_median=f"{TARGET_MEDIAN:.0%}",
        target_p90=f"{TARGET_P90:.0%}",
        targets_met="; ".join(f"{n}: {'met' if ok else 'not met'}" for n, ok in met.items()),
        cases_table="\n".join(cases),
        largest_errors="\n\n".join(largest),
        fsdp_table=fsdp["table"],
        fsdp_weight_bits=fsdp["weight_bits"],
        fsdp_share_low=fsdp["share_low"],
        fsdp_share_high=fsdp["share_high"],
        fsdp_error_measured=fsdp["error_measured"],
        fsdp_error_compute_only=fsdp["error_compute_only"],
        fsdp_error_nvlink=fsdp["error_nvlink"],
        fsdp_peak_low=fsdp["peak_low"],
        fsdp_peak_high=fsdp["peak_high"],
        served_logo_median=_pct(served_logo.median),
        served_logo_p90=_pct(served_logo.p90),
        blend_median=blend["median"],
        blend_gpu_insights=blend["gpu_insights"],
        blend_answer_ai=blend["answer_ai"],
        blend_p90=blend["p90"],
        blend_w=blend["w"],
        blend_k=blend["k"],
        blend_cases=blend["cases"],
    )
    OUT.write_text(text + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
