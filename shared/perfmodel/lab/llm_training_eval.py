"""Fit and held-out scoring of the llm-training share's size exponent (llm_training.py).

Pairs are two builds of one table with the same GPU count (GPU-Insights: one GPU each;
Answer.AI: 2-8); error = |ln(predicted ratio / measured ratio)|, as classeval's. The
exponent k is fitted on a split's training pairs only (a grid, least mean log error);
the held-out pairs are scored with it. Baselines: (a) the served training-llm before
sizes (MLPerf's share for every size and mode), (b) the served nlp class (Lambda's mix
with BERT's share).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.answerai import load_answerai
from shared.perfmodel.benchmark_sources.gpu_insights import load_gpu_insights
from shared.perfmodel.benchmark_sources.training_runs import ANSWERAI, GPU_INSIGHTS, TrainingRun
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.llm_training import DEFAULT_TRAINING, LlmTraining

# The grid of size exponents: 0 is MLPerf's share at every size (baseline a, but with
# QLoRA's factor), 3 is a share near zero below 1 B.
EXPONENT_GRID = tuple(round(0.05 * i, 2) for i in range(61))
INTERVAL_QUANTILE = 0.8
FITTED, SERVED_LLM, SERVED_NLP = "size-dependent share", "served training-llm (MLPerf share)", "nlp"


@dataclass(frozen=True, slots=True)
class RunPair:
    """Two builds of one table: a / b, measured."""

    a: TrainingRun
    b: TrainingRun

    @property
    def measured(self) -> float:
        return self.a.value / self.b.value

    @property
    def gpus(self) -> frozenset[str]:
        return frozenset((self.a.gpu_id, self.b.gpu_id))


def load_runs() -> list[TrainingRun]:
    return load_gpu_insights(load_catalog())[0] + load_answerai()


def run_pairs(runs: Iterable[TrainingRun]) -> list[RunPair]:
    """Every two builds of one table with the same GPU count (GPU ratios)."""
    tables: dict[str, list[TrainingRun]] = defaultdict(list)
    for run in runs:
        tables[run.table_id].append(run)
    return [
        RunPair(a, b)
        for table in tables.values()
        for a, b in combinations(sorted(table, key=lambda r: (r.gpus, r.gpu_id)), 2)
        if a.gpus == b.gpus
    ]


class Predictor:
    """Build throughputs relative to the reference GPU, cached per input."""

    def __init__(self, model: ClassModel) -> None:
        self.model = model
        self._cached = lru_cache(maxsize=None)(self._value)

    def _value(
        self, gpu_id: str, task: str, precision: str, gpus: int, training: LlmTraining | None
    ) -> float:
        gpu = load_catalog().by_id[gpu_id]
        result = self.model.predict_task(gpu, task, precision, count=gpus, training=training)
        if result is None:
            raise ValueError(f"no {task} prediction for {gpu_id} at {precision}")
        return result.relative_throughput

    def fitted(self, run: TrainingRun, exponent: float) -> float:
        training = LlmTraining(run.params_b, run.mode, size_exponent=exponent)
        return self._cached(run.gpu_id, "llm-training", run.precision, run.gpus, training)

    def served_llm(self, run: TrainingRun) -> float:
        # Before sizes: MLPerf's share for every run (the 8 B LoRA default sits at it).
        return self._cached(run.gpu_id, "llm-training", run.precision, run.gpus, DEFAULT_TRAINING)

    def served_nlp(self, run: TrainingRun) -> float:
        return self._cached(run.gpu_id, "nlp", run.precision, run.gpus, None)


def log_error(pair: RunPair, predict: Callable[[TrainingRun], float]) -> float:
    return abs(math.log(predict(pair.a) / predict(pair.b) / pair.measured))


def fitted_errors(predictor: Predictor, pairs: Sequence[RunPair], k: float) -> list[float]:
    """Log errors of the size-dependent share with exponent `k`."""
    return [log_error(p, lambda r: predictor.fitted(r, k)) for p in pairs]


def fit_exponent(predictor: Predictor, pairs: Sequence[RunPair]) -> float:
    """The grid exponent of least mean log error on `pairs` (the training pairs only)."""
    return min(EXPONENT_GRID, key=lambda k: float(np.mean(fitted_errors(predictor, pairs, k))))


@dataclass(frozen=True, slots=True)
class Score:
    """Held-out errors of one predictor on one split."""

    name: str
    errors: tuple[float, ...]
    # Log width of the pair's 80 % interval (None: not scored).
    width: float | None

    @property
    def median(self) -> float:
        return math.exp(float(np.median(self.errors))) - 1

    @property
    def p90(self) -> float:
        return math.exp(float(np.quantile(self.errors, 0.9))) - 1

    @property
    def coverage(self) -> float | None:
        if self.width is None:
            return None
        return float(np.mean([e <= self.width for e in self.errors]))


@dataclass(frozen=True, slots=True)
class SplitResult:
    name: str
    train: int
    held_out: tuple[RunPair, ...]
    exponent: float
    scores: tuple[Score, ...]


def evaluate_split(
    predictor: Predictor,
    name: str,
    train: Sequence[RunPair],
    test: Sequence[RunPair],
    served_widths: dict[str, float],
) -> SplitResult:
    """Fit k on `train` alone, score `test` (and the two baselines on it)."""
    k = fit_exponent(predictor, train)
    width = float(np.quantile(fitted_errors(predictor, train, k), INTERVAL_QUANTILE))
    scores = (
        Score(FITTED, tuple(fitted_errors(predictor, test, k)), width),
        Score(
            SERVED_LLM,
            tuple(log_error(p, predictor.served_llm) for p in test),
            served_widths.get("training-llm"),
        ),
        Score(
            SERVED_NLP,
            tuple(log_error(p, predictor.served_nlp) for p in test),
            served_widths.get("training-nlp"),
        ),
    )
    return SplitResult(name, len(train), tuple(test), k, scores)


def splits(pairs: Sequence[RunPair]) -> list[tuple[str, list[RunPair], list[RunPair]]]:
    """(name, training pairs, held-out pairs): fit on one source and hold out the other,
    both ways; leave one GPU out over both (a GPU's pairs held out, the rest fitted)."""
    out = []
    for fit_on, hold in ((GPU_INSIGHTS, ANSWERAI), (ANSWERAI, GPU_INSIGHTS)):
        train = [p for p in pairs if p.a.dataset == fit_on]
        test = [p for p in pairs if p.a.dataset == hold]
        out.append((f"fit {fit_on}, hold out {hold}", train, test))
    return out


def leave_one_gpu_out(
    predictor: Predictor, pairs: Sequence[RunPair], served_widths: dict[str, float]
) -> SplitResult:
    """Each GPU's pairs scored with the exponent fitted on the pairs without it; the
    fitted width is each fold's own (pooled over folds)."""
    gpus = sorted({g for p in pairs for g in p.gpus})
    held: list[RunPair] = []
    fitted: list[float] = []
    covered: list[bool] = []
    exponents = []
    for gpu in gpus:
        train = [p for p in pairs if gpu not in p.gpus]
        test = [p for p in pairs if gpu in p.gpus and p not in held]
        if not test or not train:
            continue
        k = fit_exponent(predictor, train)
        exponents.append(k)
        width = float(np.quantile(fitted_errors(predictor, train, k), INTERVAL_QUANTILE))
        errors = fitted_errors(predictor, test, k)
        fitted += errors
        covered += [e <= width for e in errors]
        held += test
    # A pair is held out once (with its first GPU in catalog order), so each counts once.
    fitted_score = _CoverageScore(FITTED, tuple(fitted), None, float(np.mean(covered)))
    scores = (
        fitted_score,
        Score(
            SERVED_LLM,
            tuple(log_error(p, predictor.served_llm) for p in held),
            served_widths.get("training-llm"),
        ),
        Score(
            SERVED_NLP,
            tuple(log_error(p, predictor.served_nlp) for p in held),
            served_widths.get("training-nlp"),
        ),
    )
    return SplitResult(
        "leave one GPU out (both sources)", 0, tuple(held), float(np.median(exponents)), scores
    )


@dataclass(frozen=True, slots=True)
class _CoverageScore(Score):
    """A score whose coverage was counted fold by fold (each fold's own width)."""

    pooled_coverage: float = 0.0

    @property
    def coverage(self) -> float | None:
        return self.pooled_coverage
