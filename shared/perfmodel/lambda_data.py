"""Lambda's training benchmarks, read from the files bundled in `shared/perfmodel/data/`.

Provenance and quirks are in `data/SOURCES.md`. Two software generations are kept
apart ("lambda-v1" = NGC PyTorch 22.09/22.10 results, "lambda-2022" = the 2022 blog
table) because the same card differs by 13-24 % between them: only ratios within one
generation are meaningful.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

REFERENCE_GPU = "rtx-3090"
GEN_V1 = "lambda-v1"
GEN_2022 = "lambda-2022"
# Lambda's "fp32" column is the container default: TF32 on Ampere and later.
DATA_PRECISIONS = ("fp16", "fp32")

# Lambda workload -> task family. ncf (recommender), tacotron2 and waveglow (speech)
# are neither CV nor NLP, so they are not used (ncf multi-GPU H100 values are broken too).
WORKLOAD_FAMILY: dict[str, str] = {
    "resnet50": "cv",
    "ssd": "cv",
    "bert_base_squad": "nlp",
    "bert_large_squad": "nlp",
    "transformerxlbase": "nlp",
    "transformerxllarge": "nlp",
    "gnmt": "nlp",
}
UNUSED_WORKLOADS = ("ncf", "tacotron2", "waveglow")
# The 2022 blog table names its models differently.
SEED_MODEL_WORKLOAD: dict[str, str] = {
    "ResNet50": "resnet50",
    "SSD": "ssd",
    "BERT Large Finetune": "bert_large_squad",
    "TransformerXL Large": "transformerxllarge",
}
# Short names accepted by the `workload=` option.
WORKLOAD_ALIASES: dict[str, str] = {
    "bert_base": "bert_base_squad",
    "bert_large": "bert_large_squad",
    "transformerxl_base": "transformerxlbase",
    "transformerxl_large": "transformerxllarge",
}

# Every Lambda GPU name, mapped explicitly to a catalog id; None = deliberately excluded.
# Several H100 SXM5 rows are the same card in different vendors' servers ("builds").
GPU_NAME_MAP: dict[str, str | None] = {
    "Quadro RTX 8000": "quadro-rtx-8000",
    # Lambda Cloud's V100 instances are SXM2 (300 W in Lambda's own `watt` column).
    "LambdaCloud V100 16GB": "v100-16gb-sxm2",
    "RTX 3090": "rtx-3090",
    "LambdaCloud A10": "a10",
    "LambdaCloud A100 40GB PCIe": "a100-40gb-pcie",
    "A100 80GB PCIe": "a100-80gb-pcie",
    "A100 80GB SXM4": "a100-80gb-sxm4",
    "RTX 6000 Ada": "rtx-6000-ada",
    "RTX A6000": "rtx-a6000",
    "RTX 4090": "rtx-4090",
    "H100 80GB PCIe Gen5": "h100-pcie",
    "LambdaCloud H100 80GB PCIe Gen5": "h100-pcie",
    "H100 80GB SXM5": "h100-sxm5",
    "Dell H100 80GB SXM5": "h100-sxm5",
    "DellTexas H100 80GB SXM5": "h100-sxm5",
    "SMC H100 80GB SXM5": "h100-sxm5",
    "1CC H100 80GB SXM5": "h100-sxm5",
    "RAIDZ1 H100 80GB SXM5": "h100-sxm5",
    "LambdaCloud H100 80GB SXM5": "h100-sxm5",
    # 2022 blog names. Its V100 32GB ran in Lambda's SXM2 servers; PCIe has the same
    # bandwidth and memory, so the choice only moves the Tensor Core rate by 10 %.
    "V100 32GB": "v100-32gb-sxm2",
    "Titan RTX": "titan-rtx",
    "RTX 2080 Ti": "rtx-2080-ti",
    # A laptop part: not in the catalog, and laptops run at much lower power.
    "RTX 3080 Max-Q": None,
}
EXCLUDED_NAME_REASONS: dict[str, str] = {
    "RTX 3080 Max-Q": "laptop GPU, not in the catalog",
}


class UnmappedGpuNameError(ValueError):
    """A Lambda GPU name with no explicit entry in GPU_NAME_MAP."""


@dataclass(frozen=True, slots=True)
class Run:
    """One measured training throughput (total over all GPUs of the run)."""

    gpu_id: str
    workload: str
    precision: str
    generation: str
    num_gpu: int
    throughput: float
    batch_size: int | None

    @property
    def family(self) -> str:
        return WORKLOAD_FAMILY[self.workload]


@dataclass(frozen=True, slots=True)
class RatioPoint:
    """Single-GPU throughput of a GPU relative to the reference, same generation."""

    gpu_id: str
    workload: str
    precision: str
    generation: str
    ratio: float

    @property
    def family(self) -> str:
        return WORKLOAD_FAMILY[self.workload]


def canonical_workload(name: str) -> str:
    return WORKLOAD_ALIASES.get(name, name)


def map_gpu_name(name: str) -> str | None:
    """Catalog id for a Lambda name; None when excluded; raises for unknown names."""
    name = _strip_count_prefix(name.strip())
    if name not in GPU_NAME_MAP:
        raise UnmappedGpuNameError(f"Lambda GPU name {name!r} has no entry in GPU_NAME_MAP")
    return GPU_NAME_MAP[name]


def _strip_count_prefix(name: str) -> str:
    # Multi-GPU rows read "2x RTX 3090", "Dell 4x H100 ...", "LambdaCloud 4xV100 16GB".
    words = name.split(" ")
    kept = [w for w in words if not (w[:-1].isdigit() and w.endswith("x"))]
    joined = " ".join(kept)
    for count in ("2x", "4x", "8x"):
        joined = joined.replace(f" {count}V100", " V100")
    return joined


def _read_csv(filename: str) -> list[dict[str, str]]:
    text = resources.files("shared.perfmodel").joinpath("data", filename).read_text("utf-8")
    return list(csv.DictReader(text.splitlines()))


def _v1_batch_sizes(precision: str) -> dict[tuple[str, str], int]:
    sizes: dict[tuple[str, str], int] = {}
    for row in _read_csv(f"pytorch-train-bs-{precision}.csv"):
        for workload in WORKLOAD_FAMILY:
            sizes[(row["name_gpu"], workload)] = int(float(row[workload]))
    return sizes


def _v1_runs(precision: str) -> list[Run]:
    sizes = _v1_batch_sizes(precision)
    runs: list[Run] = []
    for row in _read_csv(f"pytorch-train-throughput-{precision}.csv"):
        gpu_id = map_gpu_name(row["name_gpu"])
        value_count = int(float(row["num_gpu"]))
        for workload in WORKLOAD_FAMILY:
            value = float(row[workload])
            if gpu_id is None or value <= 0:  # 0 = not run or out of memory
                continue
            batch = sizes.get((row["name_gpu"], workload))
            runs.append(Run(gpu_id, workload, precision, GEN_V1, value_count, value, batch))
    return runs


def _seed_runs() -> list[Run]:
    runs: list[Run] = []
    for row in _read_csv("lambda_2022_seed_tables.csv"):
        gpu_id = map_gpu_name(row["gpu"])
        value = float(row["throughput"])
        if gpu_id is None or value <= 0:
            continue
        precision = "fp16" if row["precision"] == "fp16" else "fp32"
        workload = SEED_MODEL_WORKLOAD[row["model"]]
        batch = int(row["max_batch_size"])
        runs.append(Run(gpu_id, workload, precision, GEN_2022, 1, value, batch))
    return runs


def _merge_builds(runs: list[Run]) -> tuple[Run, ...]:
    # Builds of one card differ by up to ~10 %; the median is robust to one odd server.
    groups: dict[tuple[str, str, str, str, int], list[Run]] = defaultdict(list)
    for run in runs:
        groups[(run.gpu_id, run.workload, run.precision, run.generation, run.num_gpu)].append(run)
    merged = []
    for group in groups.values():
        first = group[0]
        value = statistics.median(r.throughput for r in group)
        merged.append(Run(*_key_fields(first), value, first.batch_size))
    return tuple(merged)


def _key_fields(run: Run) -> tuple[str, str, str, str, int]:
    return (run.gpu_id, run.workload, run.precision, run.generation, run.num_gpu)


@lru_cache(maxsize=1)
def load_runs() -> tuple[Run, ...]:
    """All usable runs, both generations, builds of one card merged."""
    raw = _v1_runs("fp16") + _v1_runs("fp32") + _seed_runs()
    return _merge_builds(raw)


@lru_cache(maxsize=1)
def ratio_points() -> tuple[RatioPoint, ...]:
    """Single-GPU ratios to the reference GPU, within each generation."""
    single = [r for r in load_runs() if r.num_gpu == 1]
    ref = {
        (r.workload, r.precision, r.generation): r.throughput
        for r in single
        if r.gpu_id == REFERENCE_GPU
    }
    points = []
    for run in single:
        base = ref.get((run.workload, run.precision, run.generation))
        if base is None or run.gpu_id == REFERENCE_GPU:
            continue
        ratio = run.throughput / base
        points.append(RatioPoint(run.gpu_id, run.workload, run.precision, run.generation, ratio))
    return tuple(points)


def measured_gpu_ids() -> frozenset[str]:
    return frozenset(r.gpu_id for r in load_runs())
