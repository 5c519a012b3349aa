"""Fit the workload-class model, cross-validate it and write its parameters (its report is
`classreport.py`).

Leave-one-table-out (LOTO): each table is predicted by a fit on all other tables.
Leave-one-GPU-out (LOGO): pairs with a GPU are predicted by a fit without any of that
GPU's measurements. The 80 % interval of a class is q80 of its LOTO pair errors / sqrt 2
(a pair's error combines two GPUs' errors); its coverage is checked on each table with the
half-width computed from the other tables' errors.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.calibrated import CalibratedModel
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import Row, gpu_of, prepare, row_key, table_of
from shared.perfmodel.classmodel import BERT, CLASS_MODEL_VERSION, params_path
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.lab.benchmarks import load_all
from shared.perfmodel.lab.pair_predictors import PerGpu, Predictor
from shared.perfmodel.lab.pair_scores import Scored, score_pairs
from shared.perfmodel.lab.pairs import GPU_PAIR, Pair, build_groups, gpu_pairs, scaling_pairs
from shared.perfmodel.params import MODEL_VERSION
from shared.perfmodel.workloads import (
    CLASS_FAMILY,
    LLM_SERVING,
    MLPERF_LLM_TRAINING,
    TRAINING_CV,
    TRAINING_LLM,
    TRAINING_NLP,
)

INTERVAL_QUANTILE = 0.8
# Benchmark class -> the product's workload class (decode at 64 concurrent requests is
# decode at a serving batch).
PRODUCT_CLASS = {bm.DECODE_SERVING: LLM_SERVING}


def training_base(gpu: GpuSpec, klass: str, precision: str) -> float | None:
    prediction = CalibratedModel().predict(gpu, CLASS_FAMILY[klass], precision)
    return None if prediction is None else prediction.relative_throughput


def product_class(benchmark_class: str) -> str:
    return PRODUCT_CLASS.get(benchmark_class, benchmark_class)


@dataclass(frozen=True, slots=True)
class Evaluation:
    full: FittedParams
    loto: list[Scored]
    logo: list[Scored]
    half_width: dict[str, float]
    # Coverage of the 80 % interval by class, each table scored with widths from others.
    coverage: dict[str, float]
    rows: int
    # Training pairs scored as the product predicts them (served_params): the same refits.
    served_loto: list[Scored] = field(default_factory=list)
    served_logo: list[Scored] = field(default_factory=list)
    # The LLM training benchmarks' pairs as the product's training-llm class predicts them
    # (served_llm_params): the same refits.
    served_llm_loto: list[Scored] = field(default_factory=list)
    served_llm_logo: list[Scored] = field(default_factory=list)
    # Architectures each product training class has a measurement of in the fit's rows.
    measured_architectures: dict[str, list[str]] = field(default_factory=dict)


def measured_architectures(rows: Sequence[Row]) -> dict[str, list[str]]:
    """Architectures measured per product training class: cv by the CNN benchmarks, nlp
    by BERT, llm-training by the MLPerf LLM benchmarks (an architecture's training offset
    is fitted on all three, so a class without its own measurement borrows it). A
    framework written apart from the vendors' libraries (tinygrad) does not count: the
    product predicts those libraries."""
    out: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r.m.independent_framework:
            continue
        if r.m.workload_class == bm.TRAINING_CV:
            out[TRAINING_CV].add(r.gpu.architecture)
        elif r.m.workload in MLPERF_LLM_TRAINING:
            out[TRAINING_LLM].add(r.gpu.architecture)
        elif r.m.workload_class == bm.TRAINING_NLP:
            out[TRAINING_NLP].add(r.gpu.architecture)
    return {klass: sorted(archs) for klass, archs in sorted(out.items())}


def _predictor(params: FittedParams, by_key: dict[tuple[str, ...], Row]) -> Predictor:
    ref = load_catalog().by_id["rtx-3090"]

    def predict(gpu: GpuSpec, klass: str, count: int, workload: str) -> PerGpu | None:
        row = by_key.get(row_key(gpu.id, klass, count, workload))
        if row is None:
            return None
        return PerGpu(math.exp(cf.predict_log(row, params, ref)))

    return predict


def served_params(params: FittedParams, nlp_workloads: Iterable[str] = ()) -> FittedParams:
    """The parameters as the product's cv and nlp classes use them: Lambda's mix with the
    power clock and offsets as fitted; cv without a matrix-multiply share, nlp (each of
    `nlp_workloads`) with BERT's, the share the served nlp class carries."""
    share = params.gemm_share.get(BERT, 0.0)
    return replace(params, gemm_share=dict.fromkeys(nlp_workloads, share))


def served_llm_params(params: FittedParams) -> FittedParams:
    """The parameters as the product's training-llm class uses them: every LLM training
    benchmark at the median of their fitted shares (llm_training_share)."""
    share = params.llm_training_share()
    return replace(params, gemm_share=dict.fromkeys(MLPERF_LLM_TRAINING, share))


def _training_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    return [p for p in pairs if p.workload_class in (bm.TRAINING_CV, bm.TRAINING_NLP)]


def llm_training_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    return [p for p in pairs if p.workload in MLPERF_LLM_TRAINING]


def _served(
    pairs: Sequence[Pair], params: FittedParams, by_key: dict[tuple[str, ...], Row]
) -> tuple[list[Scored], list[Scored]]:
    """Training pairs as the product's nlp/cv classes predict them, and the LLM training
    benchmarks' pairs as its training-llm class does."""
    training = _training_pairs(pairs)
    nlp = {p.workload for p in training if p.workload_class == bm.TRAINING_NLP}
    served = score_pairs(training, _predictor(served_params(params, nlp), by_key))[0]
    llm = _predictor(served_llm_params(params), by_key)
    return served, score_pairs(llm_training_pairs(pairs), llm)[0]


def _fit_without(args: tuple[Sequence[Row], str, str, FittedParams]) -> FittedParams:
    rows, kind, held, warm = args
    key: Callable[[Row], str] = table_of if kind == "table" else gpu_of
    return cf.fit([r for r in rows if key(r) != held], warm=warm)


def evaluate(workers: int = 2, measurements: Sequence[bm.Measurement] | None = None) -> Evaluation:
    """Full fit, then one refit per held-out table and per held-out GPU (in `workers`
    processes: about 110 fits of a few seconds each on the bundled data)."""
    if measurements is None:
        measurements = load_all(include_in_sample=False).measurements
    rows = prepare(measurements, training_base)
    by_key = {
        row_key(r.m.gpu_id, r.m.workload_class, r.m.gpus_per_system, r.m.workload): r for r in rows
    }
    full = cf.fit(rows)
    tables = sorted({table_of(r) for r in rows})
    gpus = sorted({gpu_of(r) for r in rows})
    jobs = [(rows, "table", t, full) for t in tables] + [(rows, "gpu", g, full) for g in gpus]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        fits = list(pool.map(_fit_without, jobs))
    loto: list[Scored] = []
    served_loto: list[Scored] = []
    llm_loto: list[Scored] = []
    for table, params in zip(tables, fits[: len(tables)], strict=True):
        held = [m for m in measurements if f"{m.dataset}|{m.table_id}" == table]
        groups = build_groups(held)
        pairs = gpu_pairs(groups) + scaling_pairs(groups)
        loto += score_pairs(pairs, _predictor(params, by_key))[0]
        served, llm = _served(gpu_pairs(groups), params, by_key)
        served_loto += served
        llm_loto += llm
    all_groups = build_groups(measurements)
    all_pairs = gpu_pairs(all_groups)
    logo: list[Scored] = []
    served_logo: list[Scored] = []
    llm_logo: list[Scored] = []
    for gpu_id, params in zip(gpus, fits[len(tables) :], strict=True):
        pairs = [p for p in all_pairs if gpu_id in (p.gpu_a, p.gpu_b)]
        logo += score_pairs(pairs, _predictor(params, by_key))[0]
        served, llm = _served(pairs, params, by_key)
        served_logo += served
        llm_logo += llm
    half_width, coverage = _intervals([s for s in loto if s.pair.kind == GPU_PAIR])
    # The training-llm class's interval: its own held-out errors on the LLM benchmarks.
    llm_width, llm_coverage = _intervals(llm_loto)
    if llm_width:
        half_width[TRAINING_LLM] = llm_width[bm.TRAINING_NLP]
        coverage[TRAINING_LLM] = llm_coverage[bm.TRAINING_NLP]
    return Evaluation(
        full,
        loto,
        logo,
        half_width,
        coverage,
        len(rows),
        served_loto,
        served_logo,
        llm_loto,
        llm_logo,
        measured_architectures(rows),
    )


def quantile(errors: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(errors), q))


def _intervals(scored: Sequence[Scored]) -> tuple[dict[str, float], dict[str, float]]:
    by_class: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        by_class[product_class(s.pair.workload_class)].append(s)
    half_width, coverage = {}, {}
    for klass, items in by_class.items():
        errors = [s.model_log_error for s in items]
        half_width[klass] = quantile(errors, INTERVAL_QUANTILE) / math.sqrt(2)
        # Each table's pairs against the width the other tables' errors give (once per table).
        widths = {}
        for table in {s.pair.table_key for s in items}:
            others = [o.model_log_error for o in items if o.pair.table_key != table]
            if others:
                widths[table] = quantile(others, INTERVAL_QUANTILE)
        inside = [
            s.model_log_error <= widths[s.pair.table_key]
            for s in items
            if s.pair.table_key in widths
        ]
        coverage[klass] = sum(inside) / len(inside) if inside else float("nan")
    return half_width, coverage


def write_params(evaluation: Evaluation, path: Path | None = None) -> Path:
    target = path or params_path(CLASS_MODEL_VERSION)
    half = dict(evaluation.half_width)
    # Classes without held-out pairs take the widest measured width.
    for klass in ("llm-prefill",):
        half.setdefault(klass, max(half.values()))
    data = {
        "version": CLASS_MODEL_VERSION,
        "calibration": (
            "MLPerf Training and Inference, llmperf, llama.cpp and geerlingguy tables "
            "(shared/perfmodel/data/benchmarks), ratios within tables only; training base: "
            f"Lambda ({MODEL_VERSION})"
        ),
        "fitted": evaluation.full.to_json(),
        "half_width": half,
        "measured_architectures": evaluation.measured_architectures,
        "evaluation": {
            "interval": "80 % (q80 of leave-one-table-out pair errors / sqrt 2)",
            "coverage_by_class": evaluation.coverage,
            "rows": evaluation.rows,
        },
    }
    target.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return target
