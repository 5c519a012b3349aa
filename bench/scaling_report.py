"""Fit the data-parallel scaling, evaluate it on its fixed splits and write what it found.

Writes `docs/model/scaling.md` (every figure names its split) and the shipped parameters
`shared/perfmodel/params/<DATA_PARALLEL_VERSION>.json` (shares fitted on every fitted
Lambda row; the interval from leave-one-workload-out errors only).

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


def _gpu_insights(params: DataParallelParams) -> tuple[list[str], list[float]]:
    """GPU-Insights pairs through the product's path: the class model's speed of the card
    and the reference step scaled by the catalog card's memory."""
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
    return lines + ["", "Not scored: " + "; ".join(skipped) + "."], errors


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
    gi_lines, gi_errors = _gpu_insights(params)
    batch = _batch_rule()
    met = (
        dp.summary(by_workload)["median"] <= TARGET_MEDIAN
        and dp.summary(by_gpu)["median"] <= TARGET_MEDIAN
    )
    text = [
        "# Multi-GPU scaling inside one machine",
        "",
        f"Written by `bench/scaling_report.py` (parameters `{DATA_PARALLEL_VERSION}`). Code: "
        "`shared/perfmodel/data_parallel.py` (served), `shared/perfmodel/lab/data_parallel_fit.py` "
        "(rows, fit, splits); data: Lambda v1 (`shared/perfmodel/data/`, SOURCES.md) and "
        "GPU-Insights' pairs (`shared/perfmodel/data/benchmarks/gpu-insights/`, PROVENANCE.md).",
        "",
        "## The model",
        "",
        "Every training step each GPU computes its own batch, then the GPUs all-reduce the "
        "gradients (data parallelism). A ring all-reduce moves 2 (N - 1) / N times the gradient "
        "bytes through each GPU's link, so the per-GPU efficiency of N GPUs is "
        "`compute / (compute + 2 (N - 1) / N x gradient bytes / achieved bandwidth)`. The "
        "workload sets compute per step (its batch over the card's speed) and gradient bytes "
        "(its parameters x 4: PyTorch all-reduces the fp32 gradients of mixed precision); the "
        "link sets the bandwidth: the nominal one-direction rate (PCIe x16 per generation, "
        "NVLink per GPU, AMD's 7 x 64 GB/s Infinity Fabric) times an achieved share fitted per "
        "link class. A module fabric is never slower than its PCIe slot with P2P. Nothing "
        "else is fitted: three shares.",
        "",
        "In the product a card's batch is the reference's (RTX 3090, Lambda's batch) scaled "
        "by memory, and its compute per step follows from the class model's speed of the "
        "card: faster cards have shorter steps and scale worse on the same link, bigger "
        "models move more bytes. cv uses ResNet-50's step, nlp BERT-large's (the model the "
        "served nlp class is fitted on); `workload=` picks another Lambda workload. "
        "llm-training uses the model being trained: a full fine-tune all-reduces every "
        "weight's gradient, LoRA and QLoRA only the adapters' (0.5 % of the weights), with "
        "the step of 16,384 tokens per 24 GB at 35 % of the reference's FP16 rate "
        "(assumptions: no bundled table times data-parallel LLM fine-tuning of one card kind "
        "on one software). Beyond one machine the network's efficiency per doubling of nodes "
        "is MLPerf's (InfiniBand) as before. The speed-up's held-out 80 % error "
        f"(x{math.exp(half):.3f} either way, leave one workload out) is added in quadrature "
        "to one GPU's interval of every multi-GPU answer, so the ranking's low end carries it.",
        "",
        "Fitted shares of nominal bandwidth (all fitted rows): "
        + ", ".join(f"{k} {v:.3f}" for k, v in params.share.items())
        + ". Lambda's NVSwitch rows (V100 SXM2, A100 SXM4, H100 SXM5) scale no better than "
        "its PCIe P2P rows (A100 SXM4 at 8 GPUs: 0.39-0.61 per GPU in GNMT and BERT-large, "
        "below its own 4-GPU rows), so the fitted NVSwitch share sits at the PCIe floor: "
        "this data cannot tell NVLink from a PCIe slot, and the product does not claim it.",
        "",
        "## Held-out error of the speed-up (Lambda v1 2/4/8-GPU rows)",
        "",
        "Split before fitting: leave one workload out (fit on the other four, score the "
        "held-out one) and leave one GPU out. Baselines on the same rows: one efficiency per "
        "doubling per link, refitted per fold (the old Lambda fit, blind to the workload), "
        "and the MLPerf-fitted efficiencies served until `calibrated-2026.12.6` (fitted on "
        "other data: out of sample). Coverage: share of held-out truths inside the served "
        "80 % interval.",
        "",
        "| split / predictor | rows | median | p90 | coverage |",
        "|---|---|---|---|---|",
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
        "",
        f"Target (issue: single-box scaling median <= 8 %, coverage >= 75 %): "
        f"{'met' if met else 'unmet'} on both held-out splits.",
        "",
        "By workload (leave one workload out):",
        "",
        "| workload | rows | median | p90 | coverage |",
        "|---|---|---|---|---|",
    ]
    for workload in sorted({r.workload for r in fitted}):
        mine = [dp.log_error(p, r.efficiency) for r, p in workload_pairs if r.workload == workload]
        text.append(_line(workload, mine, half))
    text += [
        "",
        "Largest held-out errors (leave one workload out; measured and predicted per-GPU "
        "efficiency):",
        "",
        "| workload | GPU | link | precision | GPUs | measured | predicted |",
        "|---|---|---|---|---|---|---|",
        *_worst(workload_pairs),
        "",
        "Reading: the misses are GNMT and BERT-large on A100 SXM4 and V100 SXM2 at 4-8 GPUs "
        "(measured far below any link's fit) and GNMT on the RTX A6000 and A100 PCIe (below "
        "the newer PCIe servers' near-linear rows): the same link in Lambda's older servers "
        "reaches a fraction of what its newer servers do, which one share per link cannot "
        "hold; the interval is as wide as those rows make it.",
        "",
        "## Rows reported but not fitted: Transformer-XL",
        "",
        _table_header(),
        _line("Transformer-XL base and large (all rows)", txl, half),
        "",
        "Transformer-XL's rows show no communication cost: 0.99-1.10 per GPU on every link, "
        "the RTX 4090 pair without P2P included, where BERT-large of similar size loses 25 %. "
        "No all-reduce of 151-257 M gradients per measured step can do that, so these runs "
        "are not data-parallel steps as timed (NVIDIA's recipe accumulates gradients over "
        "chunks); the model under-predicts them by the median above.",
        "",
        "## GPU-Insights' pairs (never used for fitting), through the product's path",
        "",
        "| workload | GPU | link | precision | GPUs | measured speed-up | predicted | error |",
        "|---|---|---|---|---|---|---|---|",
        *gi_lines,
        "",
        _table_header(),
        _line("GPU-Insights ResNet-50 pairs", gi_errors, half),
        "",
        "Unmet here (median above 8 %, coverage below 75 %). The cause on data: "
        "GPU-Insights' ResNet-50 runs CIFAR-sized 32 x 32 images (PROVENANCE.md), a workload "
        "the product does not describe: its steps are far shorter than Lambda's ImageNet "
        "ResNet-50 at the same batch, so every pair is over-predicted (near-linear predicted, "
        "0.79-0.94 per GPU measured). Timing the step by FLOPs instead (1/49 of ImageNet's "
        "per image) predicts 0.50-1.32 for the pairs measured at 1.59-1.87: small images do "
        "not run at the FLOP rate, and some pairs changed the batch between the one- and "
        "two-GPU run, so neither step is right. The RTX 3080 rows are 20 GB modded cards "
        "and the RTX 4080 SUPER rows virtual 32 GB ones; the product scales the batch by "
        "the catalog card's memory.",
        "",
        "## The batch rule, checked on Lambda's own batches",
        "",
        "`batch = RTX 3090 batch x memory / 24 GB` against each Lambda card's measured "
        f"largest batch ({len(batch)} card-workload-precision rows): median error "
        f"{_pct(statistics.median(abs(math.expm1(e)) for e in batch))}.",
        "",
        "## What a buyer sees: 8 GPUs in one machine (speed-up over one GPU, fp16)",
        "",
        *_examples(ClassModel()),
        "",
        "Not done: MLPerf's multi-GPU rows are not used here. MLPerf fixes the global batch, "
        "so going from 8 to 16 GPUs halves each GPU's batch (strong scaling), and its "
        "in-box rows are 8-GPU systems without a one-GPU run of the same system to compare "
        "with; its efficiencies stay inside the class fit (each row's own scaling) and for "
        "the network between machines. `gpu-advisor model validate` scores the product's "
        "speed-ups on MLPerf's size pairs as they are (docs/model/validation.md, 'Multi-GPU "
        "scaling pairs'), without correcting for the shrinking per-GPU batch. Weight "
        "traffic of sharded training (FSDP, as in Answer.AI's QLoRA runs) is not modelled.",
        "",
    ]
    DOC.write_text("\n".join(text))
    print(f"wrote {DOC} and {PARAMS_PATH}")


def _table_header() -> str:
    return "| split / predictor | rows | median | p90 | coverage |\n|---|---|---|---|---|"


if __name__ == "__main__":
    main()
