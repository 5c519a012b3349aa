"""TensorRT-LLM's performance overview: the prefill-heavy rows (2048/128 and 5000/500).

The bundled file is the page's tables copied verbatim (markdown). A column is one GPU at
one tensor/pipeline-parallel layout and precision; a row one input/output length. The
per-GPU figure is derived: all tokens processed per second (prompt + generated) divided
by the GPUs of the layout (see PROVENANCE.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from shared.catalog.specs import Catalog
from shared.perfmodel.benchmark_sources.measurement import (
    LLM_PREFILL,
    SKIP_NOT_IN_CATALOG,
    LoadResult,
    Measurement,
)

TENSORRT_LLM = "tensorrt-llm"
SOURCE_DIR = "trtllm-perf-overview"
FILENAME = "perf-overview_tables_excerpt.md"
# Input/output lengths whose prompts dominate the work (16x and 10x the generated tokens).
PREFILL_HEAVY = ("2048/128", "5000/500")
SKIP_NOT_PREFILL = "input/output length not prefill-heavy"

GPU_IDS: dict[str, str] = {
    "H100": "h100-sxm5",  # DGX H100
    "H200": "h200-sxm",  # DGX H200
    "B200": "b200",  # DGX B200
    "GB200": "gb200",  # GB200 NVL72
    "RTX 6000 Pro Blackwell Server Edition": "rtx-pro-6000-blackwell-server",
}
# Published parameter counts (billions): total and active per token (mixture of experts).
MODEL_PARAMS_B: dict[str, tuple[float, float]] = {
    "Llama 4 Scout": (109.0, 17.0),
    "Llama 3.3 70B": (70.6, 70.6),
    "Qwen3-235B-A22B": (235.0, 22.0),
    "Qwen3-30B-A3B": (30.5, 3.3),
    "Llama 4 Maverick": (400.0, 17.0),
    "Llama 3.1 405B": (405.0, 405.0),
    "Llama 3.1 8B": (8.0, 8.0),
}

_HEADER = re.compile(r"^(?P<gpu>.+?)<br/>(?P<layout>[A-Z0-9,]+) \((?P<precision>FP\d)\)$")
_BOLD_COUNT = re.compile(r"^\*\*(?P<n>\d+) GPUs?\*\*$")
_TP = re.compile(r"TP(\d+)")
_PP = re.compile(r"PP(\d+)")


@dataclass(frozen=True, slots=True)
class TrtColumn:
    gpu_name: str
    tp: int
    pp: int
    precision: str

    @property
    def gpus(self) -> int:
        return self.tp * self.pp


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _column(header: str, current_gpu: str) -> TrtColumn:
    match = _HEADER.match(header)
    if match is None:
        raise ValueError(f"unexpected column header {header!r}")
    gpu = match["gpu"]
    if _BOLD_COUNT.match(gpu):
        # "**4 GPUs**<br/>TP2,PP2 (FP4)" under a line naming the GPU.
        gpu = current_gpu
    layout = match["layout"]
    tp = _TP.search(layout)
    pp = _PP.search(layout)
    return TrtColumn(
        gpu_name=gpu,
        tp=int(tp.group(1)) if tp else 1,
        pp=int(pp.group(1)) if pp else 1,
        precision=match["precision"].lower(),
    )


def read_tables() -> list[tuple[str, TrtColumn, str, float]]:
    """(model, column, ISL/OSL, system output tokens/s) for every filled cell."""
    path = resources.files("shared.perfmodel").joinpath("data", "benchmarks", SOURCE_DIR, FILENAME)
    lines = path.read_text("utf-8").splitlines()
    cells: list[tuple[str, TrtColumn, str, float]] = []
    model = ""
    previous = ""
    columns: list[TrtColumn] = []
    for line in lines:
        text = line.strip()
        if text.startswith("#### "):
            model = text.removeprefix("#### ").strip()
        elif text.startswith("| Sequence Length"):
            columns = [_column(h, previous) for h in _cells(text)[1:]]
        elif text.startswith("|") and columns and not text.startswith("|---"):
            row = _cells(text)
            for column, value in zip(columns, row[1:], strict=True):
                if value:
                    cells.append((model, column, row[0], float(value.replace(",", ""))))
        elif not text:
            columns = []
        if text and not text.startswith("|"):
            previous = text
    return cells


def table_id(model: str, lengths: str) -> str:
    return f"trtllm-perf-overview {model} {lengths}"


def load_trtllm(catalog: Catalog) -> LoadResult:
    """Per-GPU tokens/s (prompt + generated, derived) of the prefill-heavy rows."""
    result = LoadResult()
    for model, column, lengths, output_tps in read_tables():
        result.rows_read[TENSORRT_LLM] += 1
        if lengths not in PREFILL_HEAVY:
            result.skip(TENSORRT_LLM, SKIP_NOT_PREFILL, lengths)
            continue
        gpu_id = GPU_IDS.get(column.gpu_name)
        if gpu_id is None or gpu_id not in catalog.by_id:
            result.skip(TENSORRT_LLM, SKIP_NOT_IN_CATALOG, column.gpu_name)
            continue
        isl, osl = (int(x) for x in lengths.split("/"))
        per_gpu = output_tps * (isl + osl) / osl / column.gpus
        layout = f"TP{column.tp}" + (f",PP{column.pp}" if column.pp > 1 else "")
        result.measurements.append(
            Measurement(
                dataset=TENSORRT_LLM,
                table_id=table_id(model, lengths),
                workload_class=LLM_PREFILL,
                workload=f"{model} {lengths}",
                gpu_id=gpu_id,
                gpus_per_system=column.gpus,
                precision=column.precision,
                value=per_gpu,
                unit="tokens/s per GPU (prompt + generated; derived)",
                derived=True,
                system=f"{column.gpu_name} {layout} ({column.precision.upper()})",
            )
        )
    return result
