"""Scoring pairs against predictors: log errors, rank correlation, interval coverage.

Error of a pair = |ln(predicted ratio / measured ratio)|, reported as exp(error) - 1, so
a factor of 1.25 either way is 25 %.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from shared.catalog.specs import Catalog, load_catalog
from shared.perfmodel.lab.pair_predictors import Predictor, bandwidth_predictor
from shared.perfmodel.lab.pairs import GPU_PAIR, Group, Pair

MIN_GPUS_FOR_SPEARMAN = 3


@dataclass(frozen=True, slots=True)
class Scored:
    """A pair with the model's and the baseline's predicted ratio."""

    pair: Pair
    model: float
    baseline: float
    # Log half-widths of the pair's interval: sum of the two GPUs' (the ratio of the
    # interval's opposite ends) and their quadrature sum (independent errors).
    half_width_sum: float | None
    half_width_quadrature: float | None

    @property
    def model_log_error(self) -> float:
        return abs(math.log(self.model / self.pair.measured))

    @property
    def baseline_log_error(self) -> float:
        return abs(math.log(self.baseline / self.pair.measured))


def score_pairs(
    pairs: Iterable[Pair],
    model: Predictor,
    baseline: Predictor = bandwidth_predictor,
    catalog: Catalog | None = None,
) -> tuple[list[Scored], int]:
    """Scored pairs, and how many were dropped because a predictor had no answer."""
    specs = (catalog or load_catalog()).by_id
    scored, dropped = [], 0
    for pair in pairs:
        a, b = specs[pair.gpu_a], specs[pair.gpu_b]
        ma = model(a, pair.workload_class, pair.count_a, pair.workload)
        mb = model(b, pair.workload_class, pair.count_b, pair.workload)
        ba = baseline(a, pair.workload_class, pair.count_a, pair.workload)
        bb = baseline(b, pair.workload_class, pair.count_b, pair.workload)
        if ma is None or mb is None or ba is None or bb is None:
            dropped += 1
            continue
        total, quadrature = None, None
        if (
            pair.kind == GPU_PAIR
            and ma.log_half_width is not None
            and (mb.log_half_width is not None)
        ):
            total = ma.log_half_width + mb.log_half_width
            quadrature = math.hypot(ma.log_half_width, mb.log_half_width)
        scored.append(Scored(pair, ma.value / mb.value, ba.value / bb.value, total, quadrature))
    return scored, dropped


def percent(log_error: float) -> float:
    """A log error as a symmetric percentage: exp(e) - 1."""
    return math.exp(log_error) - 1


def _quantile_percent(log_errors: Sequence[float], q: float) -> float:
    return percent(float(np.percentile(np.asarray(log_errors), q * 100)))


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Rank correlation; None when either side has no spread (all ties)."""
    ra, rb = rankdata(a), rankdata(b)
    if np.std(ra) == 0 or np.std(rb) == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def group_spearman(
    groups: Iterable[Group], predictor: Predictor, catalog: Catalog | None = None
) -> dict[tuple[str, str, str, str | None, int, str], float]:
    """Spearman of predicted vs measured per-GPU values in each group of >= 3 GPUs."""
    specs = (catalog or load_catalog()).by_id
    rhos = {}
    for g in groups:
        if len(g.values) < MIN_GPUS_FOR_SPEARMAN:
            continue
        predicted = [
            predictor(specs[gpu], g.workload_class, g.gpus_per_system, g.workload)
            for gpu in g.values
        ]
        if any(p is None for p in predicted):
            continue
        rho = spearman(list(g.values.values()), [p.value for p in predicted if p is not None])
        if rho is not None:
            key = (g.dataset, g.table_id, g.workload, g.precision, g.gpus_per_system, g.submitter)
            rhos[key] = rho
    return rhos


@dataclass(frozen=True, slots=True)
class Summary:
    label: str
    dataset: str
    pairs: int
    tables: int
    median: float
    p90: float
    baseline_median: float
    baseline_p90: float
    # Fraction of pairs whose order (which GPU is faster) each predictor gets right.
    order: float
    baseline_order: float
    spearman: float | None
    baseline_spearman: float | None
    spearman_groups: int
    coverage_sum: float | None
    coverage_quadrature: float | None


def _order_agreement(predicted: float, measured: float) -> float:
    lp, lm = math.log(predicted), math.log(measured)
    if lp == 0 or lm == 0:
        return 0.5
    return 1.0 if (lp > 0) == (lm > 0) else 0.0


def _coverage(scored: Sequence[Scored], quadrature: bool) -> float | None:
    widths = [s.half_width_quadrature if quadrature else s.half_width_sum for s in scored]
    inside = [s.model_log_error <= w for s, w in zip(scored, widths, strict=True) if w is not None]
    return sum(inside) / len(inside) if inside else None


def summarize(
    label: str,
    dataset: str,
    scored: Sequence[Scored],
    rhos: dict[tuple[str, str, str, str | None, int, str], float] | None = None,
    baseline_rhos: dict[tuple[str, str, str, str | None, int, str], float] | None = None,
) -> Summary | None:
    """One row of the report; Spearman is the mean over the groups the pairs come from."""
    if not scored:
        return None
    model_errors = [s.model_log_error for s in scored]
    base_errors = [s.baseline_log_error for s in scored]
    groups = {(s.pair.dataset, s.pair.table_id, s.pair.workload) for s in scored}
    chosen = {k: v for k, v in (rhos or {}).items() if (k[0], k[1], k[2]) in groups}
    chosen_base = {k: v for k, v in (baseline_rhos or {}).items() if k in chosen}
    return Summary(
        label=label,
        dataset=dataset,
        pairs=len(scored),
        tables=len({s.pair.table_key for s in scored}),
        median=_quantile_percent(model_errors, 0.5),
        p90=_quantile_percent(model_errors, 0.9),
        baseline_median=_quantile_percent(base_errors, 0.5),
        baseline_p90=_quantile_percent(base_errors, 0.9),
        order=statistics.fmean(_order_agreement(s.model, s.pair.measured) for s in scored),
        baseline_order=statistics.fmean(
            _order_agreement(s.baseline, s.pair.measured) for s in scored
        ),
        spearman=statistics.fmean(chosen.values()) if chosen else None,
        baseline_spearman=statistics.fmean(chosen_base.values()) if chosen_base else None,
        spearman_groups=len(chosen),
        coverage_sum=_coverage(scored, quadrature=False),
        coverage_quadrature=_coverage(scored, quadrature=True),
    )
