"""Out-of-sample validation: predicted vs measured GPU ratios within benchmark tables.

Measurements are put in groups and pairs (`pairs.py`), predicted by the model and the
bandwidth baseline (`pair_predictors.py`) and scored (`pair_scores.py`). The current model
is not fitted to these tables, so every table is already held out for it. A model fitted
to them must be scored with `leave_one_table_out`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from shared.catalog.specs import load_catalog
from shared.perfmodel.base import PerformanceModel
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.lab.benchmarks import load_all
from shared.perfmodel.lab.pair_predictors import Predictor, bandwidth_predictor, model_predictor
from shared.perfmodel.lab.pair_scores import Scored, Summary, group_spearman, score_pairs, summarize
from shared.perfmodel.lab.pairs import GPU_PAIR, Group, build_groups, gpu_pairs, scaling_pairs


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
