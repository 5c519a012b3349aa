"""What every benchmark loader produces: per-GPU measurements within same-software tables.

The files are bundled in `data/benchmarks/<source>/` with their PROVENANCE.md. The model was
not fitted to any of them (it was fitted on Lambda's data, which can be added here as its
own, in-sample, data set). A measurement belongs to a *table*: a group of results run with
the same software (a `table_id`, or for MLPerf one round + benchmark + scenario), and GPU
ratios are only meaningful inside one table. Per-GPU values of multi-GPU systems are the
system result divided by the accelerator count: derived figures, not official results.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources

from shared.perfmodel import workloads

MLPERF_TRAINING = "mlperf-training"
MLPERF_INFERENCE = "mlperf-inference"
LLMPERF = "llmperf"
LLAMACPP = "llama.cpp"
GEERLINGGUY = "geerlingguy"
LAMBDA_IN_SAMPLE = "lambda (in-sample)"
OUT_OF_SAMPLE_DATASETS = (MLPERF_TRAINING, MLPERF_INFERENCE, LLMPERF, LLAMACPP, GEERLINGGUY)

# The product's workload classes (workloads.py), plus decode at llmperf's 64 concurrent
# requests, kept apart in the reports (the model predicts it as llm-serving).
TRAINING_CV = workloads.TRAINING_CV
TRAINING_NLP = workloads.TRAINING_NLP
LLM_PREFILL = workloads.LLM_PREFILL
LLM_DECODE = workloads.LLM_DECODE
LLM_SERVING = workloads.LLM_SERVING
DIFFUSION = workloads.DIFFUSION
CNN_INFERENCE = workloads.CNN_INFERENCE
DECODE_SERVING = "decode-serving"
WORKLOAD_CLASSES = (
    TRAINING_CV,
    TRAINING_NLP,
    LLM_PREFILL,
    LLM_DECODE,
    DECODE_SERVING,
    LLM_SERVING,
    DIFFUSION,
    CNN_INFERENCE,
)

SKIP_DUPLICATE = "carried-over result (duplicate_of set)"
SKIP_CPU = "CPU-only system or row"
SKIP_NOT_GPU = "accelerator is not a GPU (TPU, Gaudi, Qualcomm, NPU)"
SKIP_NOT_IN_CATALOG = "GPU has no catalog id"
SKIP_INTEGRATED = "integrated or Apple GPU (no catalog id)"
SKIP_POWER = "power configuration differs from the catalog GPU"
SKIP_BENCHMARK = "benchmark outside the workload classes"
SKIP_SAME_RUN = "same run as the -99 accuracy entry"
SKIP_REFERENCE_CODE = "MLCommons reference implementation (written for correctness, not speed)"
SKIP_MIXED_TEST = "mixed test (prompt + generation) or CPU offload"
SKIP_NO_VALUE = "no value or no accelerator count"
SKIP_OTHER_UNIT = "converged amount logged in another unit (100x off the benchmark's typical)"


@dataclass(frozen=True, slots=True)
class Measurement:
    """One per-GPU throughput in one table; ratios are only formed within `table_id`."""

    dataset: str
    table_id: str
    workload_class: str
    # The benchmark, test or model inside the table (GPUs are compared on the same one).
    workload: str
    gpu_id: str
    gpus_per_system: int
    precision: str | None
    value: float
    unit: str
    # True when divided by the accelerator count or computed from other columns.
    derived: bool
    system: str
    # Only MLPerf: who submitted (for the same-submitter sensitivity check).
    submitter: str = ""
    # Only MLPerf Training: a framework written apart from the vendors' libraries
    # (tinygrad), so without their FP8 training path (Transformer Engine).
    independent_framework: bool = False


@dataclass(frozen=True, slots=True)
class Skip:
    dataset: str
    reason: str
    detail: str


@dataclass(slots=True)
class LoadResult:
    """Measurements, and how many source rows were read and skipped, by reason."""

    measurements: list[Measurement] = field(default_factory=list)
    rows_read: Counter[str] = field(default_factory=Counter)
    skipped: Counter[Skip] = field(default_factory=Counter)

    def skip(self, dataset: str, reason: str, detail: str) -> None:
        self.skipped[Skip(dataset, reason, detail)] += 1

    def extend(self, other: LoadResult) -> None:
        self.measurements.extend(other.measurements)
        self.rows_read.update(other.rows_read)
        self.skipped.update(other.skipped)

    def skipped_by_reason(self) -> Counter[tuple[str, str]]:
        totals: Counter[tuple[str, str]] = Counter()
        for skip, count in self.skipped.items():
            totals[(skip.dataset, skip.reason)] += count
        return totals


def read_rows(source: str, filename: str) -> list[dict[str, str]]:
    path = resources.files("shared.perfmodel").joinpath("data", "benchmarks", source, filename)
    # StringIO keeps line breaks inside quoted fields (notes) within their row.
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


def positive_int(text: str) -> int | None:
    try:
        value = int(float(text))
    except ValueError:
        return None
    return value if value > 0 else None
