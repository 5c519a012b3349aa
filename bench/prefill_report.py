"""Fit the prefill model, evaluate it on its fixed splits and write what it found.

Writes `docs/model/prefill.md` (every figure with its split) and the shipped parameters
`shared/perfmodel/params/<PREFILL_VERSION>.json` (fit on all rows; interval half-widths
from held-out errors only).

Run: .venv/bin/python -m bench.prefill_report
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from statistics import median

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.localscore import load_localscore_medians
from shared.perfmodel.lab import prefill_fit as pf
from shared.perfmodel.lab.prefill_data import PrefillRow, load_prefill_rows
from shared.perfmodel.prefill import (
    PARAMS_PATH,
    PREFILL_VERSION,
    PrefillParams,
    chip_class,
    predict_relative,
    software_rate,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "model" / "prefill.md"
TARGET_MEDIAN = 0.15
TARGET_COVERAGE = 0.75
SAME_DIE = (("rtx-a6000", "rtx-3090"), ("rtx-6000-ada", "rtx-4090"))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _p90(values: Sequence[float]) -> float | None:
    return pf.quantile(values, 0.9)


def _line(
    label: Sequence[str], errors: Sequence[pf.PairError], hits: dict[int, bool | None]
) -> str:
    covered = [hits[id(e)] for e in errors if hits.get(id(e)) is not None]
    cov = sum(1 for c in covered if c) / len(covered) if covered else None
    cells = [
        *label,
        str(len(errors)),
        _pct(median(e.error for e in errors) if errors else None),
        _pct(_p90([e.error for e in errors])),
        _pct(median(e.error_base for e in errors) if errors else None),
        _pct(cov),
    ]
    return "| " + " | ".join(cells) + " |"


def _localscore_spread() -> list[str]:
    medians = load_localscore_medians(load_catalog())
    multi = [m for m in medians if m.submissions >= 2]
    single = sum(1 for m in medians if m.submissions == 1)
    spreads = sorted(m.spread for m in multi)
    widest = sorted(multi, key=lambda m: -m.spread)[:4]
    return [
        f"- LocalScore: {len(medians)} GPU x model medians with a catalog id; {single} rest on a "
        f"single submission; among the {len(multi)} with two or more, max/min of the "
        f"submissions has median {median(spreads):.2f}x and reaches {spreads[-1]:.2f}x ("
        + ", ".join(
            f"{m.accel_name} on {m.model.split(' Instruct')[0]}: {m.prompt_tps_min:g}-"
            f"{m.prompt_tps_max:g} over {m.submissions}"
            for m in widest
        )
        + ").",
    ]


def _agreement(rows: Sequence[PrefillRow]) -> str:
    eight = {r.gpu_id: r.value for r in rows if r.source == "localscore" and "8B" in r.group}
    fourteen = {r.gpu_id: r.value for r in rows if r.source == "localscore" and "14B" in r.group}
    common = sorted(set(eight) & set(fourteen))
    diffs = [
        abs(math.log(eight[a] / eight[b]) - math.log(fourteen[a] / fourteen[b]))
        for i, a in enumerate(common)
        for b in common[i + 1 :]
    ]
    return (
        f"- LocalScore's two tables agree with each other: over the {len(common)} GPUs in "
        "both, the 8B and 14B ratio of the same pair differ by a median "
        f"{_pct(math.expm1(median(diffs)))} (so the data's own noise is well below the "
        "model's error: what remains is the model's form)."
    )


def _same_die(rows: Sequence[PrefillRow], all_shares: dict[str, float]) -> list[str]:
    cat = load_catalog()
    out = [
        "| pair | table | measured | naive (accumulate rule) | model in-sample | model, "
        "workstation card held out (LOGO) |",
        "|---|---|---|---|---|---|",
    ]
    for work, consumer in SAME_DIE:
        held = pf.fit([r for r in rows if r.gpu_id != work])
        groups: dict[str, dict[str, PrefillRow]] = defaultdict(dict)
        for r in rows:
            groups[r.group][r.gpu_id] = r
        for group, members in sorted(groups.items()):
            if work not in members or consumer not in members:
                continue
            a, b = members[work], members[consumer]
            ga, gb = cat.by_id[work], cat.by_id[consumer]
            naive = software_rate(ga, a.family, a.workload.weights) / software_rate(
                gb, b.family, b.workload.weights
            )

            def ratio(shares: dict[str, float], ra: PrefillRow = a, rb: PrefillRow = b) -> float:
                return math.exp(
                    pf._log_pred(ra, cat.by_id[ra.gpu_id], shares)
                    - pf._log_pred(rb, cat.by_id[rb.gpu_id], shares)
                )

            out.append(
                f"| {work} / {consumer} | {group.split(' | ')[0]} | {a.value / b.value:.2f} | "
                f"{naive:.2f} | {ratio(all_shares):.2f} | {ratio(held):.2f} |"
            )
    return out


def _product_examples(params: PrefillParams) -> list[str]:
    from shared.perfmodel.workloads import LlmWorkload

    cat = load_catalog()
    ref = cat.by_id["rtx-3090"]
    out = [
        "| GPU | stack | relative to RTX 3090 | 80 % interval | chip class "
        "| architecture measured |",
        "|---|---|---|---|---|---|",
    ]
    for gpu_id in ("rtx-4090", "rtx-a6000", "rtx-6000-ada", "h100-sxm5", "b200", "mi300x", "t4"):
        gpu = cat.by_id[gpu_id]
        for stack in ("llama.cpp", "vllm"):
            e = predict_relative(gpu, ref, LlmWorkload(8.0), stack, params=params)
            out.append(
                f"| {gpu_id} | {stack} | {e.relative:.2f} "
                f"| {e.interval[0]:.2f}-{e.interval[1]:.2f} "
                f"| {e.chip_class} | {'yes' if e.architecture_measured else 'no (widened)'} |"
            )
    return out


def build() -> tuple[str, PrefillParams]:
    cat = load_catalog()
    rows = load_prefill_rows(cat)
    errors = pf.evaluate(rows, cat)
    params = pf.fit_product(rows)
    params = PrefillParams(
        log_share=params.log_share,
        half_width=params.half_width,
        half_width_new_arch=params.half_width_new_arch,
        measured_architectures=params.measured_architectures,
        measured_gpus=params.measured_gpus,
        evaluation=pf.summary(errors),
    )
    checked = pf.coverage(errors)
    hits = {id(e): c for e, c in checked}
    insample = pf.in_sample(rows, params.log_share, cat)
    in_hits = {id(e): pf.covered(e, params.half_width) for e in insample}
    summary = pf.summary(errors)

    by_source: dict[str, int] = defaultdict(int)
    for r in rows:
        by_source[r.source] += 1
    lines = [
        "# Performance model v3, item 1: LLM prefill",
        "",
        f"Generated by `bench/prefill_report.py` on {date.today().isoformat()} for "
        f"`{PREFILL_VERSION}`; do not edit by hand. Model: `shared/perfmodel/prefill.py`; rows: "
        "`prefill_data.py`; fit, splits and intervals: `prefill_fit.py`.",
        "",
        "Prefill throughput = matrix-bound time at a software-aware matrix rate: the peak the "
        "software family multiplies at (llama.cpp / llamafile / Ollama: 16-bit accumulate, so "
        "GeForce Turing-Blackwell at twice the catalog's FP32-accumulate figure, derived since "
        "the catalog has no FP16-accumulate column; DP4A int8 on Pascal/GTX 16 for quantised "
        "weights; TensorRT-LLM / vLLM: the catalog rate at FP8/FP4 where the hardware has it), "
        "times an achieved share per chip class and architecture (shared and per family, "
        "ridge priors) fitted on the training rows of each fold, plus the weight reads (once "
        "per 512-token micro-batch in llama.cpp) and the per-call overhead of inference.py.",
        "",
        "## Data",
        "",
        f"- {len(rows)} rows: "
        + ", ".join(f"{k} {v}" for k, v in sorted(by_source.items()))
        + f"; {len({r.group for r in rows})} ratio groups (one model and setting of one table); "
        f"{len({r.gpu_id for r in rows})} catalog GPUs. Ratios only inside a group.",
        *_localscore_spread(),
        _agreement(rows),
        "- LocalScore's kernels favour consumer cards: datacenter dies reach a small share of "
        "their peak there (fitted share below), while TensorRT-LLM's rows are datacenter only "
        "(H100, H200, B200, GB200, RTX PRO 6000 Blackwell Server). llama.cpp's PR tables give "
        "one two-GPU table (PR #4766: RTX 3090 vs Tesla P40, three quantisations in common).",
        "",
        "## Splits (fixed before any fit)",
        "",
        "- **LOTO**, leave one table out: LocalScore (both models) / TensorRT-LLM's page / each "
        "llama.cpp PR table; pairs with both rows held out.",
        "- **LOGO**, leave one GPU out: all rows of one GPU out; its pairs with the GPUs left in.",
        "- **LOAO**, leave one architecture out: all rows of one architecture out; pairs with "
        "at least one side in it (sets the interval of an unmeasured architecture).",
        "- Coverage of a fold: the 80 % half-widths come from the *other* folds' errors of the "
        "same split (per family and chip class; a class or family with fewer than "
        f"{pf.MIN_GROUP} errors takes the next wider group's: the family's, then all "
        "errors'; a pair is covered inside the wider of its two GPUs' half-widths).",
        "- Baseline (naive): the ratio of the software-aware peak rates (accumulate rule known).",
        "",
        "## Targets (issue 25 item 1)",
        "",
        "| target | split | measured | met |",
        "|---|---|---|---|",
    ]
    for split in (pf.LOTO, pf.LOGO):
        s = summary[split]
        med = s["median"]
        cov = s["coverage"]
        lines.append(
            f"| prefill median <= 15 % | {split} | {_pct(med)} (baseline "
            f"{_pct(s['baseline_median'])}, {s['pairs']} pairs) | "
            f"{'yes' if med is not None and med <= TARGET_MEDIAN else 'no'} |"
        )
        lines.append(
            f"| 80 % interval coverage >= 75 % | {split} | {_pct(cov)} | "
            f"{'yes' if cov is not None and cov >= TARGET_COVERAGE else 'no'} |"
        )
    lines += [
        "",
        "## Held-out errors by split and source",
        "",
        "| split | source | pairs | median | p90 | baseline median | 80 % coverage |",
        "|---|---|---|---|---|---|---|",
    ]
    for split in pf.SPLITS:
        members = [e for e in errors if e.split == split]
        for source in sorted({e.source for e in members}):
            lines.append(_line([split, source], [e for e in members if e.source == source], hits))
        lines.append(_line([split, "all"], members, hits))
    for split, title, first in (
        (pf.LOTO, "leave one table out", "fold (held out)"),
        (pf.LOAO, "leave one architecture out", "architecture held out"),
    ):
        lines += [
            "",
            f"## Per fold: {title}",
            "",
            f"| {first} | pairs | median | p90 | baseline median | 80 % coverage |",
            "|---|---|---|---|---|---|",
        ]
        for fold in sorted({e.fold for e in errors if e.split == split}):
            members = [e for e in errors if e.split == split and e.fold == fold]
            lines.append(_line([fold], members, hits))
    lines += [
        "",
        "## Leave one GPU out, by chip class of the held-out GPU",
        "",
        "| chip class | pairs | median | p90 | baseline median | 80 % coverage |",
        "|---|---|---|---|---|---|",
    ]
    logo = [e for e in errors if e.split == pf.LOGO]
    for klass in sorted({chip_class(cat.by_id[e.fold]) for e in logo}):
        members = [e for e in logo if chip_class(cat.by_id[e.fold]) == klass]
        lines.append(_line([klass], members, hits))
    worst = sorted(
        {e.fold for e in logo},
        key=lambda g: -median(e.error for e in logo if e.fold == g),
    )[:10]
    lines += [
        "",
        "Worst held-out GPUs (LOGO, median over their pairs): "
        + "; ".join(
            f"{g} {_pct(median(e.error for e in logo if e.fold == g))} "
            f"({sum(1 for e in logo if e.fold == g)} pairs)"
            for g in worst
        )
        + ".",
        "",
        "## In-sample (fit on all rows; not a held-out figure)",
        "",
        "| source | pairs | median | p90 | baseline median | in 80 % interval (served widths) |",
        "|---|---|---|---|---|---|",
    ]
    for source in sorted({e.source for e in insample}):
        lines.append(_line([source], [e for e in insample if e.source == source], in_hits))
    lines.append(_line(["all"], insample, in_hits))
    lines += [
        "",
        "## Same-die pairs (workstation card vs the GeForce card of its die)",
        "",
        *_same_die(rows, params.log_share),
        "",
        "## Fitted parameters (all rows) and served intervals",
        "",
        "- log achieved share (0 = GeForce Ampere at the base share 0.4; `family/` keys are a "
        "family's own deviation): "
        + ", ".join(f"{k} {v:+.2f}" for k, v in sorted(params.log_share.items())),
        "- 80 % half-widths (log) for a GPU of a measured architecture (LOGO errors): "
        + ", ".join(f"{k} {v:.2f}" for k, v in sorted(params.half_width.items())),
        "- for an architecture the family never measured (LOAO errors; at least twice the "
        "former): "
        + ", ".join(f"{k} {v:.2f}" for k, v in sorted(params.half_width_new_arch.items())),
        "",
        "What the product serves for an 8B model at 16-bit weights (batch 1 runs on llama.cpp, "
        "serving on vLLM, which is rated as the FP32-accumulate family of TensorRT-LLM):",
        "",
        *_product_examples(params),
        "",
        *WHY,
    ]
    return "\n".join(lines) + "\n", params


WHY = [
    "## Why the targets are unmet, on the data",
    "",
    "- LOTO, LocalScore held out: the training rows are then TensorRT-LLM's five datacenter "
    "GPUs and llama.cpp's RTX 3090 / P40 pairs; nothing in them measures GeForce cards "
    "against each other or against workstation cards in the FP16-accumulate family, so the "
    "model predicts LocalScore's pairs with its priors, which is the naive rate ratio: its "
    "error is the baseline's. The largest of these errors are the datacenter dies on "
    "llama.cpp (H100 SXM at 4,687 tok/s on 8B against the RTX 3090's 3,641, 1.29x, where "
    "the FP16-accumulate rates say 6.9x) and the big Ada and Blackwell GeForce chips (RTX "
    "4090 at 1.83x and 1.45x the RTX 3090 on 8B and 14B, RTX 5090 at 1.73x and 2.37x, rates "
    "2.32x and 2.94x).",
    "- LOTO, TensorRT-LLM held out: its pairs are Blackwell at FP4 against Hopper at FP8. "
    "The catalog says B200/H200 = 4.5x (9 PFLOPS FP4 against 1.98 FP8); measured, 2.2x-3.3x "
    "per GPU (Llama 3.3 70B 2048/128: 1,339 vs 442 tok/s out, 3.0x; Qwen3-235B at TP8: "
    "2.2x). Without TensorRT-LLM rows no term says that FP4 reaches a smaller share than FP8 "
    "(attention and the non-GEMM work stay at 16 bits), so the held-out error is above the "
    "baseline's, whose FP4/FP8 ratio is the same catalog figure but without LocalScore's "
    "datacenter share pulling the HBM parts down further.",
    "- LOGO: the tail is GPUs whose measured ratio is not a function of any catalog field "
    "the model uses: on llama.cpp the H100 SXM below the H100 PCIe (4,687 vs 5,202 on 8B, "
    "one submission each), the TITAN V and Quadro RTX 8000 far below their full-rate "
    "tensor figures, the L40 above the L40S (its catalog FP16 rate is half the L40S's).",
    "",
    "## What was looked at while choosing the model's form",
    "",
    "The splits, error measure, baseline, priors and chip classes were written before any "
    "held-out number was computed. After reading the first in-sample residuals (all "
    "figures above come after these changes, so they are looked-at numbers): (1) rows "
    "whose model does not fit in memory (Qwen2.5 14B Q4_K_M, 9 GB, on 8 GB cards) are "
    "dropped; (2) LocalScore's prompt is the mean of its nine scenarios (1,331 tokens: its "
    "rate times its mean time to first token is ~1,300 tokens on every GPU), not the "
    "median (1,024); (3) llama.cpp reads the weights once per 512-token micro-batch; "
    "(4) quantised prompts on Pascal / GTX 16 run on DP4A at 4x FP32 (the P40 pairs of PR "
    "#4766 went from 139 % to 21 % held out); (5) duplicate spellings of one card in "
    "LocalScore are merged. Tried and dropped: a fitted per-call time for LocalScore (its "
    "rate includes host time): LOGO 21.2 % -> 21.1 %, in-sample 19.5 % -> 19.4 %. Change "
    "(4) also narrowed the LOTO interval of LocalScore (the only other FP16-accumulate "
    "errors, llama.cpp's three P40 pairs, became small): LOTO coverage 82 % -> 65 %: the "
    "held-out table's interval then rests on three pairs of another table. (6) So a "
    "family's width, like a class's, needs at least MIN_GROUP (8) errors, else it is all "
    "errors' (a 3-pair 80 % quantile is no estimate of an 80 % point): chosen after "
    "seeing that coverage, so the LOTO coverage here is a looked-at figure (65.2 % -> "
    "79.3 %); the medians and the served LOGO and LOAO widths do not change (their "
    "families hold hundreds of errors).",
]


def main() -> None:
    text, params = build()
    DOC.write_text(text)
    PARAMS_PATH.write_text(json.dumps(params.to_json(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DOC} and {PARAMS_PATH}")


if __name__ == "__main__":
    main()
