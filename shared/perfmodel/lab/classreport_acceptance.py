"""The acceptance criteria of "Performance model v3" on the held-out figures each model
part measures: the class fit's refits (leave one table out, leave one GPU out), the
prefill model's folds (its params' evaluation record), the size-dependent llm-training
share's splits and the data-parallel scaling model's splits. Every row names its split."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.classmodel import CLASS_MODEL_VERSION, ClassModel
from shared.perfmodel.lab import data_parallel_fit as dp
from shared.perfmodel.lab.classeval import Evaluation, quantile
from shared.perfmodel.lab.llm_training_eval import (
    Predictor,
    Score,
    leave_one_gpu_out,
    load_runs,
    run_pairs,
)
from shared.perfmodel.lab.pair_scores import Scored, percent
from shared.perfmodel.lab.pairs import GPU_PAIR
from shared.perfmodel.prefill import load_prefill_params

OVERALL_MEDIAN, LLM_MEDIAN, TRAINING_P90 = 0.12, 0.15, 0.30
SCALING_MEDIAN, COVERAGE = 0.08, 0.75
LOTO, LOGO = "leave one table out", "leave one GPU out"
# The product's serving class is fitted on both serving tables (llmperf, MLPerf).
SERVING = (bm.DECODE_SERVING, bm.LLM_SERVING)
TRAINING = (bm.TRAINING_CV, bm.TRAINING_NLP)


@dataclass(frozen=True, slots=True)
class Criterion:
    target: str
    split: str
    measured: str
    met: bool


def _median(scored: Sequence[Scored]) -> float:
    return percent(statistics.median(s.model_log_error for s in scored))


def _pairs(scored: Sequence[Scored], classes: Sequence[str] | None = None) -> list[Scored]:
    return [
        s
        for s in scored
        if s.pair.kind == GPU_PAIR and (classes is None or s.pair.workload_class in classes)
    ]


def _median_row(target: str, split: str, scored: Sequence[Scored], limit: float) -> Criterion:
    if not scored:
        return Criterion(target, split, "no pairs", False)
    value = _median(scored)
    return Criterion(target, split, f"{value:.1%} ({len(scored)} pairs)", value <= limit)


@lru_cache(maxsize=4)
def _by_size(version: str) -> Score:
    """The size-dependent llm-training share, leave one GPU out, for a class model."""
    return leave_one_gpu_out(Predictor(ClassModel(version)), run_pairs(load_runs()), {}).scores[0]


@lru_cache(maxsize=1)
def _scaling() -> tuple[tuple[str, tuple[float, ...]], ...]:
    """Held-out log errors of the data-parallel model, by split."""
    rows = dp.lambda_rows()
    splits: tuple[tuple[str, Callable[[dp.ScalingRow], str]], ...] = (
        ("leave one workload out", lambda r: r.workload),
        (LOGO, lambda r: r.gpu_id),
    )
    return tuple((split, tuple(dp.held_out(rows, key))) for split, key in splits)


def acceptance(evaluation: Evaluation, version: str = CLASS_MODEL_VERSION) -> list[Criterion]:
    """Each criterion of the issue on every held-out split that measures it (the
    by-size llm-training split scores the class model of `version`)."""
    rows: list[Criterion] = []
    splits = (
        (LOTO, evaluation.loto, evaluation.served_llm_loto),
        (LOGO, evaluation.logo, evaluation.served_llm_logo),
    )
    for split, scored, llm_training in splits:
        rows.append(_median_row("overall median <= 12 %", split, _pairs(scored), OVERALL_MEDIAN))
        rows.append(
            _median_row(
                "LLM decode median <= 15 %", split, _pairs(scored, [bm.LLM_DECODE]), LLM_MEDIAN
            )
        )
        rows.append(
            _median_row("LLM serving median <= 15 %", split, _pairs(scored, SERVING), LLM_MEDIAN)
        )
        rows.append(
            _median_row(
                "LLM training median <= 15 % (MLPerf LLM benchmarks, served training-llm)",
                split,
                llm_training,
                LLM_MEDIAN,
            )
        )
    prefill = load_prefill_params().evaluation
    for split in (LOTO, LOGO):
        figures = prefill.get(split, {})
        value = figures.get("median")
        if value is not None:
            rows.append(
                Criterion(
                    "LLM prefill median <= 15 % (the served prefill model, prefill.md)",
                    split,
                    f"{value:.1%} ({figures.get('pairs')} pairs)",
                    value <= LLM_MEDIAN,
                )
            )
    by_size = _by_size(version)
    rows.append(
        Criterion(
            "LLM training median <= 15 % (by model size: GPU-Insights, Answer.AI; llm_training.md)",
            "leave one GPU out (both sources)",
            f"{by_size.median:.1%} ({len(by_size.errors)} pairs)",
            by_size.median <= LLM_MEDIAN,
        )
    )
    for split, scored in ((LOTO, evaluation.loto), (LOGO, evaluation.logo)):
        training = _pairs(scored, TRAINING)
        if not training:
            rows.append(Criterion("training p90 <= 30 %", split, "no pairs", False))
            continue
        p90 = percent(quantile([s.model_log_error for s in training], 0.9))
        rows.append(
            Criterion(
                "training p90 <= 30 %",
                split,
                f"{p90:.1%} ({len(training)} pairs)",
                p90 <= TRAINING_P90,
            )
        )
    for split, errors in _scaling():
        value = dp.summary(errors)["median"]
        rows.append(
            Criterion(
                "single-box scaling median <= 8 % (Lambda 2/4/8 GPUs, scaling.md)",
                split,
                f"{value:.1%} ({len(errors)} rows)",
                value <= SCALING_MEDIAN,
            )
        )
    for klass, cov in sorted(evaluation.coverage.items()):
        if math.isnan(cov):
            continue  # one table: the served prefill model's coverage is the row below
        rows.append(
            Criterion(f"{klass}: 80 % interval holds >= 75 %", LOTO, f"{cov:.0%}", cov >= COVERAGE)
        )
    for split in (LOTO, LOGO):
        cov = prefill.get(split, {}).get("coverage")
        if cov is not None:
            rows.append(
                Criterion(
                    "llm-prefill (served prefill model): 80 % interval holds >= 75 %",
                    split,
                    f"{cov:.0%}",
                    cov >= COVERAGE,
                )
            )
    return rows


def acceptance_lines(rows: Sequence[Criterion]) -> list[str]:
    met = sum(r.met for r in rows)
    return [
        "## Acceptance of performance model v3 (issue 25)",
        "",
        f"{met} of {len(rows)} criteria met. Every figure is held out on the split it names "
        "(fits on the other tables, GPUs or workloads only).",
        "",
        "| criterion | split | measured | met |",
        "|---|---|---|---|",
        *(f"| {r.target} | {r.split} | {r.measured} | {'yes' if r.met else 'no'} |" for r in rows),
    ]
