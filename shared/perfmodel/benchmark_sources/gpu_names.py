"""Accelerator names as the benchmark files write them -> catalog ids, or a skip reason."""

from __future__ import annotations

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.measurement import (
    SKIP_CPU,
    SKIP_NOT_GPU,
    SKIP_NOT_IN_CATALOG,
    SKIP_POWER,
)

# Every accelerator name in the bundled files, mapped explicitly to a catalog id.
# Names are first normalised by `_normalise_name` (cloud/load-mode tags removed).
GPU_NAME_MAP: dict[str, str] = {
    # MLPerf (submitters spell one GPU several ways).
    "NVIDIA H100-SXM5-80GB": "h100-sxm5",
    "NVIDIA H100-SXM-80GB": "h100-sxm5",
    "NVIDIA H100-PCIe-80GB": "h100-pcie",
    "NVIDIA H100-PCIe": "h100-pcie",
    "NVIDIA H100 NVL": "h100-nvl",
    "H100 NVL Tensor Core GPU (PCIe)": "h100-nvl",
    "NVIDIA H200-SXM5-141GB": "h200-sxm",
    "NVIDIA H200-SXM-141GB": "h200-sxm",
    "NVIDIA H200-NVL-141GB": "h200-nvl",
    # The catalog's GH200 is the 96 GB part; MLPerf v4.0 does not say which one ran.
    "NVIDIA GH200-GraceHopper-Superchip": "gh200",
    "NVIDIA Blackwell GPU (B200-SXM-180GB)": "b200",
    "NVIDIA B200-SXM-180GB": "b200",
    "NVIDIA Blackwell GPU (GB200)": "gb200",
    "NVIDIA GB200": "gb200",
    "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)": "b300",
    "NVIDIA Blackwell Ultra GPU (GB300)": "gb300",
    "NVIDIA A100-PCIe-80GB": "a100-80gb-pcie",
    "NVIDIA A100-PCIE-80GB": "a100-80gb-pcie",
    "NVIDIA A100-SXM4-80GB": "a100-80gb-sxm4",
    "NVIDIA A100-SXM-80GB": "a100-80gb-sxm4",
    "NVIDIA A100-SXM4-80GB (400W)": "a100-80gb-sxm4",
    # Dell's 500 W "CTS" A100: mapped, then skipped by the stated-power rule.
    "NVIDIA A100-SXM-80GB CTS": "a100-80gb-sxm4",
    "NVIDIA A100-SXM-40GB": "a100-40gb-sxm4",
    "NVIDIA A100-SXM4-40GB": "a100-40gb-sxm4",
    "NVIDIA A30": "a30",
    "NVIDIA A30-PCIE-24GB": "a30",
    "NVIDIA A40": "a40",
    "NVIDIA L40": "l40",
    "NVIDIA L40S": "l40s",
    "NVIDIA L4": "l4",
    "NVIDIA L4-PCIe-24GB": "l4",
    "NVIDIA RTX A5000": "rtx-a5000",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    # "SE" = Server Edition (600 W, passive), a catalog entry of its own.
    "NVIDIA RTX Pro 6000 SE PCIe 96GB": "rtx-pro-6000-blackwell-server",
    "AMD Instinct MI300X 192GB HBM3": "mi300x",
    "AMD Instinct MI325X 256GB HBM3E": "mi325x",
    "AMD Instinct MI325X 256GB HBM3e": "mi325x",
    "AMD Instinct MI325X 256GB HBM3E DLC": "mi325x",
    "AMD Instinct MI350X": "mi350x",
    "AMD Instinct MI355X": "mi355x",
    "AMD Radeon RX 7900 XTX": "rx-7900-xtx",
    # llmperf (RunPod names; "RTX A6000 ADA" is RunPod's name for the RTX 6000 Ada).
    "H100 SXM": "h100-sxm5",
    "H200 SXM": "h200-sxm",
    # RunPod's A100 SXM instances are the 80 GB card; the run does not say.
    "A100 SXM": "a100-80gb-sxm4",
    "A40": "a40",
    "L4": "l4",
    "L40": "l40",
    "L40S": "l40s",
    "MI300X": "mi300x",
    "RTX 3090": "rtx-3090",
    "RTX 4090": "rtx-4090",
    "RTX A4000": "rtx-a4000",
    "RTX A5000": "rtx-a5000",
    "RTX A6000": "rtx-a6000",
    "RTX A6000 ADA": "rtx-6000-ada",
    "RTX 4000 Ada": "rtx-4000-ada",
    "RTX 6000 Ada": "rtx-6000-ada",
    # llama.cpp PR tables.
    "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
    "P40": "tesla-p40",
    # geerlingguy (desktop RTX 3060 is the 12 GB card; the 8 GB one is a later cut-down).
    "Nvidia RTX 4090": "rtx-4090",
    "Nvidia 4090": "rtx-4090",
    "Nvidia 5090": "rtx-5090",
    "Nvidia 4080": "rtx-4080",
    "Nvidia 4070": "rtx-4070",
    "Nvidia 4070 Ti Super": "rtx-4070-ti-super",
    "Nvidia RTX 4070 Ti": "rtx-4070-ti",
    "Nvidia RTX 3080 Ti": "rtx-3080-ti",
    "Nvidia RTX 3060": "rtx-3060-12gb",
    "Nvidia RTX 3060 12GB": "rtx-3060-12gb",
    "Nvidia RTX 2080 Ti": "rtx-2080-ti",
    "Nvidia RTX A4000": "rtx-a4000",
    "Nvidia A4000": "rtx-a4000",
}
# Names deliberately not mapped, with the reason counted for them.
UNMAPPED_NAME_REASONS: dict[str, str] = {
    "N/A": SKIP_CPU,
    "Intel N150": SKIP_CPU,
    "Habana Gaudi2": SKIP_NOT_GPU,
    "Intel® Gaudi® 2 AI Accelerator": SKIP_NOT_GPU,
    "TPU-v5p": SKIP_NOT_GPU,
    "TPU-trillium": SKIP_NOT_GPU,
    "TPU v5e": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 Ultra": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 Pro": SKIP_NOT_GPU,
    "Qualcomm Cloud AI 100 Pro": SKIP_NOT_GPU,
    "Qualcomm Cloud AI 100 Standard": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 DM.2e": SKIP_NOT_GPU,
    "DaVinci": SKIP_NOT_GPU,
    # H200 run at 1000 W (stock 700 W): a power-configured variant.
    "NVIDIA H200-SXM-141GB-CTS": SKIP_POWER,
    "NVIDIA Jetson AGX Orin 64G": SKIP_NOT_IN_CATALOG,
    "Nvidia Spark": SKIP_NOT_IN_CATALOG,
    "Nvidia RTX A2000": SKIP_NOT_IN_CATALOG,
    "Nvidia A400": SKIP_NOT_IN_CATALOG,
    "AMD Radeon AI Pro R9700": SKIP_NOT_IN_CATALOG,
    "AMD AI Pro R9700": SKIP_NOT_IN_CATALOG,
    "AMD Pro W7700": SKIP_NOT_IN_CATALOG,
    "AMD 7900 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 7900 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 9070 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 7600": SKIP_NOT_IN_CATALOG,
    "AMD RX 6700 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 6500 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 580": SKIP_NOT_IN_CATALOG,
    "Intel Arc B580": SKIP_NOT_IN_CATALOG,
    "Intel Arc Pro B50": SKIP_NOT_IN_CATALOG,
    "Intel Arc A310 ECO": SKIP_NOT_IN_CATALOG,
}


def _normalise_name(name: str) -> str:
    # llmperf marks RunPod endpoints "(runpod) ..." and parallel-load runs "... (P)".
    text = name.strip().removeprefix("Virtualized ").removeprefix("(runpod) ")
    return text.removesuffix(" (P)").strip()


def map_gpu_name(name: str, catalog: Catalog) -> tuple[str | None, str]:
    """(catalog id, "") or (None, skip reason) for an accelerator name as written."""
    text = _normalise_name(name)
    if text in UNMAPPED_NAME_REASONS:
        return None, UNMAPPED_NAME_REASONS[text]
    gpu_id = GPU_NAME_MAP.get(text)
    if gpu_id is None:
        # Free-form names not listed above; the explicit table is preferred because the
        # matcher is tuned for marketplace titles, not benchmark spellings.
        from shared.catalog.aliases import resolve_alias

        gpu_id = resolve_alias(text)
    if gpu_id is None or gpu_id not in catalog.by_id:
        return None, SKIP_NOT_IN_CATALOG
    return gpu_id, ""
