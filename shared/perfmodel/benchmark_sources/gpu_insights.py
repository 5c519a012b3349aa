"""GPU-Insights (xiaoran007): single-GPU PyTorch training scores and 1/2/4-GPU pairs.

Scores are proportional to training samples/s (PROVENANCE.md). A table is one model, one
benchmark version (ver1 fixed batch, ver2 automatic batch: not comparable) and one
precision column. None of the models is an LLM: they are the small-model end of the LLM
training share (full training far below 1 B parameters).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    SKIP_NO_VALUE,
    SKIP_NOT_IN_CATALOG,
    LoadResult,
    read_rows,
)
from shared.perfmodel.benchmark_sources.training_runs import GPU_INSIGHTS, TrainingRun
from shared.perfmodel.memory import FULL

SOURCE = "gpu-insights"
# Parameters (billions) of each benchmark model: ResNet-50 and ViT-B/16 as published; the
# repository's UNet and DDPM are a few tens of millions (order of magnitude only: at that
# size the share is near zero for any fitted size scale of 1 B and more).
MODEL_PARAMS_B = {"resnet50": 0.0256, "vit": 0.086, "unet": 0.03, "ddpm": 0.035}
# The two precision columns: fp16 is mixed precision (BF16 where the note says so).
PRECISION_COLUMNS = {"fp16": "fp16", "fp32": "fp32"}
# Names the shared map does not know (GPU-Insights spells them as the driver does).
NAMES = {
    "NVIDIA H100 80GB HBM3": "h100-sxm5",
    "NVIDIA A100-PCIE": "a100-40gb-pcie",
    "Tesla V100-PCIE-32GB": "v100-32gb-pcie",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "rtx-pro-6000-blackwell-server",
}
SKIP_MULTI_GPU = "multi-GPU row (the pairs file holds the scaling)"
SKIP_MEMORY = "memory differs from the catalog card (modded or virtual)"
SKIP_PARTIAL = "row marked partial"
# A stated memory within this fraction of the catalog's is the catalog card (95.6 vs 96 GB).
MEMORY_TOLERANCE = 0.1


@dataclass(frozen=True, slots=True)
class ScalingPair:
    """A submitter's one-GPU and n-GPU scores of one model (DDP, same version)."""

    model: str
    gpu: str
    gpus: int
    precision: str
    speedup: float
    version: str
    notes: str


def _gpu_id(name: str, memory: str, catalog: Catalog) -> tuple[str | None, str]:
    gpu_id = NAMES.get(name)
    if gpu_id is None:
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            return None, reason or SKIP_NOT_IN_CATALOG
    stated = float(memory.removesuffix("GB"))
    if abs(stated / catalog.by_id[gpu_id].memory_gb - 1) > MEMORY_TOLERANCE:
        return None, SKIP_MEMORY
    return gpu_id, ""


def load_gpu_insights(catalog: Catalog) -> tuple[list[TrainingRun], LoadResult]:
    """Single-GPU runs, one per GPU and table (the median of a GPU's repeated rows)."""
    result = LoadResult()
    values: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for row in read_rows(SOURCE, "gpu_insights_all_rows.csv"):
        result.rows_read[SOURCE] += 1
        device = row["device"]
        if " GPUs" in device or device.startswith(("2x ", "4x ", "8x ")):
            result.skip(SOURCE, SKIP_MULTI_GPU, device)
            continue
        if "partial" in row["note"]:
            result.skip(SOURCE, SKIP_PARTIAL, device)
            continue
        gpu_id, reason = _gpu_id(device, row["memory"], catalog)
        if gpu_id is None:
            result.skip(SOURCE, reason, device)
            continue
        for column, precision in PRECISION_COLUMNS.items():
            text = row[column].strip()
            if not text or float(text) <= 0:
                result.skip(SOURCE, SKIP_NO_VALUE, f"{device} {column}")
                continue
            values[(row["model"], row["version"], precision, gpu_id)].append(float(text))
    runs = [
        TrainingRun(
            dataset=GPU_INSIGHTS,
            table_id=f"gpu-insights {model} {version} {precision}",
            workload=model,
            gpu_id=gpu_id,
            gpus=1,
            params_b=MODEL_PARAMS_B[model],
            mode=FULL,
            precision=precision,
            value=float(statistics.median(found)),
            unit="score (samples/s x const)",
            system=gpu_id,
        )
        for (model, version, precision, gpu_id), found in sorted(values.items())
    ]
    return runs, result


def load_gpu_insights_pairs() -> list[ScalingPair]:
    """The derived 1 vs 2/4-GPU pairs, as the team's file states them."""
    return [
        ScalingPair(
            model=row["model"],
            gpu=row["gpu"],
            gpus=int(row["n_gpus"]),
            precision=row["precision"],
            speedup=float(row["derived_speedup"]),
            version=row["version"],
            notes=row["notes"],
        )
        for row in read_rows(SOURCE, "gpu_insights_multi_gpu_pairs_derived.csv")
    ]
