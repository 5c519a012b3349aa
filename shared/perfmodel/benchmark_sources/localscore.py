"""LocalScore (llamafile / llama.cpp) prompt-processing medians per GPU, 2025.

The bundled file holds derived figures (per-GPU medians over user submissions, see its
PROVENANCE.md): the leaderboard's data carries no licence, so the scrape is not shipped.
One table per model: LocalScore's own test mix, the same binary for every GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import (
    LLM_PREFILL,
    SKIP_INTEGRATED,
    SKIP_NOT_IN_CATALOG,
    LoadResult,
    Measurement,
    read_rows,
)

LOCALSCORE = "localscore"
SOURCE_DIR = "localscore-2025"
FILENAME = "localscore_prompt_medians.csv"
TABLE_PREFIX = "localscore-2025"
SKIP_LAPTOP = "laptop GPU (shares a name with a faster desktop card; not in the catalog)"

# LocalScore's spellings (driver names) -> catalog ids. Cards sold in two memory sizes
# under one name are told apart by the memory the driver reported (`_VARIANTS`).
NAME_MAP: dict[str, str] = {
    "NVIDIA A10": "a10",
    "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
    "NVIDIA A100-SXM4-80GB": "a100-80gb-sxm4",
    "NVIDIA A40": "a40",
    "NVIDIA GeForce GTX 1080 Ti": "gtx-1080-ti",
    "NVIDIA GeForce RTX 2060 SUPER": "rtx-2060-super",
    "NVIDIA GeForce RTX 2070 SUPER": "rtx-2070-super",
    "NVIDIA GeForce RTX 2080 Ti": "rtx-2080-ti",
    "NVIDIA GeForce RTX 3060 Ti": "rtx-3060-ti",
    "NVIDIA GeForce RTX 3070": "rtx-3070",
    "NVIDIA GeForce RTX 3070 Ti": "rtx-3070-ti",
    "NVIDIA GeForce RTX 3080 Ti": "rtx-3080-ti",
    "NVIDIA GeForce RTX 3090": "rtx-3090",
    "NVIDIA GeForce RTX 3090 Ti": "rtx-3090-ti",
    "NVIDIA GeForce RTX 4060": "rtx-4060",
    "NVIDIA GeForce RTX 4070": "rtx-4070",
    "NVIDIA GeForce RTX 4070 SUPER": "rtx-4070-super",
    "NVIDIA GeForce RTX 4070 Ti": "rtx-4070-ti",
    "NVIDIA GeForce RTX 4070 Ti SUPER": "rtx-4070-ti-super",
    "NVIDIA GeForce RTX 4080": "rtx-4080",
    "NVIDIA GeForce RTX 4080 SUPER": "rtx-4080-super",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "NVIDIA GeForce RTX 5060 Ti": "rtx-5060-ti-16gb",
    "NVIDIA GeForce RTX 5070": "rtx-5070",
    "NVIDIA GeForce RTX 5070 Ti": "rtx-5070-ti",
    "NVIDIA GeForce RTX 5080": "rtx-5080",
    "NVIDIA GeForce RTX 5090": "rtx-5090",
    # "80GB HBM3" is the SXM5 module's driver name (the PCIe card says "PCIe").
    "NVIDIA H100 80GB HBM3": "h100-sxm5",
    "NVIDIA H100 NVL": "h100-nvl",
    "NVIDIA H100 PCIe": "h100-pcie",
    "NVIDIA L4": "l4",
    "NVIDIA L40": "l40",
    "NVIDIA L40S": "l40s",
    "NVIDIA RTX 2000 Ada Generation": "rtx-2000-ada",
    "NVIDIA RTX 4000 Ada Generation": "rtx-4000-ada",
    "NVIDIA RTX 6000 Ada Generation": "rtx-6000-ada",
    "NVIDIA RTX A4000": "rtx-a4000",
    "NVIDIA RTX A4500": "rtx-a4500",
    "NVIDIA RTX A5000": "rtx-a5000",
    "NVIDIA RTX A6000": "rtx-a6000",
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "rtx-pro-6000-blackwell",
    "NVIDIA TITAN V": "titan-v",
    "Quadro RTX 8000": "quadro-rtx-8000",
    "Radeon RX 7900 XTX": "rx-7900-xtx",
    "AMD Radeon RX 7900 XTX": "rx-7900-xtx",
    # The catalog's P100 is the PCIe card (250 W); the SXM2 module runs at 300 W and a
    # higher clock (10.6 vs 9.3 TFLOPS FP32): close enough for a no-tensor-core class.
    "Tesla P100-SXM2-16GB": "tesla-p100-16gb",
    "Tesla T4": "t4",
    "Tesla V100-SXM2-32GB": "v100-32gb-sxm2",
}
# name -> (memory size in GB the driver reports at or above which, id above, id below).
_VARIANTS: dict[str, tuple[float, str, str]] = {
    "NVIDIA GeForce RTX 3060": (11.0, "rtx-3060-12gb", ""),
    "NVIDIA GeForce RTX 3080": (11.0, "rtx-3080-12gb", "rtx-3080-10gb"),
    "NVIDIA GeForce RTX 4060 Ti": (15.0, "rtx-4060-ti-16gb", "rtx-4060-ti-8gb"),
}


@dataclass(frozen=True, slots=True)
class LocalScoreMedian:
    """One GPU on one model: the median over its submissions and their range."""

    model: str
    accel_name: str
    gpu_id: str
    submissions: int
    prompt_tps_median: float
    prompt_tps_min: float
    prompt_tps_max: float

    @property
    def spread(self) -> float:
        """max / min over the submissions (1.0 for a single submission)."""
        return self.prompt_tps_max / self.prompt_tps_min


def _catalog_id(name: str, ram: str, catalog: Catalog) -> tuple[str | None, str]:
    if "Laptop" in name:
        return None, SKIP_LAPTOP
    if name.startswith("AMD Radeon Graphics"):
        return None, SKIP_INTEGRATED
    if name in _VARIANTS:
        threshold, above, below = _VARIANTS[name]
        sizes = [float(x) for x in ram.split(";") if x]
        gpu_id = above if max(sizes, default=0.0) >= threshold else below
        return (gpu_id, "") if gpu_id in catalog.by_id else (None, SKIP_NOT_IN_CATALOG)
    if name in NAME_MAP:
        gpu_id = NAME_MAP[name]
        return (gpu_id, "") if gpu_id in catalog.by_id else (None, SKIP_NOT_IN_CATALOG)
    return map_gpu_name(name, catalog)


def table_id(model: str) -> str:
    return f"{TABLE_PREFIX} {model}"


def load_localscore_medians(
    catalog: Catalog, result: LoadResult | None = None
) -> list[LocalScoreMedian]:
    """The bundled medians with their catalog ids; unmapped GPUs counted in `result`."""
    out = []
    for row in read_rows(SOURCE_DIR, FILENAME):
        if result is not None:
            result.rows_read[LOCALSCORE] += 1
        gpu_id, reason = _catalog_id(row["accel_name"], row["accel_ram_gb"], catalog)
        if gpu_id is None:
            if result is not None:
                result.skip(LOCALSCORE, reason, row["accel_name"])
            continue
        out.append(
            LocalScoreMedian(
                model=row["model"],
                accel_name=row["accel_name"],
                gpu_id=gpu_id,
                submissions=int(row["submissions"]),
                prompt_tps_median=float(row["prompt_tps_median"]),
                prompt_tps_min=float(row["prompt_tps_min"]),
                prompt_tps_max=float(row["prompt_tps_max"]),
            )
        )
    return out


def _merge(medians: list[LocalScoreMedian]) -> list[LocalScoreMedian]:
    """One row per model and catalog GPU: two spellings of one card ("AMD Radeon RX 7900
    XTX", "Radeon RX 7900 XTX") are merged, their medians weighted by submissions in
    log space (the submissions themselves are not bundled)."""
    by_key: dict[tuple[str, str], list[LocalScoreMedian]] = {}
    for m in medians:
        by_key.setdefault((m.model, m.gpu_id), []).append(m)
    out = []
    for parts in by_key.values():
        if len(parts) == 1:
            out.append(parts[0])
            continue
        n = sum(p.submissions for p in parts)
        log_mean = sum(p.submissions * math.log(p.prompt_tps_median) for p in parts) / n
        out.append(
            LocalScoreMedian(
                model=parts[0].model,
                accel_name=" / ".join(p.accel_name for p in parts),
                gpu_id=parts[0].gpu_id,
                submissions=n,
                prompt_tps_median=math.exp(log_mean),
                prompt_tps_min=min(p.prompt_tps_min for p in parts),
                prompt_tps_max=max(p.prompt_tps_max for p in parts),
            )
        )
    return out


def load_localscore(catalog: Catalog) -> LoadResult:
    """Prompt tokens/s per GPU (median over submissions), one table per model."""
    result = LoadResult()
    for median in _merge(load_localscore_medians(catalog, result)):
        result.measurements.append(
            Measurement(
                dataset=LOCALSCORE,
                table_id=table_id(median.model),
                workload_class=LLM_PREFILL,
                workload=f"{median.model} Q4_K_M",
                gpu_id=median.gpu_id,
                gpus_per_system=1,
                precision="Q4_K_M",
                value=median.prompt_tps_median,
                unit="prompt tokens/s (median over submissions)",
                derived=True,
                system=f"{median.accel_name} ({median.submissions} submissions)",
            )
        )
    return result
