"""Out-of-sample validation: predicted vs measured GPU ratios within benchmark tables.

A *group* is one table, one workload in it, one precision and one system size; its cell
per GPU is the median per-GPU value of that GPU's systems. A GPU pair is two GPUs of one
group (pairs never cross tables or system sizes). A scaling pair is one GPU at a larger
system size vs its smallest size in the same table and workload.

Error of a pair = |ln(predicted ratio / measured ratio)|, reported as exp(error) - 1, so
a factor of 1.25 either way is 25 %. Predictors are functions of the catalog spec; the
current model is not fitted to these tables, so every table is already held out for it.
A model fitted to them must be scored with `leave_one_table_out`.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.stats import rankdata

from shared.catalog.specs import Catalog, GpuSpec, load_catalog
from shared.catalog.tasks import TASKS
from shared.perfmodel.base import PerformanceModel
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.benchmarks import load_all
from shared.perfmodel.registry import get_model, multi_gpu_speedup

GPU_PAIR, SCALING_PAIR = "gpu", "scaling"
# The /recommend task whose model family each class is scored with (shared/catalog/tasks.py).
CLASS_TASK: dict[str, str] = {
    bm.TRAINING_CV: "cv",
    bm.TRAINING_NLP: "nlp",
    bm.LLM_PREFILL: "llm-inference",
    bm.LLM_DECODE: "llm-inference",
    bm.DECODE_SERVING: "llm-inference",
    bm.LLM_SERVING: "llm-inference",
    bm.DIFFUSION: "image-generation",
    bm.CNN_INFERENCE: "cv",
}
# /recommend's default precision; the sources rarely state one the model knows.
MODEL_PRECISION = "fp16"
MIN_GPUS_FOR_SPEARMAN = 3


def class_family(workload_class: str) -> str:
    return TASKS[CLASS_TASK[workload_class]].family


@dataclass(frozen=True, slots=True)
class PerGpu:
    """A predictor's per-GPU throughput on a common scale, and its interval's log half-width."""

    value: float
    log_half_width: float | None = None


# (GPU, workload class, GPUs in the system, workload) -> per-GPU prediction, None =
# cannot predict. The workload names the benchmark (model size, quantisation, batch).
Predictor = Callable[[GpuSpec, str, int, str], PerGpu | None]


def model_predictor(model: PerformanceModel | None = None) -> Predictor:
    """What /recommend says: the family at fp16, times its multi-GPU speed-up per GPU."""
    chosen = model or get_model()
    cache: dict[tuple[str, str, int], PerGpu | None] = {}

    def predict(gpu: GpuSpec, workload_class: str, count: int, workload: str) -> PerGpu | None:
        key = (gpu.id, workload_class, count)
        if key not in cache:
            family = class_family(workload_class)
            prediction = chosen.predict(gpu, family, MODEL_PRECISION)
            if prediction is None:
                cache[key] = None
            else:
                per_gpu = multi_gpu_speedup(gpu, count, family) / count
                low, high = prediction.interval
                half = math.log(high / low) / 2
                cache[key] = PerGpu(prediction.relative_throughput * per_gpu, half)
        return cache[key]

    return predict


def bandwidth_predictor(
    gpu: GpuSpec, workload_class: str, count: int, workload: str
) -> PerGpu | None:
    """Dettmers' rule: memory bandwidth alone; per-GPU throughput independent of count."""
    return PerGpu(gpu.memory_bandwidth_gbs)


@dataclass(frozen=True, slots=True)
class Group:
    """GPUs comparable on one workload of one table: same stated precision and system size."""

    dataset: str
    table_id: str
    workload_class: str
    workload: str
    precision: str | None
    gpus_per_system: int
    submitter: str
    # Median per-GPU value of each GPU's systems in this group.
    values: dict[str, float]


@dataclass(frozen=True, slots=True)
class Pair:
    """Two measurements of one table: two GPUs (kind "gpu") or one GPU at two sizes."""

    kind: str
    dataset: str
    table_id: str
    workload_class: str
    workload: str
    gpu_a: str
    gpu_b: str
    count_a: int
    count_b: int
    # Per-GPU value of a / per-GPU value of b.
    measured: float

    @property
    def table_key(self) -> tuple[str, str]:
        return (self.dataset, self.table_id)


def build_groups(measurements: Iterable[bm.Measurement], by_submitter: bool = False) -> list[Group]:
    """Cells per (table, workload, precision, system size[, submitter]); medians per GPU."""
    cells: dict[tuple[str, str, str, str, str | None, int, str], dict[str, list[float]]]
    cells = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        submitter = m.submitter if by_submitter else ""
        key = (
            m.dataset,
            m.table_id,
            m.workload_class,
            m.workload,
            m.precision,
            m.gpus_per_system,
            submitter,
        )
        cells[key][m.gpu_id].append(m.value)
    return [
        Group(*key, values={gpu: statistics.median(v) for gpu, v in sorted(by_gpu.items())})
        for key, by_gpu in sorted(cells.items(), key=lambda item: repr(item[0]))
    ]


def gpu_pairs(groups: Iterable[Group]) -> list[Pair]:
    """Every two GPUs of one group, a / b with a before b by catalog id."""
    pairs = []
    for g in groups:
        for a, b in combinations(sorted(g.values), 2):
            n = g.gpus_per_system
            measured = g.values[a] / g.values[b]
            pairs.append(
                Pair(
                    GPU_PAIR,
                    g.dataset,
                    g.table_id,
                    g.workload_class,
                    g.workload,
                    a,
                    b,
                    n,
                    n,
                    measured,
                )
            )
    return pairs


def scaling_pairs(groups: Iterable[Group]) -> list[Pair]:
    """Each larger system size of a GPU vs its smallest size, in one table and workload."""
    sizes: dict[tuple[str, str, str, str, str | None, str, str], dict[int, float]]
    sizes = defaultdict(dict)
    for g in groups:
        for gpu, value in g.values.items():
            key = (
                g.dataset,
                g.table_id,
                g.workload_class,
                g.workload,
                g.precision,
                g.submitter,
                gpu,
            )
            sizes[key][g.gpus_per_system] = value
    pairs = []
    for key, by_count in sorted(sizes.items(), key=lambda item: repr(item[0])):
        dataset, table_id, workload_class, workload, _, _, gpu = key
        smallest = min(by_count)
        for count in sorted(by_count):
            if count == smallest:
                continue
            measured = by_count[count] / by_count[smallest]
            pairs.append(
                Pair(
                    SCALING_PAIR,
                    dataset,
                    table_id,
                    workload_class,
                    workload,
                    gpu,
                    gpu,
                    count,
                    smallest,
                    measured,
                )
            )
    return pairs


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


def leave_one_table_out(
    measurements: Sequence[bm.Measurement],
    fit: Callable[[Sequence[bm.Measurement]], Predictor],
    baseline: Predictor = bandwidth_predictor,
) -> tuple[list[Scored], int]:
    """The protocol for a model fitted to these data: each table is predicted by a fit
    on every other table, so no measurement of a table reaches its own prediction."""
    scored: list[Scored] = []
    dropped = 0
    tables = sorted({(m.dataset, m.table_id) for m in measurements})
    for table in tables:
        train = [m for m in measurements if (m.dataset, m.table_id) != table]
        held_out = [m for m in measurements if (m.dataset, m.table_id) == table]
        groups = build_groups(held_out)
        part, lost = score_pairs(gpu_pairs(groups) + scaling_pairs(groups), fit(train), baseline)
        scored.extend(part)
        dropped += lost
    return scored, dropped


@dataclass(frozen=True, slots=True)
class Validation:
    """Everything the report shows."""

    load: bm.LoadResult
    groups: list[Group]
    scored: list[Scored]
    dropped: int
    rhos: dict[tuple[str, str, str, str | None, int, str], float]
    baseline_rhos: dict[tuple[str, str, str, str | None, int, str], float]
    submitter_scored: list[Scored]
    in_sample_gpus: frozenset[str]

    def select(
        self,
        kind: str = GPU_PAIR,
        datasets: Iterable[str] = bm.OUT_OF_SAMPLE_DATASETS,
        classes: Iterable[str] | None = None,
        scored: Sequence[Scored] | None = None,
    ) -> list[Scored]:
        wanted_sets, wanted_classes = set(datasets), set(classes or bm.WORKLOAD_CLASSES)
        return [
            s
            for s in (self.scored if scored is None else scored)
            if s.pair.kind == kind
            and s.pair.dataset in wanted_sets
            and s.pair.workload_class in wanted_classes
        ]

    def summary(self, label: str, dataset: str, scored: Sequence[Scored]) -> Summary | None:
        # Rank correlation is over GPUs of one group; scaling pairs have no such ranking.
        if any(s.pair.kind != GPU_PAIR for s in scored):
            return summarize(label, dataset, scored)
        return summarize(label, dataset, scored, self.rhos, self.baseline_rhos)

    def outside_fit(self, scored: Sequence[Scored]) -> list[Scored]:
        """Pairs with at least one GPU the model was not fitted on (Lambda's GPUs)."""
        return [
            s
            for s in scored
            if s.pair.gpu_a not in self.in_sample_gpus or s.pair.gpu_b not in self.in_sample_gpus
        ]


def run_validation(model: PerformanceModel | None = None) -> Validation:
    """Load every source, pair within tables and score the model and the baseline."""
    from shared.perfmodel.lambda_data import measured_gpu_ids

    load = load_all()
    catalog = load_catalog()
    predictor = model_predictor(model)
    groups = build_groups(load.measurements)
    scored, dropped = score_pairs(gpu_pairs(groups) + scaling_pairs(groups), predictor)
    mlperf = [
        m for m in load.measurements if m.dataset in (bm.MLPERF_TRAINING, bm.MLPERF_INFERENCE)
    ]
    submitter_scored, _ = score_pairs(gpu_pairs(build_groups(mlperf, by_submitter=True)), predictor)
    return Validation(
        load=load,
        groups=groups,
        scored=scored,
        dropped=dropped,
        rhos=group_spearman(groups, predictor, catalog),
        baseline_rhos=group_spearman(groups, bandwidth_predictor, catalog),
        submitter_scored=submitter_scored,
        in_sample_gpus=measured_gpu_ids(),
    )
