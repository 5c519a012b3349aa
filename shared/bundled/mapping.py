"""Reviewed tables from provider and retailer GPU names to catalog ids.

An accelerator name alone is often ambiguous ("A100" is four different boards, "V100" four), so
cloud tables are keyed by instance family or instance type as well, checked against the
accelerator name and memory the catalogs report. Names deliberately left out are listed in
`NOT_IN_CATALOG` or `AMBIGUOUS`, so that every skipped row is counted with its reason.
"""

from __future__ import annotations

from typing import Final

# AWS: (instance family, AcceleratorName) -> gpu_id. The family is the part before the ".".
AWS_FAMILIES: Final[dict[tuple[str, str], str]] = {
    ("p3", "V100"): "v100-16gb-sxm2",
    ("p3dn", "V100-32GB"): "v100-32gb-sxm2",
    ("p4d", "A100"): "a100-40gb-sxm4",
    ("p4de", "A100-80GB"): "a100-80gb-sxm4",
    ("p5", "H100"): "h100-sxm5",  # p5.48xlarge and the single-GPU p5.4xlarge
    ("p5e", "H200"): "h200-sxm",
    ("p5en", "H200"): "h200-sxm",
    ("p6-b200", "B200"): "b200",
    ("p6-b300", "B300"): "b300",  # 8x B300 SXM (HGX B300), 275,040 MiB each
}

# Azure: (instance type, AcceleratorName) -> gpu_id. Sizes listed one by one because the series
# names carry the form factor (NCv3 = V100 PCIe, NDv2 = V100 SXM2, NC H100 v5 = H100 NVL).
AZURE_TYPES: Final[dict[tuple[str, str], str]] = {
    # NCv3: V100 16 GB PCIe (NC24rs_v3 is the RDMA variant, same GPU).
    ("Standard_NC6s_v3", "V100"): "v100-16gb-pcie",
    ("Standard_NC12s_v3", "V100"): "v100-16gb-pcie",
    ("Standard_NC24s_v3", "V100"): "v100-16gb-pcie",
    ("Standard_NC24rs_v3", "V100"): "v100-16gb-pcie",
    # NDv2: 8x V100 32 GB SXM2.
    ("Standard_ND40rs_v2", "V100-32GB"): "v100-32gb-sxm2",
    # NCasT4_v3.
    ("Standard_NC4as_T4_v3", "T4"): "t4",
    ("Standard_NC8as_T4_v3", "T4"): "t4",
    ("Standard_NC16as_T4_v3", "T4"): "t4",
    ("Standard_NC64as_T4_v3", "T4"): "t4",
    # NC A100 v4: A100 80 GB PCIe.
    ("Standard_NC24ads_A100_v4", "A100-80GB"): "a100-80gb-pcie",
    ("Standard_NC48ads_A100_v4", "A100-80GB"): "a100-80gb-pcie",
    ("Standard_NC96ads_A100_v4", "A100-80GB"): "a100-80gb-pcie",
    # ND A100 v4 (40 GB SXM4) and NDm A100 v4 (80 GB SXM4).
    ("Standard_ND96asr_v4", "A100"): "a100-40gb-sxm4",
    ("Standard_ND96amsr_A100_v4", "A100-80GB"): "a100-80gb-sxm4",
    # NC H100 v5 and the confidential NCC H100 v5 run the 94 GB H100 NVL.
    ("Standard_NC40ads_H100_v5", "H100"): "h100-nvl",
    ("Standard_NC80adis_H100_v5", "H100"): "h100-nvl",
    ("Standard_NCC40ads_H100_v5", "H100"): "h100-nvl",
    ("Standard_ND96isr_H100_v5", "H100"): "h100-sxm5",
    ("Standard_ND96isr_H200_v5", "H200"): "h200-sxm",
    ("Standard_ND96isr_MI300X_v5", "MI300X"): "mi300x",
    # NVadsA10_v5: the small sizes are GPU partitions (1/6, 1/3, 1/2 of an A10); the catalog's
    # AcceleratorCount keeps the real fraction.
    ("Standard_NV6ads_A10_v5", "A10"): "a10",
    ("Standard_NV12ads_A10_v5", "A10"): "a10",
    ("Standard_NV18ads_A10_v5", "A10"): "a10",
    ("Standard_NV36ads_A10_v5", "A10"): "a10",
    ("Standard_NV36adms_A10_v5", "A10"): "a10",
    ("Standard_NV72ads_A10_v5", "A10"): "a10",
    # NCads A10 v4: A10 too; GPU counts as the catalog states them.
    ("Standard_NC8ads_A10_v4", "A10"): "a10",
    ("Standard_NC16ads_A10_v4", "A10"): "a10",
    ("Standard_NC32ads_A10_v4", "A10"): "a10",
}

# GCP host VM families -> the accelerator row they are priced with and the catalog id.
# GCP prices the host VM (vCPU + memory) and the attached GPUs separately; an instance's price is
# host + the accelerator row with the same name, count and zone.
GCP_FAMILIES: Final[dict[str, tuple[str, str]]] = {
    "a2-highgpu": ("A100", "a100-40gb-sxm4"),
    "a2-megagpu": ("A100", "a100-40gb-sxm4"),
    "a2-ultragpu": ("A100-80GB", "a100-80gb-sxm4"),
    "a3-highgpu": ("H100", "h100-sxm5"),
    "a3-edgegpu": ("H100", "h100-sxm5"),
    "a3-megagpu": ("H100-MEGA", "h100-sxm5"),  # same H100 SXM, more network (priced apart)
    "a3-ultragpu": ("H200", "h200-sxm"),
    "a4-highgpu": ("B200", "b200"),
    "g2-standard": ("L4", "l4"),
}
# g2 shapes do not say their GPU count in the name (Google's G2 machine-type table).
GCP_G2_GPU_COUNTS: Final[dict[str, int]] = {
    "g2-standard-4": 1,
    "g2-standard-8": 1,
    "g2-standard-12": 1,
    "g2-standard-16": 1,
    "g2-standard-32": 1,
    "g2-standard-24": 2,
    "g2-standard-48": 4,
    "g2-standard-96": 8,
}
# Accelerator rows for N1 VMs. Skipped: this catalog snapshot has no n1 host VM rows to add.
GCP_N1_ACCELERATORS: Final[frozenset[str]] = frozenset({"T4", "V100", "P100", "P4"})

# Lambda: instance type -> gpu_id, one by one, because the A100 names mix form factors.
LAMBDA_TYPES: Final[dict[str, str]] = {
    "gpu_1x_a10": "a10",
    "gpu_1x_a100": "a100-40gb-pcie",
    "gpu_2x_a100": "a100-40gb-pcie",
    "gpu_4x_a100": "a100-40gb-pcie",
    # Lambda describes gpu_8x_a100 as "8x A100 (40 GB SXM4)": the 8-GPU node is an HGX board.
    "gpu_8x_a100": "a100-40gb-sxm4",
    "gpu_1x_a100_sxm4": "a100-40gb-sxm4",
    "gpu_8x_a100_80gb_sxm4": "a100-80gb-sxm4",
    "gpu_1x_a6000": "rtx-a6000",
    "gpu_2x_a6000": "rtx-a6000",
    "gpu_4x_a6000": "rtx-a6000",
    "gpu_1x_rtx6000": "quadro-rtx-6000",  # 24 GB: the Turing Quadro, not the RTX 6000 Ada
    "gpu_8x_v100": "v100-16gb-sxm2",
    "gpu_8x_v100_n": "v100-16gb-sxm2",
    "gpu_1x_h100_pcie": "h100-pcie",
    "gpu_1x_h100_sxm5": "h100-sxm5",
    "gpu_2x_h100_sxm5": "h100-sxm5",
    "gpu_4x_h100_sxm5": "h100-sxm5",
    "gpu_8x_h100_sxm5": "h100-sxm5",
    "gpu_1x_gh200": "gh200",
    "gpu_1x_b200_sxm6": "b200",
    "gpu_2x_b200_sxm6": "b200",
    "gpu_4x_b200_sxm6": "b200",
    "gpu_8x_b200_sxm6": "b200",
}

# RunPod: AcceleratorName -> gpu_id. RunPod names the PCIe boards without a suffix.
RUNPOD_GPUS: Final[dict[str, str]] = {
    "A100-80GB": "a100-80gb-pcie",
    "A100-80GB-SXM": "a100-80gb-sxm4",
    "H100": "h100-pcie",
    "H100-SXM": "h100-sxm5",
    "A40": "a40",
    "L4": "l4",
    "L40": "l40",
    "L40S": "l40s",
    "RTX3090": "rtx-3090",
    "RTX4090": "rtx-4090",
    "RTX5090": "rtx-5090",
    "RTX4000-Ada": "rtx-4000-ada",
    "RTX6000-Ada": "rtx-6000-ada",
    "RTXA4000": "rtx-a4000",
    "RTXA4500": "rtx-a4500",
    "RTXA5000": "rtx-a5000",
    "RTXA6000": "rtx-a6000",
    "RTXPRO6000WS": "rtx-pro-6000-blackwell",
}

# Vast: the GPU part of the instance type ("2x-A100_SXM4-32-65536" -> "A100_SXM4"), which keeps
# Vast's own model name; the AcceleratorName column loses it ("RTX_3060_Ti" -> "RTX3060").
VAST_GPUS: Final[dict[str, str]] = {
    "H100_NVL": "h100-nvl",
    # Vast's search API spells the name with spaces ("H100 PCIE"); these two are seen only
    # there (ccir-vastai-2026-03), not in the instance types.
    "H100_PCIE": "h100-pcie",
    "H200_NVL": "h200-nvl",
    "H100_SXM": "h100-sxm5",
    "H200": "h200-sxm",
    "L40S": "l40s",
    "RTX_3060_Ti": "rtx-3060-ti",
    "RTX_3090": "rtx-3090",
    "RTX_4070S_Ti": "rtx-4070-ti-super",
    "RTX_4090": "rtx-4090",
    "RTX_5070": "rtx-5070",
    "RTX_5090": "rtx-5090",
    "RTX_6000Ada": "rtx-6000-ada",
    "RTX_A5000": "rtx-a5000",
    "RTX_A6000": "rtx-a6000",
    "RTX_PRO_6000_WS": "rtx-pro-6000-blackwell",
}
# Vast names shared by boards that differ only in memory: (name, GiB per GPU) -> gpu_id.
VAST_GPUS_BY_MEMORY: Final[dict[tuple[str, int], str]] = {
    ("A100_SXM4", 40): "a100-40gb-sxm4",
    ("A100_SXM4", 80): "a100-80gb-sxm4",
    ("A100_PCIE", 40): "a100-40gb-pcie",
    ("A100_PCIE", 80): "a100-80gb-pcie",
    ("RTX_3060", 12): "rtx-3060-12gb",
    ("RTX_4060_Ti", 8): "rtx-4060-ti-8gb",
    ("RTX_4060_Ti", 16): "rtx-4060-ti-16gb",
}

# Names that are genuinely ambiguous against the catalog, with the reason they are skipped.
AMBIGUOUS: Final[dict[str, str]] = {
    "vast:Tesla_V100": "V100 form factor unknown (PCIe or SXM2)",
}

# Provider and retail names of GPUs the catalog does not have.
NOT_IN_CATALOG: Final[frozenset[str]] = frozenset(
    {
        "azure:M60",
        "azure:MI25",
        "vast:RTX_5880Ada",
        "amazon:NVIDIA_RTX_A2000",
        "amazon:NVIDIA_RTX_4000_SFF_Ada_Generation",  # 70 W SFF board, not the RTX 4000 Ada
    }
)

# gpu-price-feed keys (family + VRAM + form factor where the family has several) -> gpu_id,
# only where the key names exactly one catalog card. Keys left out are counted by the reader:
# "(form unstated)", MIG slices and Mobile parts by their suffix, the sets below by name.
FEED_GPUS: Final[dict[str, str]] = {
    # Datacenter cards with several forms: the form in the key decides.
    "A100 40GB PCIe": "a100-40gb-pcie",
    "A100 40GB SXM": "a100-40gb-sxm4",
    "A100 80GB PCIe": "a100-80gb-pcie",
    "A100 80GB SXM": "a100-80gb-sxm4",
    "B200 180GB SXM": "b200",
    "B300 288GB SXM": "b300",  # HGX B300 (the catalog lists its 270 GB usable)
    "GB300 288GB SXM": "gb300",  # one GPU of the GB300 superchip, priced per GPU
    "H100 80GB PCIe": "h100-pcie",
    "H100 80GB SXM": "h100-sxm5",
    "H100 94GB NVL": "h100-nvl",
    "H200 141GB NVL": "h200-nvl",
    "H200 141GB SXM": "h200-sxm",
    "V100 16GB PCIe": "v100-16gb-pcie",
    "V100 16GB SXM": "v100-16gb-sxm2",
    "RTX PRO 6000 Blackwell 96GB Workstation": "rtx-pro-6000-blackwell",
    "RTX PRO 6000 Blackwell 96GB Server": "rtx-pro-6000-blackwell-server",
    # The 300 W Max-Q Workstation Edition is a catalog card of its own.
    "RTX PRO 6000 Blackwell 96GB Max-Q": "rtx-pro-6000-blackwell-max-q",
    # Cards sold in one form.
    "A10 24GB": "a10",
    "A40 48GB": "a40",
    "GH200 96GB": "gh200",
    "L4 24GB": "l4",
    "L40 48GB": "l40",
    "L40S 48GB": "l40s",
    "MI300X 192GB": "mi300x",
    "MI325X 256GB": "mi325x",
    # RunPod's figure for the MI350X (one form, 288 GB HBM3E): not a different card.
    "MI350X 294GB": "mi350x",
    "P40 24GB": "tesla-p40",
    "T4 16GB": "t4",
    # Workstation cards.
    "Quadro RTX 6000 24GB": "quadro-rtx-6000",
    "Quadro RTX 8000 48GB": "quadro-rtx-8000",
    "RTX 2000 Ada 16GB": "rtx-2000-ada",
    "RTX 4000 Ada 20GB": "rtx-4000-ada",
    "RTX 4500 Ada 24GB": "rtx-4500-ada",
    "RTX 5000 Ada 32GB": "rtx-5000-ada",
    "RTX 6000 Ada 48GB": "rtx-6000-ada",
    "RTX A4000 16GB": "rtx-a4000",
    "RTX A4500 20GB": "rtx-a4500",
    "RTX A5000 24GB": "rtx-a5000",
    "RTX A6000 48GB": "rtx-a6000",
    # Consumer cards.
    "GTX 1060 6GB": "gtx-1060-6gb",
    "GTX 1070 8GB": "gtx-1070",
    "GTX 1070 Ti 8GB": "gtx-1070-ti",
    "GTX 1080 8GB": "gtx-1080",
    "GTX 1080 Ti 11GB": "gtx-1080-ti",
    "GTX 1660 SUPER 6GB": "gtx-1660-super",
    "GTX 1660 Ti 6GB": "gtx-1660-ti",
    "Titan RTX 24GB": "titan-rtx",
    "Titan Xp 12GB": "titan-xp",
    "RTX 2070 8GB": "rtx-2070",
    "RTX 2080 Ti 11GB": "rtx-2080-ti",
    "RTX 3060 12GB": "rtx-3060-12gb",
    "RTX 3060 Ti 8GB": "rtx-3060-ti",
    "RTX 3070 8GB": "rtx-3070",
    "RTX 3070 Ti 8GB": "rtx-3070-ti",
    "RTX 3080 10GB": "rtx-3080-10gb",
    "RTX 3080 Ti 12GB": "rtx-3080-ti",
    "RTX 3090 24GB": "rtx-3090",
    "RTX 3090 Ti 24GB": "rtx-3090-ti",
    "RTX 4060 8GB": "rtx-4060",
    "RTX 4060 Ti 8GB": "rtx-4060-ti-8gb",
    "RTX 4060 Ti 16GB": "rtx-4060-ti-16gb",
    "RTX 4070 12GB": "rtx-4070",
    "RTX 4070 SUPER 12GB": "rtx-4070-super",
    "RTX 4070 Ti 12GB": "rtx-4070-ti",
    "RTX 4070 Ti SUPER 16GB": "rtx-4070-ti-super",
    "RTX 4080 16GB": "rtx-4080",
    "RTX 4080 SUPER 16GB": "rtx-4080-super",
    "RTX 4090 24GB": "rtx-4090",
    "RTX 5060 Ti 16GB": "rtx-5060-ti-16gb",
    "RTX 5070 12GB": "rtx-5070",
    "RTX 5070 Ti 16GB": "rtx-5070-ti",
    "RTX 5080 16GB": "rtx-5080",
    "RTX 5090 32GB": "rtx-5090",
}
# Vast.ai keys with a VRAM size no standard card has (modded boards or misreported memory).
# A 12 GB P100 PCIe exists, but the catalog has only the 16 GB card.
FEED_NONSTANDARD_VRAM: Final[frozenset[str]] = frozenset(
    {
        "RTX 4090 48GB",
        "RTX 2080 Ti 22GB",
        "RTX 4080 SUPER 32GB",
        "RTX 3080 20GB",
        "H100 64GB NVL",
        "P100 12GB (form unstated)",
    }
)
# Feed keys of cards the catalog does not have.
FEED_NOT_IN_CATALOG: Final[frozenset[str]] = frozenset(
    {
        "A16 16GB",
        "A800 80GB PCIe",
        "GTX 1050 Ti 4GB",
        "GTX 1060 3GB",
        "GTX 1660 6GB",
        "Quadro P4000 8GB",
        "RTX 3060 8GB",
        "RTX 4000 SFF Ada 20GB",  # 70 W SFF board, not the RTX 4000 Ada
        "RTX 5060 8GB",
        "RTX 5060 Ti 8GB",
        "RTX 5880 Ada 48GB",
        "RTX A2000 6GB",
        "RTX A2000 12GB",
        "RTX PRO 4000 Blackwell 24GB",
        "RTX PRO 4500 Blackwell 32GB",
        "RTX PRO 5000 Blackwell 48GB",
    }
)

# Amazon tracker files (file stem) -> gpu_id, checked by hand against the file's gpu_name.
AMAZON_FILES: Final[dict[str, str]] = {
    "AMD_Radeon_Instinct_MI300X": "mi300x",
    "NVIDIA_A100_40GB_PCle": "a100-40gb-pcie",  # "PCle" is the tracker's typo for PCIe
    "NVIDIA_A100_80GB_PCle": "a100-80gb-pcie",
    "NVIDIA_A100_80GB_SXM": "a100-80gb-sxm4",
    "NVIDIA_A100_SXM4_40_GB": "a100-40gb-sxm4",
    "NVIDIA_A10G": "a10g",
    "NVIDIA_A10_PCIe": "a10",
    "NVIDIA_A30_PCIe": "a30",
    "NVIDIA_A40_PCIe": "a40",
    "NVIDIA_B200_SXM_192_GB": "b200",
    "NVIDIA_GH200": "gh200",
    "NVIDIA_GeForce_RTX_3070": "rtx-3070",
    "NVIDIA_GeForce_RTX_3090": "rtx-3090",
    "NVIDIA_GeForce_RTX_3090_Ti": "rtx-3090-ti",
    # The tracked listing is the Founders Edition, which exists only with 8 GB.
    "NVIDIA_GeForce_RTX_4060_Ti": "rtx-4060-ti-8gb",
    "NVIDIA_GeForce_RTX_4070": "rtx-4070",
    "NVIDIA_GeForce_RTX_4070_Ti": "rtx-4070-ti",
    "NVIDIA_GeForce_RTX_4080": "rtx-4080",
    "NVIDIA_GeForce_RTX_4080_SUPER": "rtx-4080-super",
    "NVIDIA_GeForce_RTX_4090": "rtx-4090",
    "NVIDIA_GeForce_RTX_5080": "rtx-5080",
    "NVIDIA_GeForce_RTX_5090": "rtx-5090",
    "NVIDIA_H100_PCIe_80_GB": "h100-pcie",
    # The tracker's "H100 PCIe 96 GB" listing is a PNY H100 NVL 94 GB card.
    "NVIDIA_H100_PCIe_96_GB": "h100-nvl",
    "NVIDIA_H100_SXM5_80_GB": "h100-sxm5",
    "NVIDIA_H200_SXM_141_GB": "h200-sxm",
    "NVIDIA_L4": "l4",
    "NVIDIA_L40": "l40",
    "NVIDIA_L40S": "l40s",
    "NVIDIA_Quadro_RTX_6000": "quadro-rtx-6000",
    "NVIDIA_RTX_2000_Ada_Generation": "rtx-2000-ada",
    "NVIDIA_RTX_4000_Ada_Generation": "rtx-4000-ada",
    "NVIDIA_RTX_5000_Ada_Generation": "rtx-5000-ada",
    "NVIDIA_RTX_6000_Ada_Generation": "rtx-6000-ada",
    "NVIDIA_RTX_A4000": "rtx-a4000",
    "NVIDIA_RTX_A4500": "rtx-a4500",
    "NVIDIA_RTX_A5000": "rtx-a5000",
    "NVIDIA_RTX_A6000": "rtx-a6000",
    "NVIDIA_Tesla_P100_PCIe_16_GB": "tesla-p100-16gb",
    "NVIDIA_Tesla_P4": "tesla-p4",
    "NVIDIA_Tesla_T4": "t4",
    "NVIDIA_Tesla_V100_SXM2_16_GB": "v100-16gb-sxm2",
    "NVIDIA_Tesla_V100_SXM2_32_GB": "v100-32gb-sxm2",
    "Nvidia_GeForce_RTX_2080": "rtx-2080",
    "Quadro_RTX_5000": "quadro-rtx-5000",
}

# Tom's Hardware eBay names -> gpu_id. Names absent here (Radeon except the 7900 XTX, Arc,
# GTX 1630 and the plain GTX 1650/1660, RTX 3050) are not in the catalog and are skipped.
EBAY_GPUS: Final[dict[str, str]] = {
    "GeForce RTX 2060": "rtx-2060",
    "GeForce RTX 2060 Super": "rtx-2060-super",
    "GeForce RTX 2070": "rtx-2070",
    "GeForce RTX 2070 Super": "rtx-2070-super",
    "GeForce RTX 2080": "rtx-2080",
    "GeForce RTX 2080 Super": "rtx-2080-super",
    "GeForce RTX 2080 Ti": "rtx-2080-ti",
    # Tom's Hardware tracked the 12 GB card as "RTX 3060 12GB" until April 2022 and as
    # "RTX 3060" from May 2022 on; the rows never overlap, so both are the 12 GB card
    # (the 8 GB variant came out in late 2022 and sold in small numbers).
    "GeForce RTX 3060": "rtx-3060-12gb",
    "GeForce RTX 3060 12GB": "rtx-3060-12gb",
    "GeForce RTX 3060 Ti": "rtx-3060-ti",
    "GeForce RTX 3070": "rtx-3070",
    "GeForce RTX 3070 Ti": "rtx-3070-ti",
    "GeForce RTX 3080": "rtx-3080-10gb",
    "GeForce RTX 3080 12GB": "rtx-3080-12gb",
    "GeForce RTX 3080 Ti": "rtx-3080-ti",
    "GeForce RTX 3090": "rtx-3090",
    "GeForce RTX 3090 Ti": "rtx-3090-ti",
    "GeForce RTX 4060": "rtx-4060",
    "GeForce RTX 4060 Ti": "rtx-4060-ti-8gb",
    "GeForce RTX 4060 Ti 16GB": "rtx-4060-ti-16gb",
    "GeForce RTX 4070": "rtx-4070",
    "GeForce RTX 4070 Ti": "rtx-4070-ti",
    "GeForce RTX 4080": "rtx-4080",
    "GeForce RTX 4090": "rtx-4090",
    "GeForce GTX 1650 Super": "gtx-1650-super",
    "GeForce GTX 1660 Super": "gtx-1660-super",
    "GeForce GTX 1660 Ti": "gtx-1660-ti",
    "Radeon RX 7900 XTX": "rx-7900-xtx",
}


def all_mapped_ids() -> set[str]:
    """Every catalog id some table maps to (tests check each exists in the catalog)."""
    ids = set(AWS_FAMILIES.values()) | set(AZURE_TYPES.values()) | set(LAMBDA_TYPES.values())
    ids |= {gpu_id for _, gpu_id in GCP_FAMILIES.values()}
    ids |= set(RUNPOD_GPUS.values()) | set(VAST_GPUS.values())
    ids |= set(VAST_GPUS_BY_MEMORY.values()) | set(FEED_GPUS.values())
    return ids | set(AMAZON_FILES.values()) | set(EBAY_GPUS.values())
