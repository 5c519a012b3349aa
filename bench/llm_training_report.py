"""Fit the llm-training share's size exponent and write docs/model/llm_training.md.

    .venv/bin/python -m bench.llm_training_report [--version calibrated-2026.12.5]

Every figure names its split: fit on one source and hold out the other (both ways), leave
one GPU out over both, and the in-sample fit on all pairs (labelled in-sample), whose
exponent is the one llm_training.SIZE_EXPONENT serves.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from shared.perfmodel.benchmark_sources.training_runs import TrainingRun
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION, PARAMS_DIR, ClassModel
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


def _ratio(predictor: Predictor, runs: list[TrainingRun], table: str, a: str, b: str) -> str:
    ra = next(r for r in runs if r.table_id == table and r.gpu_id == a)
    rb = next(r for r in runs if r.table_id == table and r.gpu_id == b and r.gpus == ra.gpus)
    fitted = predictor.fitted(ra, SIZE_EXPONENT) / predictor.fitted(rb, SIZE_EXPONENT)
    before = predictor.served_llm(ra) / predictor.served_llm(rb)
    nlp = predictor.served_nlp(ra) / predictor.served_nlp(rb)
    return (
        f"| {table} | {ra.gpus}x {a} / {b} | {ra.value / rb.value:.2f} | {before:.2f} "
        f"| {fitted:.2f} | {nlp:.2f} |"
    )


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
    text = [
        "# llm-training: a matrix-multiply share by model size and mode",
        "",
        f"Written by `bench/llm_training_report.py` (class parameters `{args.version}`). Code: "
        "`shared/perfmodel/llm_training.py` (the share), `llm_training_eval.py` (pairs, fit, "
        "splits); data: `shared/perfmodel/data/benchmarks/gpu-insights/` and "
        "`answerai-fsdp-qlora/` (PROVENANCE.md in each).",
        "",
        "## The form",
        "",
        f"share(P, mode) = {ceiling:.2f} x min(1, (P / {CEILING_FROM_B:g} B) ** k) "
        f"x ({QLORA_MATRIX_FACTOR} for QLoRA): MLPerf's LLM training share ({ceiling:.2f}, "
        "fitted on Llama 3.1 8B to GPT-3 175B and Llama 3.1 405B, classes.md round six) from "
        f"its smallest LLM ({CEILING_FROM_B:g} B) up, falling as a power of the size below it. "
        "One fitted parameter, k. QLoRA's factor is assumed from arithmetic (its NF4 weights "
        "are dequantised on every pass: elementwise work, not matrix-rate bound), not fitted. "
        "LoRA and QLoRA freeze the base, which changes every GPU's time alike, not the ratios. "
        f"Served: k = {SIZE_EXPONENT:g} (the in-sample fit on all pairs gives {in_sample_k:g}). "
        f"Shares served: 0.1 B full {share(0.1, 'full')}, 1 B full {share(1, 'full')}, "
        f"3 B lora {share(3, 'lora')}, 7 B qlora {share(7, 'qlora')}, 8 B lora "
        f"{share(8, 'lora')}, 70 B qlora {share(70, 'qlora')}.",
        "",
        "Without a model size (the precomputed /recommend llm-training ranking, and "
        "/model/predict without params_b) the class assumes an 8 B LoRA fine-tune, which sits "
        "at MLPerf's share: that ranking is the one served before sizes were taken.",
        "",
        "## Data (split decided before fitting)",
        "",
        f"- GPU-Insights ({sum(r.dataset == 'gpu-insights' for r in runs)} single-GPU runs in "
        "tables of one model, benchmark version and precision column): full training of "
        "ResNet-50 (32x32 inputs, 25 M parameters), ViT-B/16 (86 M), UNet and DDPM (tens of "
        "M). No LLM: it is the small-model end, and the only source of RTX 5090, RTX PRO "
        "6000 Blackwell and single-H100 training rows.",
        f"- Answer.AI FSDP+QLoRA ({sum(r.dataset == 'answer.ai' for r in runs)} builds): "
        "Llama-2 70B QLoRA on 2-8 A5000 / RTX 6000 Ada / A100 40GB SXM and 4 H100 SXM; 2x RTX "
        "3090 vs 2x RTX 4090 on Llama-2 7B LoRA and QLoRA, Yi 34B and Llama-2 70B QLoRA.",
        f"- Pairs: two builds of one table with the same GPU count ({len(pairs)}). Error = "
        "|ln(predicted ratio / measured ratio)|, shown as exp(error) - 1.",
        "- Splits: (1) fit on GPU-Insights, hold out Answer.AI; (2) the reverse; (3) leave one "
        "GPU out over both sources (each GPU's pairs scored with k fitted on the pairs without "
        "it; the fitted interval is each fold's own 80 % quantile of its training errors). k "
        "is fitted on the training pairs of each split only. Baselines on the same held-out "
        "pairs: (a) the served training-llm class before sizes (MLPerf's 0.99 share for every "
        "size and mode), (b) the served nlp class (Lambda's transformer mix with BERT's share); "
        "their intervals are the served half-widths (x sqrt 2 for a pair).",
        "",
        "## Held-out figures",
        "",
        *_table(results),
        "",
        "In-sample (fit and score all pairs; not a held-out figure):",
        "",
        *_table([in_sample]),
        "",
        f"Target (training classes): median <= {TARGET_MEDIAN:.0%}, p90 <= {TARGET_P90:.0%}. "
        + "; ".join(f"{n}: {'met' if ok else 'not met'}" for n, ok in met.items())
        + ".",
        "",
        "## The issue's cases (served k, against the two baselines)",
        "",
        "| table | pair | measured | before (0.99) | by size | nlp |",
        "|---|---|---|---|---|---|",
        _ratio(predictor, runs, "gpu-insights resnet50 ver2 fp16", "h100-sxm5", "rtx-5090"),
        _ratio(predictor, runs, "gpu-insights resnet50 ver2 fp32", "h100-sxm5", "rtx-5090"),
        _ratio(
            predictor,
            runs,
            "gpu-insights resnet50 ver2 fp16",
            "rtx-pro-6000-blackwell",
            "rtx-5090",
        ),
        _ratio(predictor, runs, "gpu-insights vit ver2 fp16", "a100-40gb-sxm4", "rtx-3090"),
        _ratio(
            predictor,
            runs,
            "answer.ai llama-2-70b qlora cross-hardware",
            "h100-sxm5",
            "a100-40gb-sxm4",
        ),
        "",
        "## Where the held-out errors are (the cause on data)",
        "",
    ]
    for r in results:
        text += [f"{r.name} (k = {r.exponent:g}), largest held-out errors:", ""]
        text += _worst(predictor, r)
        text.append("")
    text += [
        "Reading: the Answer.AI cross-hardware table is FSDP over PCIe (A5000, RTX 6000 Ada) "
        "against NVLink (A100, H100) with CPU/activation offload on the smallest build; its "
        "gaps (RTX 6000 Ada at 0.44-0.56x the A100 where any share gives 0.9x) are weight "
        "transfers between GPUs, which the data-parallel scaling of the class does not model, "
        "not the matrix share; at 4 GPUs the H100 SXM is 1.9x the A100 40GB (the issue's "
        "1.8-3.0 measured), where the class gives 2.7x even at share 0 (the Lambda mix with "
        "the Hopper offset), so the share alone cannot close it. The 3090 case study ran "
        "power-limited to 280 W (stock 350 W) on an older board, so its 4090 / 3090 ratios "
        "(2.0-2.5x) exceed the stock cards' 1.85-2.3x at any share. On GPU-Insights the "
        "largest errors are old cards against new ones in ResNet-50 on 32x32 inputs (RTX "
        "2080 Ti, TITAN Xp, T4 measured faster relative to A100 / RTX 4090 / RTX PRO 6000 "
        "than predicted, share ~0 already): tiny CNN steps that are launch- and "
        "input-bound, which neither the share nor the Lambda mix describes; rows within one "
        "table also come from different machines and dates (WSL2, Colab, rented cards).",
        "",
    ]
    OUT.write_text("\n".join(text))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
